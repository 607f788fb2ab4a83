"""Tensor and Parameter: a device buffer plus the autograd fields.

The class holds data and graph bookkeeping only.  Math methods and operators are
installed by ``eagerad.ops`` and ``backward``/hooks by ``eagerad.autograd`` (each
layer adds its own), so this module imports nothing above ``backend``.

>>> import eagerad
>>> t = eagerad.Tensor([[1.0, 2.0]])
>>> t.shape, t.dtype
((1, 2), dtype('float32'))
"""
import math
import operator
import warnings
import weakref

import numpy as np

from . import _upcalls, backend, dtype as dt
from .device import CPU, as_device
from .face import FACES, Face, Shape, ambiguous
from .printing import FORCED, torch_repr


# Functions of the layers above that Tensor calls back into ("ops": the eagerad.ops
# namespace, for numpy protocol routing; "initializer": eagerad.nn.init.initializer) are
# registered by those layers in eagerad._upcalls, so this module imports nothing above it.


def _initialized(shape, dtype, init):
    """The buffer of MindSpore's ``Tensor(shape=, dtype=, init=)``: ``init`` is a name
    (``'zeros'``, ``'ones'``, ``'normal'``, ``'uniform'``, ...), a number or an
    initializer callable, made by ``eagerad.nn.init.initializer`` as MindSpore's own
    ``Tensor`` defers to its initializer module."""
    initializer = _upcalls.get("initializer")
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)
    return initializer(init, shape, dtype=dt.as_dtype(dtype) or dt.float32)


def _native(arr):
    """``arr`` with its dtype checked: byte order made native (a big-endian float64 stays
    float64), unsupported widths mapped to supported ones (complex256: complex128)."""
    kind = arr.dtype.kind
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    if arr.dtype not in dt.SUPPORTED:
        arr = arr.astype(dt.int64 if kind in "iu" else dt.float64 if kind == "f" else
                         dt.complex128 if kind == "c" else dt.float32)
    return arr


_INT64 = np.iinfo(np.int64)


def _wide_integers(data, arr, dtype):
    """Python integers beyond int64 (numpy made them objects or uint64): a float array
    when a float ``dtype`` was asked for, else OverflowError (never a wrapped value)."""
    try:
        as_float = np.asarray(data, dtype=np.float64)
    except (ValueError, TypeError, OverflowError):
        return arr                   # not numbers at all: the caller's TypeError says so
    if dtype is not None and dt.as_dtype(dtype).kind == "f":
        return as_float
    if arr.dtype == np.uint64 and int(arr.max(initial=0)) <= _INT64.max:
        return arr
    big = as_float[np.abs(as_float) > _INT64.max] if as_float.ndim else as_float
    raise OverflowError(f"cannot make an integer Tensor from {int(big.flat[0]) if big.size else data!r}: "
                        f"it overflows int64 (integer tensors hold [{_INT64.min}, {_INT64.max}]); "
                        "pass a float (or dtype=float64) for a float tensor")


def _infer_array(data, dtype, copy=True):
    """numpy array for user data: Python floats become float32, numpy keeps its dtype.

    The result owns its memory unless ``copy=False`` (``from_numpy``): a tensor must
    not change when the caller later changes the array it was made from."""
    if isinstance(data, Tensor):
        arr = data.numpy()
        src = data._data
    else:
        from_python = not isinstance(data, (np.ndarray, np.generic))
        try:
            arr = np.asarray(data)
        except (ValueError, TypeError) as err:
            raise TypeError(f"cannot make a Tensor from {type(data).__name__}: {err}") from None
        if from_python and (arr.dtype.kind == "O" or arr.dtype == np.uint64):
            arr = _wide_integers(data, arr, dtype)
        if arr.dtype.kind in "OUSV":
            raise TypeError(f"cannot make a Tensor from {data!r}: elements must be numbers "
                            "and rows must have equal lengths")
        if from_python and arr.dtype.kind in "fc" and arr.dtype.itemsize > 4 * (
                1 + (arr.dtype.kind == "c")) and dtype is None:   # Python floats/complexes
            arr = arr.astype(dt.default_float if arr.dtype.kind == "f" else
                             dt.complex_of(dt.default_float))
        src = data
    arr = _native(arr)
    if dtype is not None:
        arr = arr.astype(dt.as_dtype(dtype), copy=False)
    if copy and (arr is src or not arr.flags.owndata):
        arr = arr.copy()
    return arr


_new = object.__new__
_NON_LEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information.")


class Size(int):
    """Element count that also answers PyTorch's ``t.size()`` / ``t.size(dim)``.

    >>> s = Tensor([[1, 2, 3], [4, 5, 6]]).size
    >>> int(s), s(), s(1)
    (6, (2, 3), 3)
    """

    def __new__(cls, shape):
        obj = int.__new__(cls, math.prod(int(n) for n in shape))   # np.prod costs ~5 us
        obj.shape = shape   # the tensor's shape, of its face's type
        return obj

    def __call__(self, dim=None):
        return self.shape if dim is None else self.shape[dim]


