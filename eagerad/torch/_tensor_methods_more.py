"""More of PyTorch's Tensor methods, registered as the PyTorch face's attributes: the long
comparison names (``greater``, ``less_equal``), ``equal`` (one bool for the whole
tensor), dtype and layout queries (``is_floating_point``, ``is_signed``, ``is_cpu``,
``data_ptr``, ``get_device``), ``fill_diagonal_``, shape-changing in-place methods
(``squeeze_``, ``t_``, ``transpose_``, ``resize_``) for tensors outside the graph,
``apply_``/``map_`` with Python callables, ``renorm_``, ``unique_consecutive``,
``histogram`` and ``register_post_accumulate_grad_hook``.

>>> import eagerad.torch as torch
>>> x = torch.tensor([1.0, 2.0])
>>> x.greater(1.0), x.equal(torch.tensor([1.0, 2.0])), x.is_floating_point()
(tensor([False,  True]), True, True)
"""
import numpy as np

from ..autograd.grad_mode import state as grad_state
from ..autograd.hooks import RemovableHandle, _HookDict, _ids
from ..face import install
from ..ops import cat, equal_all, i0, nextafter
from ..ops.inplace import _rewritten
from ..tensor import Tensor
from . import _toplevel_more as _top
from ._face import TORCH
from ._opdb_functions import mvlgamma, renorm


def _alias(method):
    """A long PyTorch name for an existing short method."""
    return lambda self, *args, **kwargs: getattr(self, method)(*args, **kwargs)


def data_ptr(self):
    """The address of the first element (an int), as ``Tensor.data_ptr``.

    >>> import eagerad.torch as torch
    >>> x = torch.zeros(4); x[1:].data_ptr() - x.data_ptr()
    4
    """
    data = self._data
    face = getattr(data, "__array_interface__", None) or data.__cuda_array_interface__
    return int(face["data"][0])


def fill_diagonal_(self, fill_value, wrap=False):
    """Write ``fill_value`` on the main diagonal in place (every dim equal beyond 2-D;
    ``wrap`` restarts the diagonal below a tall matrix every ``cols + 1`` rows).

    >>> import eagerad.torch as torch
    >>> torch.zeros(3, 2).fill_diagonal_(1.0)
    tensor([[1., 0.],
            [0., 1.],
            [0., 0.]])
    """
    if self.ndim < 2:
        raise RuntimeError(f"fill_diagonal_: the tensor needs at least 2 dimensions, got shape "
                           f"{tuple(self.shape)}")
    if self.ndim > 2 and len(set(self.shape)) != 1:
        raise RuntimeError(f"fill_diagonal_: beyond 2-D all dimensions must be equal, got "
                           f"shape {tuple(self.shape)}")
    mask = np.zeros(tuple(self.shape), dtype=bool)
    np.fill_diagonal(mask, True, wrap=wrap)
    self[tuple(np.nonzero(mask))] = fill_value
    return self


def _reshaped_in_place(name, change):
    """``x.<name>(...)``: ``x`` takes the shape ``change(x, ...)`` gives, sharing or
    replacing its buffer; only for tensors outside the graph (the history of a tensor
    whose shape changes in place cannot be recorded here)."""
    def method(self, *args, **kwargs):
        if self._requires_grad and grad_state.enabled:
            raise RuntimeError(
                f"{name}: this tensor (shape {tuple(self.shape)}) requires grad, and eagerad "
                f"cannot record a shape change in place; use the out-of-place "
                f"{name[:-1]}() or call it under torch.no_grad()")
        new = change(self.detach(), *args, **kwargs)
        self._data = new._data
        self._view = None
        self._version[0] += 1
        return self
    method.__name__ = name
    method.__doc__ = f"In place ``self = self.{name[:-1]}(...)`` (shape change); returns self."
    return method


def _resized(x, *sizes):
    """``x``'s elements in row-major order, cut or padded with zeros to ``sizes``."""
    shape = tuple(sizes[0]) if len(sizes) == 1 and not isinstance(sizes[0], int) else sizes
    if any(int(s) < 0 for s in shape):
        raise RuntimeError(f"resize_: sizes must be non-negative, got {shape}")
    n = int(np.prod(shape))
    flat = x.reshape(-1)
    if n <= flat.shape[0]:
        return flat[:n].reshape(shape)
    return cat([flat, flat.new_zeros(n - flat.shape[0])]).reshape(shape)


def apply_(self, callable):
    """Replace each element by ``callable(element)`` (CPU, elementwise, Python numbers).

    >>> import eagerad.torch as torch
    >>> torch.tensor([1.0, 2.0]).apply_(lambda v: v * 10)
    tensor([10., 20.])
    """
    return _mapped(self, "apply_", np.vectorize(callable, otypes=[self.dtype]), self._data)


