"""``torch.fft``: PyTorch's discrete Fourier transforms over ``eagerad.ops.fft``.

The arguments mean what they mean in PyTorch: ``n``/``s`` pad or trim the signal along
``dim`` before transforming (``-1`` in ``s`` keeps that size), ``dim=None`` with ``s``
given means the last ``len(s)`` dimensions, ``norm`` is ``'backward'`` (default),
``'ortho'`` or ``'forward'``.  Real input to a complex transform is promoted (integers to
the default float first); ``irfft``/``hfft`` default to the even length ``2 * (m - 1)``.

>>> import eagerad.torch as torch
>>> torch.fft.fft(torch.tensor([1.0, 0.0, 0.0, 0.0]))
tensor([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j])
>>> torch.fft.irfft(torch.fft.rfft(torch.tensor([1.0, 2.0, 3.0])), 3)
tensor([1.0000, 2.0000, 3.0000])
"""
import numpy as _np

from .. import dtype as _dt
from ..ops import arrangement as _arrangement
from ..ops import fft as _core
from ..ops import shape as _shape
from ..ops.complex_ops import conj as _conj, view_as_real as _view_as_real
from ..tensor import Tensor as _Tensor
from ._creation import tensor as _tensor

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
           "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq",
           "rfftfreq", "fftshift", "ifftshift"]


# ----------------------------------------------------------------------------- arguments

def _input(x, name):
    if not isinstance(x, _Tensor):
        raise TypeError(f"torch.fft.{name}: input must be a Tensor, got {type(x).__name__}")
    if x.ndim == 0:
        raise ValueError(f"torch.fft.{name}: input must have at least one dimension, got a "
                         "0-d tensor")
    return x


def _as_complex(x):
    if x.dtype.kind == "c":
        return x
    return x.astype(_dt.complex_of(x.dtype if x.dtype.kind == "f" else _dt.default_float))


def _as_real(x, name):
    if x.dtype.kind == "c":
        raise TypeError(f"torch.fft.{name} expects a real input tensor, got dtype {x.dtype}")
    return x if x.dtype.kind == "f" else x.astype(_dt.default_float)


def _dims_and_sizes(x, s, dim, name):
    """PyTorch's reading of ``s`` and ``dim``: the transformed dims (non-negative, no
    repeats) and the signal size along each (``None``/-1: the input's)."""
    if dim is not None:
        dims = [dim] if isinstance(dim, int) else list(dim)
        dims = [_shape.normalize_axis(d, x.ndim)[0] for d in dims]
        if len(set(dims)) != len(dims):
            raise ValueError(f"torch.fft.{name}: dim {tuple(dim)} repeats a dimension")
        if s is not None and len(s) != len(dims):
            raise ValueError(f"torch.fft.{name}: s {tuple(s)} and dim {tuple(dim)} must have the "
                             "same length")
    elif s is not None:
        if len(s) > x.ndim:
            raise ValueError(f"torch.fft.{name}: s {tuple(s)} has more entries than the input "
                             f"has dimensions ({x.ndim})")
        dims = list(range(x.ndim - len(s), x.ndim))
    else:
        dims = list(range(x.ndim))
    sizes = [x.shape[d] if s is None or s[i] == -1 else int(s[i]) for i, d in enumerate(dims)]
    for n in sizes:
        if n < 1:
            raise ValueError(f"torch.fft.{name}: invalid signal size {n} (must be >= 1)")
    return tuple(dims), sizes


def _one_dim(n, dim):
    return (None if n is None else (n,)), (dim,)


def _resized(x, dims, sizes):
    for d, n in zip(dims, sizes):
        x = _core.resize(x, d, n)
    return x


# ----------------------------------------------------------------------------- transforms

def _c2c(input, s, dim, norm, forward, name):
    x = _as_complex(_input(input, name))
    dims, sizes = _dims_and_sizes(x, s, dim, name)
    return _core.c2c(_resized(x, dims, sizes), axes=dims, forward=forward,
                     norm=_core.norm_mode(norm, f"torch.fft.{name}"))


def _r2c(input, s, dim, norm, name):
    x = _as_real(_input(input, name), name)
    dims, sizes = _dims_and_sizes(x, s, dim, name)
    if not dims:
        raise ValueError(f"torch.fft.{name}: needs at least one dimension to transform")
    return _core.r2c(_resized(x, dims, sizes), axes=dims,
                     norm=_core.norm_mode(norm, f"torch.fft.{name}"))