class Tensor:
    """An n-dimensional array that can record the operations applied to it.

    ``Tensor(data, dtype=None)`` is the MindSpore constructor; ``eagerad.tensor``
    adds ``requires_grad`` and ``device`` (PyTorch style).

    >>> Tensor([1.0, 2.0]) * 2
    tensor([2., 4.])
    """
    __slots__ = ("_data", "_device", "_requires_grad", "grad_fn", "_version", "_face",
                 "__weakref__", "__dict__")
    __array_priority__ = 1000  # numpy defers to our reflected operators
    # Rarely set fields, as class defaults: an instance gets its own value (in its
    # ``__dict__``) only when one is set, so the per-op ``_make`` skips them.
    _grad = None          # accumulated gradient of a leaf
    _out_index = 0        # which output of ``grad_fn`` this is
    _hooks = None         # a leaf's gradient hooks
    _post_accumulate_hooks = None   # a leaf's hooks run after .grad is accumulated
    _retains_grad = False
    _tangents = None      # forward-mode tangents
    _view = None    # (root tensor, view steps) for a view made by ops/shape.py
    _views = None   # weak set of the live views of this (root) tensor

    def __init__(self, data=None, dtype=None, *, device=None, shape=None, init=None):
        if init is not None and data is not None:
            raise TypeError("Tensor(): pass either data or shape= with init=, not both")
        if data is None and shape is not None:
            data = _initialized(shape, dtype, "zeros" if init is None else init)
            dtype = None
        elif data is None:
            raise TypeError("Tensor() needs data, e.g. Tensor([1.0, 2.0]) or Tensor(shape=(2, 3), dtype=...)")
        arr = _infer_array(data, dtype)
        dev = as_device(device) if device is not None else (
            data._device if isinstance(data, Tensor) else as_device(None))
        self._init(backend.get(dev.type).from_numpy(arr) if dev.type != "cpu" else arr, dev,
                   face=data._face if isinstance(data, Tensor) else NEUTRAL)

    def _init(self, data, device, requires_grad=False, grad_fn=None, version=None, face=None):
        self._data = data
        self._device = device
        self._requires_grad = requires_grad
        self.grad_fn = grad_fn
        self._version = version if version is not None else [0]
        self._face = face or NEUTRAL

    @staticmethod
    def _make(data, device=CPU, requires_grad=False, grad_fn=None, version=None, face=None):
        """Wrap a backend array without copying or checking (the fast internal path,
        once per op: ``_init``'s assignments are spelled out to save a call).  ``face``
        is the stamp of the tensor (see ``eagerad.face``): an op's result takes its
        operands'."""
        t = _new(Tensor)
        t._data = data
        t._device = device
        t._requires_grad = requires_grad
        t.grad_fn = grad_fn
        t._version = version if version is not None else [0]
        t._face = face or NEUTRAL
        return t

    # ------------------------------------------------------------ metadata
    @property
    def shape(self):
        """The dimensions as a tuple of ints.

        >>> Tensor([[1, 2, 3], [4, 5, 6]]).shape
        (2, 3)
        """
        return self._face.shape(self._data.shape)

    @property
    def dtype(self):
        """The element type (a numpy dtype, e.g. ``eagerad.float32``).

        >>> Tensor([1, 2]).dtype, Tensor([1.0]).dtype
        (dtype('int64'), dtype('float32'))
        """
        return self._data.dtype

    @property
    def ndim(self):
        """Number of dimensions.

        >>> Tensor([[1.0, 2.0]]).ndim
        2
        """
        return len(self._data.shape)

    @property
    def size(self):
        """Element count (an int), callable as PyTorch's ``t.size(dim)``.

        >>> t = Tensor([[1.0, 2.0, 3.0]])
        >>> t.size, t.size(1)
        (3, 3)
        """
        return Size(self.shape)

    def numel(self):
        """Element count as a plain int (PyTorch's ``numel``).

        >>> Tensor([[1.0, 2.0], [3.0, 4.0]]).numel()
        4
        """
        return int(self.size)

    def dim(self):
        """Number of dimensions (PyTorch's ``dim``).

        >>> Tensor([[1.0, 2.0]]).dim()
        2
        """
        return self.ndim

    def element_size(self):
        """Bytes per element (PyTorch's ``element_size``).

        >>> Tensor([1.0]).element_size(), Tensor([1.0], dtype='float64').element_size()
        (4, 8)
        """
        return self.dtype.itemsize

    @property
    def nbytes(self):
        """Bytes the elements take (``numel() * element_size()``).

        >>> zeros(2, 3).nbytes
        24
        """
        return int(self.size) * self.dtype.itemsize

    def is_contiguous(self):
        """Whether the elements lie in row-major order without gaps (PyTorch's
        ``is_contiguous``); transposes and strided slices are not.

        >>> x = zeros(2, 3); x.is_contiguous(), x.T.is_contiguous()
        (True, False)
        """
        data = self._data
        flags = getattr(data, "flags", None)
        return bool(flags["C_CONTIGUOUS"]) if flags is not None else bool(data.is_c_contiguous())

    def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
        """A new tensor (a copy of ``data``) with this tensor's dtype and device unless given.

        >>> Tensor([1.0]).new_tensor([2, 3])
        tensor([2., 3.])
        """
        return tensor(data, dtype or self.dtype, requires_grad, device or self._device)

    def new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False):
        """``size`` filled with ``fill_value``, this tensor's dtype and device unless given.

        >>> Tensor([1], dtype='int32').new_full((2,), 7)
        tensor([7, 7], dtype=eagerad.int32)
        """
        return full(size, fill_value, dtype or self.dtype, device or self._device, requires_grad)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
        """Zeros of ``size`` with this tensor's dtype and device unless given.

        >>> Tensor([1.0], dtype='float64').new_zeros(2, 2).dtype
        dtype('float64')
        """
        return _filled(size, 0, dtype or self.dtype, device or self._device, requires_grad)

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
        """Ones of ``size`` with this tensor's dtype and device unless given.

        >>> Tensor([1]).new_ones((2,)).tolist()
        [1, 1]
        """
        return _filled(size, 1, dtype or self.dtype, device or self._device, requires_grad)

    new_empty = new_zeros

    def new(self, *args, dtype=None, device=None, requires_grad=False):
        """PyTorch's legacy ``x.new(...)``: ``new(2, 3)`` (or a ``torch.Size``) gives that
        shape, ``new(data)`` a copy of ``data``, ``new()`` an empty tensor; this
        tensor's dtype and device unless given.

        >>> x = Tensor([1.0], dtype='float64')
        >>> x.new(2, 3).shape, x.new([1, 2]).dtype, x.new().shape
        ((2, 3), dtype('float64'), (0,))
        """
        if not args or all(isinstance(a, (int, np.integer)) for a in args) or \
                (len(args) == 1 and isinstance(args[0], Shape)):
            return self.new_zeros(*(args or (0,)), dtype=dtype, device=device,
                                  requires_grad=requires_grad)
        if len(args) > 1:
            raise TypeError(f"new: pass sizes as ints or one data argument, got {args!r}")
        return self.new_tensor(args[0], dtype, device, requires_grad)

    def copy(self):
        """MindSpore's ``Tensor.copy()``: a new tensor with its own copy of the values,
        cut from the graph.

        >>> a = Tensor([1.0, 2.0]); b = a.copy(); b[0] = 5.0
        >>> a.tolist(), b.tolist()
        ([1.0, 2.0], [5.0, 2.0])
        """
        return Tensor._make(backend.get(self._device.type).copy(self._data), self._device,
                            face=self._face)

    @property
    def device(self):
        """Where the buffer lives (a ``Device``).

        >>> Tensor([1.0]).device
        device(type='cpu')
        """
        return self._device

    @property
    def is_leaf(self):
        """True for tensors not produced by a recorded op (their ``.grad`` fills).

        >>> x = tensor([1.0], requires_grad=True)
        >>> x.is_leaf, (x * 2).is_leaf
        (True, False)
        """
        return self.grad_fn is None

    @property
    def requires_grad(self):
        """Whether operations on this tensor are recorded for backward.

        >>> x = Tensor([1.0]); x.requires_grad = True
        >>> x.requires_grad, (x * 2).requires_grad
        (True, True)
        """
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad=True):
        """Start (or stop) recording operations on this leaf, PyTorch style.

        >>> Tensor([1.0]).requires_grad_().requires_grad
        True
        """
        if self.grad_fn is not None and not requires_grad:
            raise RuntimeError("requires_grad can only be turned off on a leaf tensor; "
                               "use detach() for a non-leaf")
        if requires_grad and not dt.differentiable(self.dtype):
            raise RuntimeError(f"only floating point and complex tensors can require gradients, got dtype "
                               f"{self.dtype} (cast first, e.g. t.astype(eagerad.float32))")
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad(self):
        """The gradient accumulated by backward (None until then; leaves only).

        >>> x = tensor([3.0], requires_grad=True)
        >>> (x * x).sum().backward(); x.grad
        tensor([6.])
        """
        grad = self._grad
        if grad is None and self.grad_fn is not None and not self._retains_grad:
            warnings.warn(_NON_LEAF_GRAD, UserWarning, stacklevel=2)
        return grad

    @grad.setter
    def grad(self, value):
        if value is not None and not isinstance(value, Tensor):
            raise TypeError(f"grad must be a Tensor or None, got {type(value).__name__}")
        if value is not None:
            if value.shape != self.shape:
                raise ValueError(f"grad of shape {value.shape} does not match tensor shape "
                                 f"{self.shape}")
            if value.dtype != self.dtype:
                raise TypeError(f"grad of dtype {value.dtype} does not match tensor dtype "
                                f"{self.dtype}; cast it with .astype({self.dtype})")
            if value._device != self._device:
                raise RuntimeError(f"grad on device {value._device} does not match tensor device "
                                   f"{self._device}; move it with .to('{self._device}')")
        self._grad = value

    @property
    def data(self):
        """A tensor sharing this buffer but outside the graph (PyTorch's ``.data``).

        >>> x = tensor([1.0], requires_grad=True)
        >>> x.data.requires_grad
        False
        """
        return Tensor._make(self._data, self._device, face=self._face)

    @data.setter
    def data(self, value):
        self.set_data(value)

    def set_data(self, value):
        """Replace the buffer (shape may change), keeping graph fields (MindSpore's ``set_data``).

        A Parameter takes a copy in its own dtype (an optimizer later writes into it,
        which must not reach the tensor passed); a plain tensor shares ``value``'s
        buffer, as PyTorch's ``t.data = value`` does.

        >>> Tensor([1.0]).set_data(Tensor([1.0, 2.0])).shape
        (2,)
        """
        if not isinstance(value, Tensor):
            value = Tensor(value, dtype=self.dtype)
        if value._device != self._device:
            raise RuntimeError(f"set_data: new data is on {value._device}, tensor is on {self._device}")
        data = value._data
        if isinstance(self, Parameter):
            B = backend.get(self._device.type)
            data = B.copy(data) if value.dtype == self.dtype else B.astype(data, self.dtype)
        self._data = data
        self._version[0] += 1
        return self

    @property
    def version(self):
        """How many in-place changes this buffer has seen (checked by backward).

        >>> Tensor([1.0]).set_data(Tensor([2.0])).version
        1
        """
        return self._version[0]

    # --------------------------------------------------------- conversion
    def numpy(self):
        """The values as a numpy array (shares memory on the CPU).

        >>> Tensor([1.0, 2.0]).numpy()
        array([1., 2.], dtype=float32)
        """
        if self._device.type == "cpu":
            return self._data
        return backend.get(self._device.type).to_numpy(self._data)

    asnumpy = numpy

    @property
    def __cuda_array_interface__(self):
        """The GPU buffer's CUDA array interface, for zero-copy exchange with CuPy or
        PyTorch (``cupy.asarray(t)``); CPU tensors do not offer it."""
        if self._device.type != "cuda":
            raise AttributeError("__cuda_array_interface__ is offered by CUDA tensors only; "
                                 f"this tensor is on {self._device}")
        return self._data.__cuda_array_interface__

    def __array__(self, dtype=None, copy=None):
        # np.array(t) asks for a copy (copy=True) and must get one: writing into it must
        # not change the tensor; np.asarray(t) shares the buffer on the CPU, as numpy()
        arr = self.numpy()
        if dtype is not None and arr.dtype != dtype:
            return arr.astype(dtype)
        return arr.copy() if copy else arr

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """numpy ufuncs on tensors (``np.exp(t)``, ``np.add(t, 1)``, ``array * t``) run
        the eagerad op of the same meaning, so the result is a Tensor in the graph;
        others compute in numpy, refused (TypeError) when a tensor requires grad."""
        if method == "__call__" and not kwargs:
            fn = _op(_UFUNC_OPS.get(ufunc.__name__, ufunc.__name__))
            if fn is not None:
                return fn(*inputs)
        name = f"numpy.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
        return _numpy_fallback(name, getattr(ufunc, method), inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        """numpy functions with an eagerad equivalent (``np.sum``, ``np.mean``,
        ``np.concatenate``, ...) run it and keep the graph; others compute in numpy,
        refused (TypeError) when a tensor requires grad and the result carries values."""
        route = _NUMPY_FUNCTIONS.get(func.__name__)
        if route is not None and getattr(np, func.__name__, None) is func:
            result = route(args, kwargs)
            if result is not NotImplemented:
                return result
        return _numpy_fallback(f"numpy.{func.__name__}", func, args, kwargs)

    def item(self):
        """The single value as a Python number.

        >>> Tensor([2.5]).item()
        2.5
        """
        if self.size != 1:
            raise ValueError(f"item() needs a tensor with one element, got shape {self.shape}")
        return self.numpy().reshape(()).item()

    def tolist(self):
        """The values as (nested) Python lists.

        >>> Tensor([[1, 2], [3, 4]]).tolist()
        [[1, 2], [3, 4]]
        """
        return self.numpy().tolist()

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self.dtype.kind not in "iu":
            raise TypeError(f"only integer tensors can be used as an index, got {self.dtype}")
        return int(self.item())

    def __bool__(self):
        if self.size != 1:
            raise ValueError(f"the truth value of a tensor of shape {self.shape} is ambiguous; "
                             "use .any() or .all()")
        return bool(self.item())

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self.shape[0]))

    __hash__ = object.__hash__

    def detach(self):
        """The same values, cut from the graph (shares memory and version counter).

        >>> x = tensor([1.0], requires_grad=True)
        >>> (x * 2).detach().requires_grad
        False
        """
        return Tensor._make(self._data, self._device, version=self._version, face=self._face)

    def __getstate__(self):
        # values on the host plus the user's attributes (a Parameter's name); graph fields
        # and view bookkeeping are not part of a copy, as in PyTorch
        extra = {k: v for k, v in self.__dict__.items() if not k.startswith("_")}
        return {"data": np.array(self.numpy()), "device": str(self._device),
                "requires_grad": self._requires_grad, "attributes": extra,
                "face": self._face.name}

    def __setstate__(self, state):
        dev = as_device(state.get("device", "cpu"))
        data = state["data"]
        self._init(backend.get(dev.type).from_numpy(data) if dev.type != "cpu" else data, dev,
                   state["requires_grad"], face=FACES.get(state.get("face"), NEUTRAL))
        self.__dict__.update(state.get("attributes", {}))

    def __format__(self, spec):
        """Format a 0-d tensor like the Python number it holds (``f"{loss:.4f}"``).

        >>> f"{Tensor(2.0) / 3:.4f}", f"{Tensor([1, 2])}"
        ('0.6667', '[1 2]')
        """
        if not spec:
            return str(self)
        if self.ndim != 0:
            raise TypeError(f"format spec {spec!r} needs a 0-d tensor, got shape {self.shape}; "
                            "use t.item() for a one-element tensor or format t.tolist()")
        return format(self.item(), spec)

    # ------------------------------------------------------ exchange (dlpack)
    def __dlpack__(self, *args, **kwargs):
        """DLPack capsule of this tensor's memory (zero-copy; CPU tensors), so that
        ``np.from_dlpack(t)`` and other libraries share the buffer."""
        if self._device.type != "cpu":
            raise BufferError(f"__dlpack__ is offered for CPU tensors; this tensor is on "
                              f"{self._device} (use __cuda_array_interface__)")
        return self._data.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        """``(device type, index)`` in DLPack's codes: CPU is 1, CUDA 2."""
        if self._device.type == "cpu":
            return (1, 0)
        return (2, self._device.index or 0)

    # ------------------------------------------------------------- printing
    def __str__(self):
        """As the tensor's face prints it (PyTorch's face prints its repr; MindSpore's
        the values as numpy does)."""
        return (FORCED[0] or self._face).str(self)

    def __repr__(self):
        return (FORCED[0] or self._face).repr(self)