def map_(self, tensor, callable):
    """Replace each element by ``callable(element, other)`` (``tensor`` broadcast to self).

    >>> import eagerad.torch as torch
    >>> torch.tensor([1.0, 2.0]).map_(torch.tensor([3.0, 4.0]), lambda a, b: a * b)
    tensor([3., 8.])
    """
    other = np.broadcast_to(np.asarray(tensor._data), self.shape)
    return _mapped(self, "map_", np.vectorize(callable, otypes=[self.dtype]), self._data, other)


def map2_(self, x, y, callable):
    """Replace each element by ``callable(element, x_element, y_element)``."""
    xs, ys = (np.broadcast_to(np.asarray(t._data), self.shape) for t in (x, y))
    return _mapped(self, "map2_", np.vectorize(callable, otypes=[self.dtype]), self._data, xs,
                   ys)


def _mapped(self, name, fn, *arrays):
    if self.device.type != "cpu":
        raise TypeError(f"{name} is only implemented on CPU tensors, this one is on "
                        f"{self.device}")
    if self._requires_grad and grad_state.enabled:
        raise RuntimeError(f"{name}: a Python callable cannot be differentiated; the tensor "
                           "requires grad (use torch.no_grad() or detach())")
    if self._data.size:
        self._data[...] = fn(*arrays)
    self._version[0] += 1
    return self


def register_post_accumulate_grad_hook(self, hook):
    """Run ``hook(tensor)`` after the gradient of this leaf is accumulated into ``.grad``
    (an optimizer step per parameter, for instance); returns a handle with ``remove()``.

    >>> import eagerad.torch as torch
    >>> w = torch.ones(2, requires_grad=True); seen = []
    >>> h = w.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.tolist()))
    >>> (w * 3).sum().backward(); seen
    [[3.0, 3.0]]
    """
    if not callable(hook):
        raise TypeError(f"register_post_accumulate_grad_hook: hook must be callable, got "
                        f"{type(hook).__name__}")
    if not self._requires_grad:
        raise RuntimeError("register_post_accumulate_grad_hook: cannot register a hook on a "
                           "tensor that does not require grad")
    if self.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                           "tensors")
    if self._post_accumulate_hooks is None:
        self._post_accumulate_hooks = _HookDict()
    key = next(_ids)
    self._post_accumulate_hooks[key] = hook
    return RemovableHandle(self._post_accumulate_hooks, key)


def as_subclass(self, cls):
    """This tensor's data and history seen as an instance of ``cls`` (a subclass of
    ``torch.Tensor``).

    >>> import eagerad.torch as torch
    >>> class Mine(type(torch.ones(1))): pass
    >>> type(torch.ones(1).as_subclass(Mine)).__name__
    'Mine'
    """
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(f"as_subclass: cls must be a subclass of Tensor, got {cls!r}")
    other = object.__new__(cls)
    for slot in ("_data", "_device", "_requires_grad", "grad_fn", "_version", "_face"):
        setattr(other, slot, getattr(self, slot))
    other.__dict__.update(self.__dict__)
    return other


def _top_is_nonzero(self):
    raise RuntimeError(f"is_nonzero: a tensor of {self.numel()} elements is ambiguous; it "
                       "needs exactly one")


class UntypedStorage:
    """What ``Tensor.untyped_storage()`` / ``storage()`` return here: the buffer a tensor
    looks into (the base of a view), with its address and size.

    >>> import eagerad.torch as torch
    >>> x = torch.zeros(4); s = x[1:].untyped_storage()
    >>> s.data_ptr() == x.data_ptr(), s.nbytes(), len(x.storage())
    (True, 16, 4)
    """

    def __init__(self, tensor, typed):
        root = tensor._data
        while getattr(root, "base", None) is not None and hasattr(root.base, "nbytes") \
                and hasattr(root.base, "__array_interface__"):
            root = root.base
        self._root, self._typed, self.device = root, typed, tensor.device
        self.dtype = tensor.dtype

    def data_ptr(self):
        """Address of the buffer's first byte."""
        face = getattr(self._root, "__array_interface__", None) or \
            self._root.__cuda_array_interface__
        return int(face["data"][0])

    def nbytes(self):
        """Bytes in the buffer."""
        return int(self._root.nbytes)

    def element_size(self):
        """Bytes per element (1 for an untyped storage)."""
        return self.dtype.itemsize if self._typed else 1

    def size(self):
        """Elements (bytes for an untyped storage) in the buffer."""
        return self.nbytes() // self.element_size()

    def __len__(self):
        return self.size()


def dim_order(self):
    """Dimensions from outermost to innermost in memory (``(0, 1, ...)`` when contiguous).

    >>> import eagerad.torch as torch
    >>> torch.zeros(2, 3).t().dim_order()
    (1, 0)
    """
    steps = self.stride()
    return tuple(sorted(range(self.ndim), key=lambda d: -steps[d]))


