"""Strided views of device arrays: the CUDA side of numpy's views.

A view (a slice, a transpose, a broadcast, a diagonal, a reshape the layout allows)
is a device array on its base's memory with its own element offset, shape and
strides, so a write through it reaches the base, as on the CPU.  Views are built
here and nowhere else:

- on a GPU, a numba ``DeviceNDArray`` whose ``gpu_data`` is a ``ViewPointer``: an
  address inside the base's block that holds the block's owner, so the memory lives
  as long as any view of it does (numba's own ``MemoryPointer.view`` keeps only a weak
  reference to the owner);
- under Numba's CUDA simulator, a numpy array over the base's buffer (through
  ``__array_interface__``, the same offsets and strides), wrapped as the simulator's
  array.

A view that must not be written (a broadcast, as numpy's ``broadcast_to``) says so
through ``flags.writeable``, which the in-place ops check on every device.

Kernels walk flat buffers with element strides: ``layout`` gives any array as a 1-D
buffer over the memory it spans, an element offset and element strides, so one
strided kernel reads from and writes into views of every shape.

>>> nocopy_strides((2, 3), (3, 1), (3, 2))
(2, 1)
>>> nocopy_strides((3, 2), (1, 3), (6,)) is None
True
"""
import numpy as np

from .launch import SIMULATOR


def _strict_simulated_arrays():
    """Make the simulator's arrays refuse what numba's device arrays refuse.

    The simulator's array is a numpy array, whose ``reshape``/``ravel`` quietly copy a
    non-contiguous array and whose ``copy_to_device`` takes any layout; numba's
    ``DeviceNDArray`` raises on the first two ("operation requires copying"), on a copy
    into or from a non-contiguous device array, and on a copy to the host of negative
    strides.  Refusing them here too keeps a test under the simulator from passing where
    the GPU would fail (or, for a write into a copy, silently lose the write).
    """
    from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray
    if getattr(FakeCUDAArray, "strict", False):
        return
    reshape, ravel = FakeCUDAArray.reshape, FakeCUDAArray.ravel
    to_device, to_host = FakeCUDAArray.copy_to_device, FakeCUDAArray.copy_to_host

    def refuse_copy(method):
        def run(self, *args, **kwargs):
            out = method(self, *args, **kwargs)
            if out.shape != self.shape and not self._ary.flags.c_contiguous:
                raise NotImplementedError("operation requires copying")
            return out
        return run

    def copy_to_device(self, ary, stream=0):
        if ary.size and (not self._ary.flags.c_contiguous or
                         hasattr(ary, "copy_to_host") and not ary.is_c_contiguous()):
            raise ValueError("copy_to_device: array is not contiguous")
        return to_device(self, ary, stream)

    def copy_to_host(self, ary=None, stream=0):
        if any(s < 0 for s in self._ary.strides):
            raise NotImplementedError("D->H copy not implemented for negative strides")
        return to_host(self, ary, stream)

    FakeCUDAArray.reshape, FakeCUDAArray.ravel = refuse_copy(reshape), refuse_copy(ravel)
    FakeCUDAArray.copy_to_device, FakeCUDAArray.copy_to_host = copy_to_device, copy_to_host
    FakeCUDAArray.strict = True


if SIMULATOR:
    _strict_simulated_arrays()


def is_contiguous(a):
    """Whether ``a`` lies in row-major order without gaps (numpy's C_CONTIGUOUS)."""
    return a.is_c_contiguous()