# ------------------------------------------------------------ numpy protocols

# numpy ufunc names whose eagerad op is named differently (others: the same name)
_UFUNC_OPS = {"subtract": "sub", "multiply": "mul", "true_divide": "div", "divide": "div",
              "negative": "neg", "power": "pow", "absolute": "abs", "fabs": "abs",
              "mod": "remainder", "arcsin": "asin", "arccos": "acos", "arctan": "atan",
              "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh", "invert": "bitwise_not"}


def _op(name):
    """``eagerad.ops.<name>`` when it is an op function (looked up at call time: the
    ops layer sits above this module and registers itself in ``eagerad._upcalls``)."""
    fn = getattr(_upcalls.get("ops"), name, None)
    return fn if callable(fn) and not isinstance(fn, type) else None


def _route(op_name, params, rename=None):
    """A numpy function's call ``(args, kwargs)`` mapped onto ``eagerad.ops.<op_name>``:
    ``params`` are numpy's parameter names the op accepts (positionally or by keyword,
    ``rename`` gives the op's keyword); anything else is left to numpy."""
    rename = rename or {}

    def call(args, kwargs):
        if len(args) > len(params) or not set(kwargs) <= set(params):
            return NotImplemented
        named = dict(zip(params, args), **kwargs)
        fn = _op(op_name)
        head = named.pop(params[0])
        return fn(head, **{rename.get(k, k): v for k, v in named.items()})
    return call