def set_(self, source=None, *args, **kwargs):
    """Make this tensor look at ``source``'s buffer (its shape and dtype too); no source:
    an empty tensor.  For tensors outside the graph, as the other shape changes in place.

    >>> import eagerad.torch as torch
    >>> a, b = torch.zeros(1), torch.ones(2, 2); _ = a.set_(b); a.data_ptr() == b.data_ptr()
    True
    """
    if args or kwargs:
        raise TypeError("set_: storage_offset/size/stride arguments are not supported; pass "
                        "a source tensor")
    return _reshaped_in_place("set_", lambda x, src: src.detach() if src is not None
                              else x.new_empty(0))(self, source)


def _false(doc):
    return property(lambda self: False, doc=doc)


ATTRIBUTES = {
    "greater": _alias("gt"), "greater_equal": _alias("ge"), "less": _alias("lt"),
    "less_equal": _alias("le"), "not_equal": _alias("ne"),
    "equal": lambda self, other: equal_all(self, other),
    "is_floating_point": lambda self: self.dtype.kind == "f",
    "is_signed": lambda self: _top.is_signed(self),
    "is_same_size": lambda self, other: _top.is_same_size(self, other),
    "get_device": lambda self: _top.get_device(self),
    "is_inference": lambda self: False,
    "is_nonzero": lambda self: bool(self.item()) if self.numel() == 1 else _top_is_nonzero(self),
    "conj_physical_": _rewritten("conj_physical_", lambda x: x.conj_physical(),
                                 "In place ``conj_physical``; returns self."),
    "is_conj": lambda self: False,
    "is_neg": lambda self: False,
    "is_cpu": property(lambda self: self.device.type == "cpu",
                       doc="Whether the tensor lives on the CPU."),
    "is_meta": _false("Meta tensors do not exist here."),
    "is_sparse": _false("eagerad's tensors are dense."),
    "is_sparse_csr": _false("eagerad's tensors are dense."),
    "is_quantized": _false("eagerad has no quantized tensors."),
    "is_nested": _false("eagerad has no nested tensors."),
    "is_mkldnn": _false("No MKL-DNN layout here."),
    "output_nr": property(lambda self: self._out_index,
                          doc="Which output of its grad_fn this tensor is."),
    "data_ptr": data_ptr,
    "const_data_ptr": data_ptr,
    "untyped_storage": lambda self: UntypedStorage(self, False),
    "storage": lambda self: UntypedStorage(self, True),
    "is_set_to": lambda self, other: (data_ptr(self) == data_ptr(other)
                                      and self.shape == other.shape
                                      and self.stride() == other.stride()),
    "set_": set_,
    "dim_order": dim_order,
    "record_stream": lambda self, stream: None,
    "module_load": lambda self, other, assign=False: other,
    "is_xpu": _false("No XPU devices here."),
    "is_mps": _false("No MPS devices here."),
    "is_ipu": _false("No IPU devices here."),
    "is_xla": _false("No XLA devices here."),
    "is_vulkan": _false("No Vulkan devices here."),
    "is_mtia": _false("No MTIA devices here."),
    "is_maia": _false("No MAIA devices here."),
    "fill_diagonal_": fill_diagonal_,
    "squeeze_": _reshaped_in_place("squeeze_", lambda x, dim=None: x.squeeze(dim)),
    "unsqueeze_": _reshaped_in_place("unsqueeze_", lambda x, dim: x.unsqueeze(dim)),
    "t_": _reshaped_in_place("t_", lambda x: x.t()),
    "transpose_": _reshaped_in_place("transpose_", lambda x, d0, d1: x.transpose(d0, d1)),
    "swapaxes_": _reshaped_in_place("swapaxes_", lambda x, d0, d1: x.transpose(d0, d1)),
    "swapdims_": _reshaped_in_place("swapdims_", lambda x, d0, d1: x.transpose(d0, d1)),
    "resize_": _reshaped_in_place("resize_", lambda x, *sizes, memory_format=None:
                                  _resized(x, *sizes)),
    "resize_as_": _reshaped_in_place("resize_as_", lambda x, other, memory_format=None:
                                     _resized(x, tuple(other.shape))),
    "renorm_": _rewritten("renorm_", renorm, "In place ``renorm``; returns self."),
    "mvlgamma_": _rewritten("mvlgamma_", mvlgamma, "In place ``mvlgamma``; returns self."),
    "i0_": _rewritten("i0_", i0, "In place ``i0``; returns self."),
    "nextafter_": _rewritten("nextafter_", nextafter, "In place ``nextafter``; returns self."),
    "apply_": apply_, "map_": map_, "map2_": map2_,
    "new_empty_strided": lambda self, size, stride, **kwargs: self.new_empty(size, **kwargs),
    "unique_consecutive": lambda self, return_inverse=False, return_counts=False, dim=None:
        _top.unique_consecutive(self, return_inverse, return_counts, dim),
    "histogram": lambda self, bins, **kwargs: _top.histogram(self, bins, **kwargs),
    "register_post_accumulate_grad_hook": register_post_accumulate_grad_hook,
    "as_subclass": as_subclass,
}
for _name, _impl in ATTRIBUTES.items():
    install(Tensor, _name)
    TORCH.attributes[_name] = _impl