def _c2r(input, s, dim, norm, name):
    x = _as_complex(_input(input, name))
    given = s is not None and s[-1] != -1
    dims, sizes = _dims_and_sizes(x, s, dim, name)
    if not dims:
        raise ValueError(f"torch.fft.{name}: needs at least one dimension to transform")
    n = sizes[-1] if given else 2 * (x.shape[dims[-1]] - 1)
    if n < 1:
        raise ValueError(f"torch.fft.{name}: invalid output size {n} along dim {dims[-1]} "
                         f"(input size {x.shape[dims[-1]]}); give n or s")
    x = _resized(x, dims, sizes[:-1] + [n // 2 + 1])
    return _core.c2r(x, axes=dims, n=n, norm=_core.norm_mode(norm, f"torch.fft.{name}"))


def _dual(norm, name):
    return _core.DUAL[_core.norm_mode(norm, f"torch.fft.{name}")]


def fft(input, n=None, dim=-1, norm=None):
    """The 1-D discrete Fourier transform along ``dim`` (``n`` pads or trims first).

    >>> import eagerad.torch as torch
    >>> torch.fft.fft(torch.tensor([0.0, 1.0, 0.0, 0.0]), norm="ortho").tolist()
    [(0.5+0j), -0.5j, (-0.5+0j), 0.5j]
    """
    return _c2c(input, *_one_dim(n, dim), norm, True, "fft")


def ifft(input, n=None, dim=-1, norm=None):
    """The 1-D inverse discrete Fourier transform along ``dim``.

    >>> import eagerad.torch as torch
    >>> torch.fft.ifft(torch.tensor([4.0, 0.0, 0.0, 0.0])).tolist()
    [(1+0j), (1+0j), (1+0j), (1+0j)]
    """
    return _c2c(input, *_one_dim(n, dim), norm, False, "ifft")


def fft2(input, s=None, dim=(-2, -1), norm=None):
    """The 2-D discrete Fourier transform over ``dim``.

    >>> import eagerad.torch as torch
    >>> torch.fft.fft2(torch.ones(2, 2)).tolist()
    [[(4+0j), 0j], [0j, 0j]]
    """
    return _c2c(input, s, dim, norm, True, "fft2")


def ifft2(input, s=None, dim=(-2, -1), norm=None):
    """The 2-D inverse discrete Fourier transform over ``dim``.

    >>> import eagerad.torch as torch
    >>> torch.fft.ifft2(torch.tensor([[4.0, 0.0], [0.0, 0.0]])).tolist()
    [[(1+0j), (1+0j)], [(1+0j), (1+0j)]]
    """
    return _c2c(input, s, dim, norm, False, "ifft2")


def fftn(input, s=None, dim=None, norm=None):
    """The N-D discrete Fourier transform over ``dim`` (every dimension by default).

    >>> import eagerad.torch as torch
    >>> torch.fft.fftn(torch.ones(2, 1, 2)).abs().sum().item()
    4.0
    """
    return _c2c(input, s, dim, norm, True, "fftn")


def ifftn(input, s=None, dim=None, norm=None):
    """The N-D inverse discrete Fourier transform over ``dim``.

    >>> import eagerad.torch as torch
    >>> torch.fft.ifftn(torch.fft.fftn(torch.tensor([[1.0, 2.0]]))).real.tolist()
    [[1.0, 2.0]]
    """
    return _c2c(input, s, dim, norm, False, "ifftn")


def rfft(input, n=None, dim=-1, norm=None):
    """The Fourier transform of a real signal: the ``n // 2 + 1`` non-negative frequencies.

    >>> import eagerad.torch as torch
    >>> torch.fft.rfft(torch.tensor([1.0, 1.0, 1.0, 1.0])).tolist()
    [(4+0j), 0j, 0j]
    """
    return _r2c(input, *_one_dim(n, dim), norm, "rfft")


def rfft2(input, s=None, dim=(-2, -1), norm=None):
    """``rfftn`` over two dimensions.

    >>> import eagerad.torch as torch
    >>> torch.fft.rfft2(torch.ones(2, 4)).shape
    torch.Size([2, 3])
    """
    return _r2c(input, s, dim, norm, "rfft2")


def rfftn(input, s=None, dim=None, norm=None):
    """The N-D transform of a real signal, halved along the last of ``dim``.

    >>> import eagerad.torch as torch
    >>> torch.fft.rfftn(torch.ones(2, 3, 4)).shape
    torch.Size([2, 3, 3])
    """
    return _r2c(input, s, dim, norm, "rfftn")


def irfft(input, n=None, dim=-1, norm=None):
    """The inverse of ``rfft``: a real signal of length ``n`` (default ``2 * (m - 1)``)
    from its non-negative frequencies.

    >>> import eagerad.torch as torch
    >>> torch.fft.irfft(torch.tensor([4.0, 0.0, 0.0])).tolist()
    [1.0, 1.0, 1.0, 1.0]
    """
    return _c2r(input, *_one_dim(n, dim), norm, "irfft")


def irfft2(input, s=None, dim=(-2, -1), norm=None):
    """``irfftn`` over two dimensions.

    >>> import eagerad.torch as torch
    >>> torch.fft.irfft2(torch.fft.rfft2(torch.ones(2, 4))).tolist()
    [[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]]
    """
    return _c2r(input, s, dim, norm, "irfft2")


def irfftn(input, s=None, dim=None, norm=None):
    """The inverse of ``rfftn``: a real signal from the half spectrum of its last dim.

    >>> import eagerad.torch as torch
    >>> torch.fft.irfftn(torch.ones(2, 3)).shape
    torch.Size([2, 4])
    """
    return _c2r(input, s, dim, norm, "irfftn")


def hfft(input, n=None, dim=-1, norm=None):
    """The transform of a Hermitian-symmetric signal given by its first half: real, of
    length ``n`` (default ``2 * (m - 1)``); ``irfft`` of the conjugate, scaled the other way.

    >>> import eagerad.torch as torch
    >>> torch.fft.hfft(torch.tensor([1.0, 0.0, 0.0])).tolist()
    [1.0, 1.0, 1.0, 1.0]
    """
    return _c2r(_conj(_as_complex(_input(input, "hfft"))), *_one_dim(n, dim),
                _dual(norm, "hfft"), "hfft")


def hfft2(input, s=None, dim=(-2, -1), norm=None):
    """``hfftn`` over two dimensions.

    >>> import eagerad.torch as torch
    >>> torch.fft.hfft2(torch.ones(2, 3)).shape
    torch.Size([2, 4])
    """
    return _c2r(_conj(_as_complex(_input(input, "hfft2"))), s, dim, _dual(norm, "hfft2"),
                "hfft2")


def hfftn(input, s=None, dim=None, norm=None):
    """The N-D ``hfft``: real output, the last of ``dim`` given by its first half.

    >>> import eagerad.torch as torch
    >>> torch.fft.hfftn(torch.ones(2, 3)).shape
    torch.Size([2, 4])
    """
    return _c2r(_conj(_as_complex(_input(input, "hfftn"))), s, dim, _dual(norm, "hfftn"),
                "hfftn")


def ihfft(input, n=None, dim=-1, norm=None):
    """The inverse of ``hfft``: the first half of the spectrum of a real signal,
    conjugated and scaled as an inverse.

    >>> import eagerad.torch as torch
    >>> torch.fft.ihfft(torch.tensor([1.0, 2.0, 1.0, 0.0])).tolist()
    [(1-0j), 0.5j, -0j]
    """
    return _conj(_r2c(input, *_one_dim(n, dim), _dual(norm, "ihfft"), "ihfft"))


def ihfft2(input, s=None, dim=(-2, -1), norm=None):
    """``ihfftn`` over two dimensions.

    >>> import eagerad.torch as torch
    >>> torch.fft.ihfft2(torch.ones(2, 4)).shape
    torch.Size([2, 3])
    """
    return _conj(_r2c(input, s, dim, _dual(norm, "ihfft2"), "ihfft2"))


def ihfftn(input, s=None, dim=None, norm=None):
    """The N-D ``ihfft``: halved along the last of ``dim``.

    >>> import eagerad.torch as torch
    >>> torch.fft.ihfftn(torch.ones(2, 4)).shape
    torch.Size([2, 3])
    """
    return _conj(_r2c(input, s, dim, _dual(norm, "ihfftn"), "ihfftn"))


# ----------------------------------------------------------------------------- helpers

def _frequencies(values, dtype, device, requires_grad):
    dtype = _dt.as_dtype(dtype) or _dt.default_float
    if dtype.kind != "f":
        raise TypeError(f"torch.fft frequencies need a floating dtype, got {dtype}")
    return _tensor(values.astype(dtype), dtype=dtype, device=device, requires_grad=requires_grad)


def fftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False, **unused):
    """The sample frequencies of an ``n``-point ``fft`` with spacing ``d``.

    >>> import eagerad.torch as torch
    >>> torch.fft.fftfreq(4).tolist()
    [0.0, 0.25, -0.5, -0.25]
    """
    return _frequencies(_np.fft.fftfreq(int(n), d), dtype, device, requires_grad)


def rfftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False, **unused):
    """The sample frequencies of an ``n``-point ``rfft`` with spacing ``d``.

    >>> import eagerad.torch as torch
    >>> torch.fft.rfftfreq(4).tolist()
    [0.0, 0.25, 0.5]
    """
    return _frequencies(_np.fft.rfftfreq(int(n), d), dtype, device, requires_grad)