def _positional(op_name, params):
    """Like ``_route`` for ops that take these parameters positionally."""
    def call(args, kwargs):
        if len(args) > len(params) or not set(kwargs) <= set(params):
            return NotImplemented
        named = dict(zip(params, args), **kwargs)
        if any(p not in named for p in params):
            return NotImplemented
        return _op(op_name)(*(named[p] for p in params))
    return call


def _dot(args, kwargs):
    a, b = args if len(args) == 2 and not kwargs else (None, None)
    if a is None or np.ndim(a) > 2 or np.ndim(b) > 2 or not np.ndim(a) or not np.ndim(b):
        return NotImplemented          # numpy's dot differs from matmul there
    return _op("matmul")(a, b)


_REDUCE = ("a", "axis", "keepdims")
_NUMPY_FUNCTIONS = {
    "sum": _route("sum", _REDUCE), "mean": _route("mean", _REDUCE),
    "max": _route("max", _REDUCE), "amax": _route("max", _REDUCE),
    "min": _route("min", _REDUCE), "amin": _route("min", _REDUCE),
    "reshape": _positional("reshape", ("a", "shape")),
    "transpose": _route("transpose", ("a", "axes")),
    "squeeze": _route("squeeze", ("a", "axis")),
    "expand_dims": _positional("expand_dims", ("a", "axis")),
    "broadcast_to": _positional("broadcast_to", ("array", "shape")),
    "swapaxes": _positional("swapaxes", ("a", "axis1", "axis2")),
    "concatenate": _route("concat", ("arrays", "axis")),
    "stack": _route("stack", ("arrays", "axis")),
    "where": _positional("where", ("condition", "x", "y")),
    "clip": _positional("clip_by_value", ("a", "a_min", "a_max")),
    "dot": _dot,
}


