"""cpu backend: complex-number and Fourier-transform kernels (numpy's pocketfft and LAPACK).

Every name in ``__all__`` becomes a function of the backend module (``B.<name>``),
next to the core functions of ``backend/cpu/__init__.py``.  Results own their memory
(numpy's ``x.real`` is a view) and keep the input's precision (complex64 from
float32, complex128 from float64).

>>> complex_unary("conj", np.array([1 + 2j]))
array([1.-2.j])
"""
import numpy as np

__all__ = ["complex_unary", "complex_join", "complex_split", "fft_c2c", "fft_r2c", "fft_c2r",
           "eig"]

_COMPLEX = {np.dtype(np.float16): np.dtype(np.complex64),
            np.dtype(np.float32): np.dtype(np.complex64),
            np.dtype(np.float64): np.dtype(np.complex128)}


def _complex_of(dtype):
    return dtype if dtype.kind == "c" else _COMPLEX.get(dtype, np.dtype(np.complex128))


def _real_of(dtype):
    return np.dtype(np.float32) if dtype == np.complex64 else \
        np.dtype(np.float64) if dtype.kind == "c" else dtype


_UNARY = {"conj": np.conjugate, "real": np.real, "imag": np.imag, "angle": np.angle,
          "sgn": np.sign}


def complex_unary(op, x):
    """``op`` in conj/real/imag/angle/sgn (``x / |x|``, 0 at 0) of a complex (or real) array.

    >>> complex_unary("angle", np.array([1j]))
    array([1.57079633])
    """
    return np.array(_UNARY[op](x), copy=True)


def complex_join(re, im):
    """The complex array ``re + i im`` (broadcasting), exactly (no arithmetic on the parts).

    >>> complex_join(np.array([1.0]), np.array([np.inf]))
    array([1.+infj])
    """
    re, im = np.broadcast_arrays(re, im)
    out = np.empty(re.shape, _complex_of(np.result_type(re, im)))
    out.real, out.imag = re, im
    return out


def complex_split(x):
    """Real and imaginary parts as a trailing axis of size 2 (``view_as_real``'s values).

    >>> complex_split(np.array([1 + 2j]))
    array([[1., 2.]])
    """
    if x.dtype.kind != "c":
        return np.stack([x, np.zeros_like(x)], axis=-1)
    return np.stack([x.real, x.imag], axis=-1)


def fft_c2c(x, axes, forward, norm):
    """The complex DFT (``forward``) or its inverse over ``axes``, scaled by ``norm``.

    >>> fft_c2c(np.array([1.0, 0.0]), (0,), True, "backward")
    array([1.+0.j, 1.+0.j])
    """
    kind = _complex_of(x.dtype)
    if not axes:
        return x.astype(kind)
    out = (np.fft.fftn if forward else np.fft.ifftn)(x, axes=axes, norm=norm)
    return out.astype(kind, copy=False)


def fft_r2c(x, axes, norm):
    """The DFT of a real array over ``axes``, the last of them halved to ``n // 2 + 1``.

    >>> fft_r2c(np.array([1.0, 1.0, 1.0, 1.0]), (0,), "backward")
    array([4.+0.j, 0.+0.j, 0.+0.j])
    """
    return np.fft.rfftn(x, axes=axes, norm=norm).astype(_complex_of(x.dtype), copy=False)


def fft_c2r(x, axes, n, norm):
    """The inverse of ``fft_r2c``: a real array whose last transformed axis has ``n`` samples
    (``x`` holds ``n // 2 + 1`` there); the imaginary parts of the self-mirrored bins are
    ignored.

    >>> fft_c2r(np.array([4.0 + 0j, 0j, 0j]), (0,), 4, "backward")
    array([1., 1., 1., 1.])
    """
    sizes = [x.shape[a] for a in axes[:-1]] + [n]
    return np.fft.irfftn(x, s=sizes, axes=axes, norm=norm).astype(_real_of(x.dtype), copy=False)


def eig(a):
    """Eigenvalues and unit eigenvectors (complex) of a stack of square matrices (LAPACK geev).

    >>> eig(np.array([[2.0, 0.0], [0.0, 3.0]]))[0]
    array([2.+0.j, 3.+0.j])
    """
    kind = _complex_of(a.dtype)
    if a.shape[-1] == 0:
        return np.zeros(a.shape[:-1], kind), np.zeros(a.shape, kind)
    w, v = np.linalg.eig(a)
    return w.astype(kind), v.astype(kind)