def element_strides(a):
    """``a``'s strides in elements (numba and numpy keep bytes)."""
    size = a.dtype.itemsize
    return tuple(s // size for s in a.strides)


def writeable(a):
    """False for a read-only view (a broadcast), True otherwise."""
    return getattr(getattr(a, "flags", None), "writeable", True)


def nocopy_strides(shape, strides, new_shape):
    """Element strides that show an array of ``shape``/``strides`` as ``new_shape``
    without moving data (row-major order kept), or None when only a copy can (numpy's
    rule for ``reshape`` returning a view).  Axes of size 1 are ignored; an empty
    array takes any shape."""
    new_shape = tuple(new_shape)
    if 0 in shape or 0 in new_shape:
        return _row_major(new_shape)
    old = [(n, s) for n, s in zip(shape, strides) if n != 1]
    new = list(new_shape)
    out = [0] * len(new)
    i = j = 0          # next old axis, next new axis
    while i < len(old) and j < len(new):
        # the smallest run of old axes i..i2 and new axes j..j2 with equal sizes
        i2, j2 = i + 1, j + 1
        size_old, size_new = old[i][0], new[j]
        while size_old != size_new:
            if size_new < size_old:
                size_new *= new[j2]
                j2 += 1
            else:
                size_old *= old[i2][0]
                i2 += 1
        for k in range(i, i2 - 1):    # the old run must be one block of memory
            if old[k][1] != old[k + 1][0] * old[k + 1][1]:
                return None
        step = old[i2 - 1][1]
        for k in range(j2 - 1, j - 1, -1):
            out[k] = step
            step *= new[k]
        i, j = i2, j2
    last = old[-1][1] if old else 1
    for k in range(j, len(new)):      # trailing axes of size 1
        out[k] = last
    return tuple(out)


def _row_major(shape):
    out, step = [], 1
    for n in reversed(shape):
        out.append(step)
        step *= max(n, 1)
    return tuple(reversed(out))


def span(shape, strides):
    """Lowest and highest element offsets an array of ``shape``/``strides`` touches
    (from its element 0); ``(0, -1)`` when it is empty."""
    if 0 in shape:
        return 0, -1
    lo = sum((n - 1) * s for n, s in zip(shape, strides) if s < 0)
    hi = sum((n - 1) * s for n, s in zip(shape, strides) if s > 0)
    return lo, hi


# ------------------------------------------------------------------ building views

_pointer_class = _readonly_class = None


def _classes():
    """numba's ``MemoryPointer`` subclass for an address inside a block, and the
    read-only ``DeviceNDArray`` (made on first use: the simulator has neither)."""
    global _pointer_class, _readonly_class
    if _pointer_class is None:
        import ctypes

        from cuda.bindings import driver as binding
        from numba.cuda.cudadrv.devicearray import DeviceNDArray
        from numba.cuda.cudadrv.driver import MemoryPointer

        class ViewPointer(MemoryPointer):
            """An address inside another pointer's block; holds that pointer (and so
            the block) alive.  Frees nothing itself."""

            device_ctypes_pointer = None      # a plain attribute here (a property above)

            def __init__(self, base, address, size):
                self.context = base.context
                self.device_pointer = self.handle = binding.CUdeviceptr(address)
                self.device_ctypes_pointer = ctypes.c_size_t(address)
                self.size = self._cuda_memsize_ = size
                self.is_managed = False
                self.refct = 1
                self._owner = None
                self.base = base

        class _Flags(dict):
            writeable = False

        class ReadOnlyDeviceNDArray(DeviceNDArray):
            """A device array that in-place ops refuse (a broadcast view)."""

            @property
            def flags(self):
                return _Flags(self._dummy.flags)

        _pointer_class, _readonly_class = ViewPointer, ReadOnlyDeviceNDArray
    return _pointer_class, _readonly_class


class _HostView:
    """The simulator's view: a numpy array interface over ``base``'s buffer."""

    __slots__ = ("__array_interface__", "base")

    def __init__(self, base, address, shape, strides, dtype, readonly):
        self.base = base
        self.__array_interface__ = {"shape": shape, "strides": strides, "typestr": dtype.str,
                                    "descr": dtype.descr, "version": 3,
                                    "data": (address, readonly)}


def _address(a):
    """The address of ``a``'s element 0."""
    if SIMULATOR:
        return a._ary.__array_interface__["data"][0]
    return a.device_ctypes_pointer.value or 0


def strided_view(a, offset, shape, strides, readonly=False):
    """A view of ``a``'s memory: element ``offset`` from ``a``'s element 0, ``shape`` and
    element ``strides``; read-only when ``readonly`` or when ``a`` is."""
    shape, strides = tuple(int(n) for n in shape), tuple(int(s) for s in strides)
    readonly = readonly or not writeable(a)
    size = a.dtype.itemsize
    lo, hi = span(shape, strides)
    address = _address(a) + offset * size
    byte_strides = tuple(s * size for s in strides)
    if SIMULATOR:
        from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray
        if hi < lo:        # empty: numpy wants a valid buffer, any will do
            return FakeCUDAArray(np.empty(shape, a.dtype))
        host = _HostView(a._ary, address, shape, byte_strides, a.dtype, readonly)
        return FakeCUDAArray(np.asarray(host))
    pointer, readonly_class = _classes()
    from numba.cuda.cudadrv.devicearray import DeviceNDArray
    cls = readonly_class if readonly else DeviceNDArray
    if hi < lo:
        return cls(shape, byte_strides, a.dtype)
    base = a.gpu_data
    base = getattr(base, "base", None) if type(base) is pointer else base
    gpu_data = pointer(base, address, (hi + 1) * size)
    return cls(shape, byte_strides, a.dtype, gpu_data=gpu_data)


def may_share_memory(a, b):
    """Whether the memory ``a`` and ``b`` span overlaps (numpy's ``may_share_memory``:
    a span test, so True may be conservative)."""
    if a.size == 0 or b.size == 0:
        return False
    (la, ha), (lb, hb) = _byte_span(a), _byte_span(b)
    return la <= hb and lb <= ha


def _byte_span(a):
    lo, hi = span(a.shape, element_strides(a))
    address, size = _address(a), a.dtype.itemsize
    return address + lo * size, address + (hi + 1) * size - 1


def layout(a):
    """``(flat, offset, strides)``: a 1-D array over the memory ``a`` spans, the element
    offset of ``a``'s element 0 in it and ``a``'s element strides; a strided kernel
    then reads and writes ``a`` at ``flat[offset + sum(i_k * strides_k)]``."""
    strides = element_strides(a)
    if is_contiguous(a):
        return (a if a.ndim == 1 else a.reshape(a.size)), 0, strides
    lo, hi = span(a.shape, strides)
    flat = strided_view(a, lo, (hi - lo + 1,), (1,))
    return flat, -lo, strides