def _to_numpy(obj):
    if isinstance(obj, Tensor):
        return obj.numpy()
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_numpy(o) for o in obj)
    if isinstance(obj, dict):
        return {k: _to_numpy(v) for k, v in obj.items()}
    return obj


def _requires_grad(obj):
    if isinstance(obj, Tensor):
        return obj._requires_grad
    if isinstance(obj, (list, tuple)):
        return any(_requires_grad(o) for o in obj)
    if isinstance(obj, dict):
        return any(_requires_grad(o) for o in obj.values())
    return False


def _carries_values(result):
    """Whether a numpy result holds floating values a gradient would flow through
    (shapes, indices, booleans and counts do not)."""
    if isinstance(result, (tuple, list)):
        return any(_carries_values(r) for r in result)
    if isinstance(result, (np.ndarray, np.generic)):
        return result.dtype.kind in "fc"
    return isinstance(result, (float, complex))


def _numpy_fallback(name, fn, args, kwargs):
    """Run ``fn`` on the tensors' numpy arrays; refused when that would silently drop the
    graph of a tensor that requires grad."""
    result = fn(*_to_numpy(args), **_to_numpy(kwargs))
    if _carries_values(result) and (_requires_grad(args) or _requires_grad(kwargs)):
        raise TypeError(f"{name} has no eagerad equivalent: on a tensor that requires grad it "
                        "would return values cut from the graph. Use the eagerad op (see "
                        "eagerad.ops) or call it on t.detach() / t.numpy() explicitly.")
    for out in kwargs.get("out", None) or ():
        if isinstance(out, Tensor):
            out._version[0] += 1
    return result


def _caster(dtype, name):
    def cast(self):
        return self.astype(dtype)
    cast.__name__ = name
    cast.__doc__ = (f"This tensor as {dtype} (PyTorch's ``{name}()``; differentiable for floats).\n\n"
                    f"    >>> Tensor([1.5]).{name}().dtype\n    dtype('{dtype}')\n")
    return cast


for _name, _dtype in (("long", dt.int64), ("int", dt.int32), ("half", dt.float16),
                      ("float", dt.float32), ("double", dt.float64), ("bool", dt.bool_),
                      ("cfloat", dt.complex64), ("cdouble", dt.complex128)):
    setattr(Tensor, _name, _caster(_dtype, _name))
del _name, _dtype


class Parameter(Tensor):
    """A trainable tensor with a name (MindSpore's ``Parameter``; also PyTorch's
    ``nn.Parameter(data, requires_grad=True)``, which prints PyTorch's way when ``data``
    was made with PyTorch's spelling).

    Unlike the PyTorch face it accepts integer data: MindSpore differentiates
    integer parameters as real-valued and returns integer gradients.

    >>> w = Parameter(Tensor([1.0]), name='w')
    >>> w.name, w.requires_grad
    ('w', True)
    """

    def __init__(self, default_input=None, name=None, requires_grad=True, dtype=None):
        if isinstance(name, bool):      # PyTorch's Parameter(data, requires_grad)
            name, requires_grad = None, name
        if default_input is None:       # PyTorch's Parameter(): an empty tensor
            default_input = np.zeros(0, dt.default_float)
        data = _infer_array(default_input, dtype)     # a copy: the parameter owns its buffer
        dev = default_input._device if isinstance(default_input, Tensor) else as_device(None)
        self._init(backend.get(dev.type).from_numpy(data) if dev.type != "cpu" else data, dev,
                   bool(requires_grad))
        if isinstance(default_input, Tensor):
            self._face = default_input._face    # nn.Parameter(torch.randn(2)) is a PyTorch tensor
        self.name = name

    def requires_grad_(self, requires_grad=True):
        """Turn training of this parameter on or off (allowed for any dtype).

        >>> Parameter(Tensor([1]), name='n').requires_grad_(False).requires_grad
        False
        """
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def data(self):
        """Refused on the engine's own parameters: MindSpore's ``p.data`` is the parameter
        itself (in the graph), PyTorch's a tensor outside the graph; the faces' parameters
        answer their framework's way.

        >>> Parameter(Tensor([1.0]), name='w').data
        Traceback (most recent call last):
        ...
        TypeError: p.data means different things in PyTorch (a tensor outside the graph) and MindSpore (the parameter itself); ...
        """
        raise ambiguous("p.data", "a tensor outside the graph", "the parameter itself",
                        "use p.detach() or p itself")

    @data.setter
    def data(self, value):
        raise ambiguous("p.data = value", "takes value's buffer and dtype",
                        "keeps the parameter's dtype", "use p.set_data(value)")