def _shifted(input, dim, sign):
    dims = list(range(input.ndim)) if dim is None else \
        [dim] if isinstance(dim, int) else list(dim)
    if not dims:
        return input
    dims = [_shape.normalize_axis(d, input.ndim)[0] for d in dims]
    return _arrangement.roll(input, tuple(sign * (input.shape[d] // 2) for d in dims), tuple(dims))


def fftshift(input, dim=None):
    """The zero frequency moved to the centre: a roll by ``n // 2`` along each of ``dim``.

    >>> import eagerad.torch as torch
    >>> torch.fft.fftshift(torch.fft.fftfreq(4)).tolist()
    [-0.5, -0.25, 0.0, 0.25]
    """
    return _shifted(input, dim, 1)


def ifftshift(input, dim=None):
    """The inverse of ``fftshift`` (a roll by ``-(n // 2)``).

    >>> import eagerad.torch as torch
    >>> torch.fft.ifftshift(torch.fft.fftshift(torch.arange(5))).tolist()
    [0, 1, 2, 3, 4]
    """
    return _shifted(input, dim, -1)


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None):
    """``torch.stft`` (and ``Tensor.stft``): frames of ``n_fft`` samples every
    ``hop_length`` (default ``n_fft // 4``), times ``window`` (``win_length`` samples,
    centred in ``n_fft``; default all ones), transformed; ``(..., n_fft // 2 + 1, frames)``
    for real input unless ``onesided=False``.  ``return_complex`` must be given, as in
    PyTorch; ``False`` returns ``view_as_real`` of the result.

    >>> import eagerad.torch as torch
    >>> torch.stft(torch.ones(16), 8, return_complex=True).shape
    torch.Size([5, 9])
    """
    x = _input(input, "stft")
    if return_complex is None:
        raise RuntimeError("stft requires the return_complex parameter be given for real "
                           "inputs; return_complex=True is recommended (False gives "
                           "view_as_real of the result)")
    if x.ndim not in (1, 2):
        raise ValueError(f"stft: expected a 1-D or 2-D input, got shape {tuple(x.shape)}")
    hop = n_fft // 4 if hop_length is None else int(hop_length)
    win_length = n_fft if win_length is None else int(win_length)
    if not 0 < win_length <= n_fft or hop < 1:
        raise ValueError(f"stft: need 0 < win_length <= n_fft and hop_length > 0, got "
                         f"n_fft={n_fft}, win_length={win_length}, hop_length={hop}")
    if window is None and win_length < n_fft:
        window = _tensor(_np.ones(win_length, _dt.real_of(x.dtype) if x.dtype.kind in "fc"
                                  else _dt.default_float))
    if window is not None:
        if tuple(window.shape) != (win_length,):
            raise ValueError(f"stft: window must have shape ({win_length},), got "
                             f"{tuple(window.shape)}")
        left = (n_fft - win_length) // 2          # centred in the frame, zeros around it
        window = _arrangement.pad(window, (left, n_fft - win_length - left))
    complex_input = x.dtype.kind == "c" or (window is not None and window.dtype.kind == "c")
    if onesided is None:
        onesided = not complex_input
    elif onesided and complex_input:
        raise RuntimeError("stft: onesided=True needs a real input and a real window")
    if not complex_input and x.dtype.kind != "f":
        x = x.astype(_dt.default_float)
    if not onesided and x.dtype.kind != "c":
        x = _as_complex(x)
    out = _core.stft(x, n_fft, hop, window, center, pad_mode, normalized, onesided)
    return out if return_complex else _view_as_real(out)


from ._out import honour_out as _honour_out  # noqa: E402
_honour_out(globals())      # last: out= is written, not ignored (torch/_out.py)
