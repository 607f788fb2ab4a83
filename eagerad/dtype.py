"""dtypes and type promotion.

A dtype here *is* the numpy dtype object, so backends can use it directly; the
MindSpore-style names (``Float32``) exist only for printing.  Promotion follows
PyTorch/MindSpore rather than numpy where they differ: mixing an integer tensor
with a float tensor keeps the float's width (numpy would widen int32+float32 to
float64), and Python scalars are weak (``float32 * 2.0`` stays float32).

>>> import eagerad
>>> eagerad.float32
dtype('float32')
"""
import numpy as np

float16 = np.dtype(np.float16)
float32 = np.dtype(np.float32)
float64 = np.dtype(np.float64)
int8 = np.dtype(np.int8)
int16 = np.dtype(np.int16)
int32 = np.dtype(np.int32)
int64 = np.dtype(np.int64)
uint8 = np.dtype(np.uint8)
bool_ = np.dtype(np.bool_)
complex64 = np.dtype(np.complex64)
complex128 = np.dtype(np.complex128)

# MindSpore aliases (``mstype.float32`` and friends).
half, single, double = float16, float32, float64
float_, int_ = float32, int64
cfloat, cdouble = complex64, complex128

_MS_NAMES = {float16: "Float16", float32: "Float32", float64: "Float64", int8: "Int8",
             int16: "Int16", int32: "Int32", int64: "Int64", uint8: "UInt8", bool_: "Bool",
             complex64: "Complex64", complex128: "Complex128"}
SUPPORTED = tuple(_MS_NAMES)
default_float = float32


def ms_name(dtype):
    """MindSpore's printed name of a dtype (``Float32``).

    >>> ms_name(float32), ms_name(bool_)
    ('Float32', 'Bool')
    """
    return _MS_NAMES.get(dtype, str(dtype))


def is_floating(dtype):
    """True for float dtypes: only these can require gradients.

    >>> is_floating(float16), is_floating(int32)
    (True, False)
    """
    return dtype.kind == "f"


def is_complex(dtype):
    """True for complex64/complex128 (PyTorch's ``dtype.is_complex``).

    >>> is_complex(complex64), is_complex(float64)
    (True, False)
    """
    return dtype.kind == "c"


def differentiable(dtype):
    """True where a tensor may require gradients: floating and complex dtypes.

    >>> differentiable(complex128), differentiable(float16), differentiable(int64)
    (True, True, False)
    """
    return dtype.kind in "fc"


# complex dtype whose real and imaginary parts have this float dtype (float16: complex64,
# numpy having no complex32), and the float dtype of a complex one's parts
_COMPLEX_OF = {float16: complex64, float32: complex64, float64: complex128}
_REAL_OF = {complex64: float32, complex128: float64}


def complex_of(dtype):
    """The complex dtype holding pairs of ``dtype`` (integers: the default float's).

    >>> complex_of(float64), complex_of(int32), complex_of(complex64)
    (dtype('complex128'), dtype('complex64'), dtype('complex64'))
    """
    if dtype.kind == "c":
        return dtype
    return _COMPLEX_OF[dtype if dtype.kind == "f" else default_float]


def real_of(dtype):
    """The float dtype of a complex dtype's parts (a real dtype is returned as it is).

    >>> real_of(complex128), real_of(float32)
    (dtype('float64'), dtype('float32'))
    """
    return _REAL_OF.get(dtype, dtype)


def as_dtype(dtype, argname="dtype"):
    """Normalise anything numpy understands (``'float32'``, ``np.float32``) to a dtype.

    >>> as_dtype('float32'), as_dtype(np.int64), as_dtype(None)
    (dtype('float32'), dtype('int64'), None)
    """
    if dtype is None:
        return None
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{argname} must be an eagerad dtype such as eagerad.float32, got {dtype!r}") from None
    if dt not in _MS_NAMES:
        raise TypeError(f"{argname}={dt} is not supported; use one of "
                        f"{', '.join(str(d) for d in SUPPORTED)}")
    return dt


_promotion_cache = {}


def promote(a, b):
    """Result dtype of a binary op between two tensors' dtypes.

    >>> promote(int32, float16), promote(int32, int64)
    (dtype('float16'), dtype('int64'))
    >>> promote(float64, complex64), promote(int64, complex64)
    (dtype('complex128'), dtype('complex64'))
    """
    key = (a, b)
    res = _promotion_cache.get(key)
    if res is None:
        if a.kind == "c" or b.kind == "c":
            # complex wins; a float operand widens it (complex64 + float64 -> complex128)
            res = np.promote_types(*(d if d.kind in "fc" else d_c for d, d_c in
                                     ((a, complex64), (b, complex64))))
            res = res if res.kind == "c" else complex_of(res)
        elif a.kind == "f" and b.kind != "f":
            res = a
        elif b.kind == "f" and a.kind != "f":
            res = b
        else:
            res = np.promote_types(a, b)
        _promotion_cache[key] = res
    return res


def promote_scalar(dtype, scalar):
    """Result dtype of ``tensor op python_scalar``: the scalar is weak.

    >>> promote_scalar(float16, 2.0), promote_scalar(int32, 2.0), promote_scalar(int32, 2)
    (dtype('float16'), dtype('float32'), dtype('int32'))
    >>> promote_scalar(float64, 1j), promote_scalar(complex64, 2.0)
    (dtype('complex128'), dtype('complex64'))
    """
    if isinstance(scalar, bool):
        return dtype
    if isinstance(scalar, complex):
        return complex_of(dtype)
    if isinstance(scalar, float) and dtype.kind not in "fc":
        return default_float
    return dtype


def set_default_dtype(dtype):
    """PyTorch's ``set_default_dtype``: the float type Python floats and float creators
    (``tensor(1.0)``, ``zeros``, ``randn``, ``linspace``) get; float16/32/64 only.

    >>> set_default_dtype(float64); import eagerad; eagerad.tensor(1.5).dtype
    dtype('float64')
    >>> set_default_dtype(float32); get_default_dtype()
    dtype('float32')
    """
    global default_float
    d = as_dtype(dtype)
    if d is None or not is_floating(d):
        raise TypeError(f"set_default_dtype: only floating point dtypes are supported, got {dtype!r}")
    default_float = d


def get_default_dtype():
    """The float type set by ``set_default_dtype`` (float32 unless changed).

    >>> get_default_dtype()
    dtype('float32')
    """
    return default_float