def _neutral_repr(t):
    """The engine's own printing: PyTorch's layout with eagerad's dtype names."""
    text = torch_repr(t, module="eagerad")
    return "Parameter containing:\n" + text if isinstance(t, Parameter) else text


NEUTRAL = Face("eagerad", repr=_neutral_repr, str=lambda t: str(t.numpy()))   # str: as numpy (and JAX)


class ParameterTuple(tuple):
    """An immutable tuple of Parameters (MindSpore's ``ParameterTuple``).

    >>> pt = ParameterTuple([Parameter(Tensor([1.0]), name='a')])
    >>> len(pt), pt[0].name
    (1, 'a')
    """

    def __new__(cls, params):
        params = tuple(params)
        for i, p in enumerate(params):
            if not isinstance(p, Tensor):
                raise TypeError(f"ParameterTuple element {i} is {type(p).__name__}, not a Parameter")
        return tuple.__new__(cls, params)


# --------------------------------------------------------------- creation


def tensor(data, dtype=None, requires_grad=False, device=None):
    """PyTorch-style constructor.

    >>> tensor(1.0, requires_grad=True).requires_grad
    True
    """
    t = Tensor(data, dtype, device=device)
    if requires_grad:
        t.requires_grad_(True)
    return t


_numpy_versions = {}   # id(root ndarray) -> (weakref to it, version counter) for from_numpy


def _root(arr):
    while isinstance(arr.base, np.ndarray):
        arr = arr.base
    return arr


def _version_of(arr):
    """The version counter shared by every ``from_numpy`` tensor over ``arr``'s memory."""
    root = _root(arr)
    key = id(root)
    entry = _numpy_versions.get(key)
    if entry is None or entry[0]() is not root:
        ref = weakref.ref(root, lambda _, key=key: _numpy_versions.pop(key, None))
        entry = _numpy_versions[key] = (ref, [0])
    return entry[1]


def from_numpy(array):
    """A CPU tensor sharing ``array``'s memory (no copy), PyTorch's ``torch.from_numpy``.

    Writes through either side are seen by the other; tensors made from the same
    array share one version counter, so an in-place change through one of them
    is caught by a backward that saved another.  ``tensor``/``Tensor`` copy instead.

    >>> a = np.zeros(2, np.float32); t = from_numpy(a); a[0] = 5.0
    >>> t.tolist()
    [5.0, 0.0]
    """
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy expects a numpy.ndarray, got {type(array).__name__}")
    if array.dtype not in dt.SUPPORTED:
        raise TypeError(f"from_numpy: dtype {array.dtype} cannot be shared without a copy; "
                        f"supported: {', '.join(str(d) for d in dt.SUPPORTED)} (native byte "
                        "order); use eagerad.tensor(array) to copy and convert")
    return Tensor._make(array, CPU, version=_version_of(array))


def from_dlpack(obj):
    """A tensor sharing the memory of any DLPack producer (numpy arrays, other
    libraries' CPU tensors): zero-copy, like ``torch.from_dlpack``.

    >>> a = np.arange(3.0); t = from_dlpack(a); a[1] = 7.0
    >>> t.tolist()
    [0.0, 7.0, 2.0]
    """
    if isinstance(obj, Tensor):
        return obj.detach()
    if not hasattr(obj, "__dlpack__"):
        raise TypeError(f"from_dlpack expects an object with __dlpack__, got {type(obj).__name__}")
    device_type = obj.__dlpack_device__()[0] if hasattr(obj, "__dlpack_device__") else 1
    if device_type != 1:
        raise BufferError(f"from_dlpack: only CPU (DLPack device 1) producers are supported, got "
                          f"device type {device_type}; exchange GPU buffers through "
                          "__cuda_array_interface__")
    return from_numpy(np.from_dlpack(obj))


def _fill_dtype(value):
    """Default dtype of ``full``'s fill value: float32 for any float (Python or numpy),
    int64 for integers, bool for bools; a tensor's own dtype."""
    if isinstance(value, Tensor):
        return value.dtype
    kind = np.asarray(value).dtype.kind
    if kind not in "biufc":
        raise TypeError(f"fill value must be a number, got {type(value).__name__}")
    return dt.default_float if kind == "f" else dt.bool_ if kind == "b" else \
        dt.complex_of(dt.default_float) if kind == "c" else dt.int64


def _filled(shape, value, dtype, device, requires_grad):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    try:
        shape = tuple(operator.index(s) for s in shape)
    except TypeError:
        raise TypeError(f"size must be integers, as in (2, 3) or 2, 3; got {shape!r} "
                        f"({', '.join(type(s).__name__ for s in shape)})") from None
    if any(s < 0 for s in shape):
        raise ValueError(f"shape {shape} has a negative dimension")
    dev = as_device(device)
    dtype = dt.as_dtype(dtype) or _fill_dtype(value)
    if isinstance(value, Tensor):
        if value.size != 1:
            raise ValueError(f"fill value must be a number or a one-element tensor, got shape "
                             f"{value.shape}")
        value = value.item()
    t = Tensor._make(backend.get(dev.type).full(shape, value, dtype), dev)
    return t.requires_grad_(True) if requires_grad else t


def zeros(*shape, dtype=None, device=None, requires_grad=False):
    """Zeros of ``shape`` (float32 by default). ``zeros(2, 3)`` or ``zeros((2, 3))``.

    >>> zeros(2, 3).shape, zeros((2,)).tolist()
    ((2, 3), [0.0, 0.0])
    """
    return _filled(shape, 0.0, dtype, device, requires_grad)


def ones(*shape, dtype=None, device=None, requires_grad=False):
    """Ones of ``shape`` (float32 by default).

    >>> ones(2)
    tensor([1., 1.])
    """
    return _filled(shape, 1.0, dtype, device, requires_grad)


def full(shape, fill_value, dtype=None, device=None, requires_grad=False):
    """``shape`` filled with ``fill_value``.

    >>> full((2,), 7).tolist()
    [7, 7]
    """
    return _filled(tuple(shape) if not isinstance(shape, int) else (shape,), fill_value, dtype,
                   device, requires_grad)


def _like(t, value, dtype, device, requires_grad):
    if device is None and not requires_grad:
        # t's shape and device need no checks (backward's seed, a missing output gradient)
        dtype = t.dtype if dtype is None else dt.as_dtype(dtype)
        return Tensor._make(backend.get(t._device.type).full(tuple(t.shape), value, dtype),
                            t._device, face=t._face)
    out = _filled(tuple(t.shape), value, dtype or t.dtype, device or t.device, requires_grad)
    out._face = t._face
    return out


def zeros_like(t, dtype=None, device=None, requires_grad=False):
    """Zeros with ``t``'s shape and dtype (override with ``dtype``/``device``).

    >>> zeros_like(Tensor([[1, 2]])).tolist()
    [[0, 0]]
    """
    return _like(t, 0, dtype, device, requires_grad)


def ones_like(t, dtype=None, device=None, requires_grad=False):
    """Ones with ``t``'s shape and dtype.

    >>> ones_like(Tensor([1.0, 2.0])).tolist()
    [1.0, 1.0]
    """
    return _like(t, 1, dtype, device, requires_grad)


def full_like(t, fill_value, dtype=None, device=None, requires_grad=False):
    """``fill_value`` with ``t``'s shape and dtype.

    >>> full_like(Tensor([1, 2]), 5).tolist()
    [5, 5]
    """
    return _like(t, fill_value, dtype, device, requires_grad)


def _constant_bound(name, value, what):
    """A Python number for a creator's bound: a tensor that requires grad cannot be one."""
    if isinstance(value, Tensor):
        if value._requires_grad:
            raise TypeError(f"{what}: {name} is a tensor that requires grad, but the result is "
                            f"not differentiable in it; pass {name}.item() (or use linspace, "
                            "which is differentiable in start and end)")
        return value.item()
    return value


def arange(start, stop=None, step=1, dtype=None, device=None, requires_grad=False, *, end=None):
    """Evenly spaced values in ``[start, stop)``, like numpy (``end=`` is PyTorch's name).

    >>> arange(3).tolist(), arange(0.0, 1.0, 0.5).tolist()
    ([0, 1, 2], [0.0, 0.5])
    """
    if end is not None:
        if stop is not None:
            raise TypeError("arange: pass stop or end, not both")
        stop = end
    start, stop, step = (_constant_bound(n, v, "arange") for n, v in
                         (("start", start), ("stop", stop), ("step", step)))
    if stop is None:
        start, stop = 0, start
    for name, value in (("start", start), ("end", stop), ("step", step)):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise TypeError(f"arange: {name} must be a number, got {value!r} ({type(value).__name__})")
        if not np.isfinite(value):
            raise ValueError(f"arange: {name} must be finite, got {value}")
    if step == 0:
        raise ValueError("arange: step must be nonzero, got 0")
    is_float = any(isinstance(v, (float, np.floating)) for v in (start, stop, step))
    dtype = dt.as_dtype(dtype) or (dt.default_float if is_float else dt.int64)
    dev = as_device(device)
    t = Tensor._make(backend.get(dev.type).arange(start, stop, step, dtype), dev)
    return t.requires_grad_(True) if requires_grad else t


def linspace(start, stop=None, num=None, dtype=None, device=None, requires_grad=False, *,
             end=None, steps=None):
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive (float32 by default).

    PyTorch's ``linspace(start, end, steps)`` keywords work too.  Tensor bounds
    that require grad stay in the graph (``start + (stop - start) * k / (num - 1)``,
    as JAX and HIPS autograd differentiate it).

    >>> linspace(0, 1, 3).tolist(), linspace(0, end=2, steps=3).tolist()
    ([0.0, 0.5, 1.0], [0.0, 1.0, 2.0])
    """
    stop = _one_of("linspace", "stop", stop, "end", end)
    num = _one_of("linspace", "num", num, "steps", steps)
    if stop is None or num is None:
        raise TypeError("linspace needs start, stop (end) and num (steps)")
    num = int(num)
    if num < 0:
        raise ValueError(f"linspace: num must be non-negative, got {num}")
    bounds = [b for b in (start, stop) if isinstance(b, Tensor)]
    if not any(b._requires_grad for b in bounds):
        start, stop = (b.item() if isinstance(b, Tensor) else b for b in (start, stop))
        return tensor(np.linspace(start, stop, num, dtype=dt.as_dtype(dtype) or dt.default_float),
                      requires_grad=requires_grad, device=device)
    for b in bounds:
        if b.ndim != 0:
            raise ValueError(f"linspace: tensor bounds must be 0-d, got shape {b.shape}")
    dtype = dt.as_dtype(dtype) or bounds[0].dtype
    frac = np.linspace(0.0, 1.0, num, dtype=dtype)
    if num == 1:
        frac[:] = 0.0
    frac = Tensor(frac, device=bounds[0].device)
    return start + (stop - start) * frac


def _one_of(where, name, value, alias, alias_value):
    if alias_value is None:
        return value
    if value is not None:
        raise TypeError(f"{where}: pass {name} or {alias}, not both")
    return alias_value


def eye(n, m=None, dtype=None, device=None, requires_grad=False):
    """The identity matrix (``n`` x ``m``), float32 by default.

    >>> eye(2).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return tensor(np.eye(n, m, dtype=dt.as_dtype(dtype) or dt.default_float),
                  requires_grad=requires_grad, device=device)


def _random(kind, shape, dtype, device, requires_grad, *params):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    dev = as_device(device)
    data = getattr(backend.get(dev.type), kind)(tuple(shape), *params, dt.as_dtype(dtype) or dt.default_float)
    t = Tensor._make(data, dev)
    return t.requires_grad_(True) if requires_grad else t


def rand(*shape, dtype=None, device=None, requires_grad=False):
    """Uniform samples in [0, 1), seeded by ``eagerad.set_seed``.

    >>> set_seed(0); a = rand(2); set_seed(0)
    >>> np.array_equal(a.numpy(), rand(2).numpy()), a.shape
    (True, (2,))
    """
    return _random("uniform", shape, dtype, device, requires_grad, 0.0, 1.0)


def randn(*shape, dtype=None, device=None, requires_grad=False):
    """Standard normal samples, seeded by ``eagerad.set_seed``.

    >>> set_seed(1); a = randn(2, 3); set_seed(1)
    >>> np.array_equal(a.numpy(), randn(2, 3).numpy()), a.dtype
    (True, dtype('float32'))
    """
    return _random("normal", shape, dtype, device, requires_grad, 0.0, 1.0)


def set_seed(seed):
    """Seed every backend's random generator (initialisers, dropout, rand/randn);
    MindSpore's spelling, so MindSpore's printing face becomes current (see
    ``eagerad.printing``; ``manual_seed`` is PyTorch's).

    >>> set_seed(0)
    """
    _seed_all(seed)


def manual_seed(seed):
    """PyTorch's ``torch.manual_seed``: seeds as ``set_seed`` does and makes PyTorch's
    printing face current.

    >>> manual_seed(0); tensor([0.5])
    tensor([0.5000])
    >>> set_seed(0)
    """
    _seed_all(seed)


def _seed_all(seed):
    np.random.seed(seed)
    for dev_type in backend._loaded:
        backend.get(dev_type).seed(seed)
    backend.get("cpu").seed(seed)


def rand_like(t, dtype=None, device=None, requires_grad=False):
    """Uniform samples in [0, 1) with ``t``'s shape, dtype and device.

    >>> rand_like(zeros(2, 3, dtype=dt.float64)).dtype
    dtype('float64')
    """
    return rand(t.shape, dtype=dtype or t.dtype, device=device or t.device,
                requires_grad=requires_grad)


def randn_like(t, dtype=None, device=None, requires_grad=False):
    """Standard normal samples with ``t``'s shape, dtype and device.

    >>> randn_like(zeros(4)).shape
    (4,)
    """
    return randn(t.shape, dtype=dtype or t.dtype, device=device or t.device,
                 requires_grad=requires_grad)


def randint(low=0, high=None, size=None, dtype=None, device=None, requires_grad=False):
    """Integers drawn uniformly from ``[low, high)``: ``randint(high, size)`` or
    ``randint(low, high, size)`` as PyTorch (int64 by default).

    >>> set_seed(0); r = randint(3, 7, (1000,))
    >>> int(r.min()), int(r.max()), r.dtype, randint(5, (2,)).shape
    (3, 6, dtype('int64'), (2,))
    """
    if size is None:                      # randint(high, size)
        if high is None:
            raise TypeError("randint needs high and size, e.g. randint(10, (3,)) or "
                            "randint(0, 10, (3,))")
        low, high, size = 0, low, high
    if high is None:
        raise TypeError("randint: high is missing")
    if int(high) <= int(low):
        raise ValueError(f"randint: high ({high}) must be greater than low ({low})")
    size = (size,) if isinstance(size, (int, np.integer)) else tuple(size)
    dtype = dt.as_dtype(dtype) or dt.int64
    dev = as_device(device)
    t = Tensor._make(backend.get(dev.type).integers(size, int(low), int(high), dtype), dev)
    return t.requires_grad_(True) if requires_grad else t


def randint_like(t, low=0, high=None, dtype=None, device=None, requires_grad=False):
    """``randint`` with ``t``'s shape, dtype and device (``randint_like(t, high)`` or
    ``randint_like(t, low, high)``).

    >>> randint_like(zeros(3, dtype=dt.int32), 10).dtype
    dtype('int32')
    """
    if high is None:
        low, high = 0, low
    return randint(low, high, t.shape, dtype=dtype or t.dtype, device=device or t.device,
                   requires_grad=requires_grad)


def empty(*shape, dtype=None, device=None, requires_grad=False):
    """PyTorch's ``empty``: a tensor of ``shape`` whose values are to be overwritten
    (eagerad fills it with zeros, so nothing undefined is ever read).

    >>> empty(2, 3).shape
    (2, 3)
    """
    return _filled(shape, 0.0, dtype, device, requires_grad)


def empty_like(t, dtype=None, device=None, requires_grad=False):
    """``empty`` with ``t``'s shape, dtype and device.

    >>> empty_like(ones(2, dtype=dt.int64)).tolist()
    [0, 0]
    """
    return _like(t, 0, dtype, device, requires_grad)


def as_tensor(data, dtype=None, device=None):
    """PyTorch's ``as_tensor``: shares memory when it can (a tensor of the same dtype and
    device is returned as is; a CPU numpy array of a supported dtype is wrapped without
    copying, like ``from_numpy``), otherwise copies.

    >>> a = np.zeros(2); t = as_tensor(a); a[0] = 3.0
    >>> t.tolist(), as_tensor(t) is t, as_tensor([1, 2], dtype=dt.float32).dtype
    ([3.0, 0.0], True, dtype('float32'))
    """
    dtype = dt.as_dtype(dtype)
    if isinstance(data, Tensor):
        if dtype is not None and dtype != data.dtype:
            data = data.astype(dtype)
        return data if device is None or as_device(device) == data.device else data.to(device)
    if isinstance(data, np.ndarray) and data.dtype in dt.SUPPORTED and \
            (dtype is None or dtype == data.dtype) and as_device(device).type == "cpu":
        return from_numpy(data)
    return tensor(data, dtype, device=device)
