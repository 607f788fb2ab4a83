"""Discrete Fourier transforms: three ops (complex-to-complex, real-to-half-complex and
back) and the signal resizing every public transform does first.

Each op transforms the given ``axes`` of an array whose sizes are already the signal's
(callers pad or trim with ``resize``) and scales by ``norm`` as numpy and PyTorch do:
``'backward'`` (1 forward, 1/n inverse), ``'ortho'`` (1/sqrt(n) both ways) or
``'forward'`` (1/n forward, 1 inverse).  The vjp of a transform is the transform the
other way with the dual scaling (``F^H``): ``fft``'s is ``ifft`` times ``n``.  The
one-sided transforms follow PyTorch for the Hermitian half: ``rfft``'s vjp zero-pads the
half spectrum and keeps the real part of the inverse, ``irfft``'s doubles the bins whose
mirror image the half spectrum leaves out.  The jvps are the transforms themselves (they
are linear).  Kernels: the backends' ``spectral`` family (``B.fft_c2c``, ...).

>>> import eagerad
>>> x = eagerad.tensor([1.0, 0.0, 0.0, 0.0], dtype=eagerad.float64)
>>> c2c(x.astype(eagerad.complex128), axes=(0,), forward=True, norm="backward").tolist()
[(1+0j), (1+0j), (1+0j), (1+0j)]
"""
import numpy as np

from .. import dtype as dt
from . import math as _math
from .complex_ops import _defop, real
from .registry import Case, U

NORMS = ("backward", "ortho", "forward")
DUAL = {"backward": "forward", "ortho": "ortho", "forward": "backward"}


def norm_mode(norm, name):
    """``norm`` checked (None is ``'backward'``), naming the function on a bad value.

    >>> norm_mode(None, "fft"), norm_mode("ortho", "fft")
    ('backward', 'ortho')
    """
    if norm is None:
        return "backward"
    if norm not in NORMS:
        raise ValueError(f"{name}: norm must be one of {NORMS} or None, got {norm!r}")
    return norm


def _c2c_vjp(g, ans, x, axes, forward, norm):
    return c2c(g, axes=axes, forward=not forward, norm=DUAL[norm])


def _r2c_vjp(g, ans, x, axes, norm):
    """The adjoint of (real signal -> first n//2+1 bins): the bins left out get zero
    gradient, so the half spectrum is zero-padded to n, inverted and its real part kept."""
    full = resize(g, axes[-1], x.shape[axes[-1]])
    return real(c2c(full, axes=axes, forward=False, norm=DUAL[norm]))


def _hermitian_weights(n, m, axis, ndim, dtype):
    """1 for the bins of a half spectrum (``m`` of them) that stand for themselves, 2 for
    the ``n - m`` bins after bin 0 that also stand for their left-out mirror images."""
    w = np.ones(m, dtype)
    w[1:1 + n - m] = 2
    return w.reshape((m,) + (1,) * (ndim - 1 - axis))


def _c2r_vjp(g, ans, x, axes, n, norm):
    spectrum = r2c(g, axes=axes, norm=DUAL[norm])
    m = spectrum.shape[axes[-1]]
    weights = _hermitian_weights(n, m, axes[-1], spectrum.ndim, dt.real_of(spectrum.dtype))
    return _math.mul(spectrum, _math.as_tensor(weights, spectrum))


def _cases(*more):
    return [Case(U(4, 3), **more[0]), Case(U(2, 3, 5), **more[1]), Case(U(0, 3), **more[2])]


c2c = _defop("fft_c2c", lambda B, x, axes, forward, norm: B.fft_c2c(x, axes, forward, norm),
             vjp=_c2c_vjp,
             jvp=lambda t, ans, x, axes, forward, norm: c2c(t, axes=axes, forward=forward,
                                                           norm=norm),
             saves=(), cases=_cases(dict(axes=(0,), forward=True, norm="backward"),
                                    dict(axes=(0, 2), forward=False, norm="ortho"),
                                    dict(axes=(1,), forward=True, norm="forward")))
r2c = _defop("fft_r2c", lambda B, x, axes, norm: B.fft_r2c(x, axes, norm), vjp=_r2c_vjp,
             jvp=lambda t, ans, x, axes, norm: r2c(t, axes=axes, norm=norm),
             saves=(), cases=_cases(dict(axes=(0,), norm="backward"),
                                    dict(axes=(0, 2), norm="ortho"),
                                    dict(axes=(1,), norm="forward")))
c2r = _defop("fft_c2r", lambda B, x, axes, n, norm: B.fft_c2r(x, axes, n, norm), vjp=_c2r_vjp,
             jvp=lambda t, ans, x, axes, n, norm: c2r(t, axes=axes, n=n, norm=norm),
             saves=(), cases=_cases(dict(axes=(0,), n=6, norm="backward"),
                                    dict(axes=(0, 2), n=9, norm="ortho"),
                                    dict(axes=(1,), n=5, norm="forward")))


def resize(x, axis, n):
    """``x`` trimmed or zero-padded at the end of ``axis`` to length ``n`` (what the FFTs'
    ``n``/``s`` arguments do), by differentiable slicing and concatenation.

    >>> import eagerad
    >>> resize(eagerad.tensor([1.0, 2.0, 3.0]), 0, 2).tolist()
    [1.0, 2.0]
    >>> resize(eagerad.tensor([1.0]), 0, 3).tolist()
    [1.0, 0.0, 0.0]
    """
    from .shape import concat
    have = x.shape[axis]
    if n == have:
        return x
    if n < have:
        return x[(slice(None),) * axis + (slice(0, n),)]
    pad_shape = tuple(x.shape[:axis]) + (n - have,) + tuple(x.shape[axis + 1:])
    zeros = _math.as_tensor(np.zeros(pad_shape, x.dtype), x)
    return concat([x, zeros], axis=axis)


def frames(x, length, hop):
    """Overlapping windows of the last axis: ``out[..., t, k] = x[..., t * hop + k]`` for
    every ``t`` whose window fits (a gather, differentiable in ``x``).

    >>> import eagerad
    >>> frames(eagerad.arange(5), 3, 2).tolist()
    [[0, 1, 2], [2, 3, 4]]
    """
    count = 1 + (x.shape[-1] - length) // hop
    if x.shape[-1] < length or count < 1:
        raise ValueError(f"frames: a window of {length} samples does not fit a signal of "
                         f"{x.shape[-1]}")
    index = np.arange(count)[:, None] * hop + np.arange(length)[None, :]
    return x[(Ellipsis, _math.as_tensor(index, x))]


def stft(x, n_fft, hop, window, center, pad_mode, normalized, onesided):
    """The short-time Fourier transform of ``x`` (``(L,)`` or ``(B, L)``): frames of
    ``n_fft`` samples every ``hop`` (the signal padded by ``n_fft // 2`` at both ends first
    when ``center``, by ``pad_mode``), times ``window`` (``n_fft`` samples or None),
    transformed; the result is ``(..., frequencies, frames)``, ``n_fft // 2 + 1``
    frequencies when ``onesided``, scaled by ``1/sqrt(n_fft)`` when ``normalized``.

    >>> import eagerad
    >>> stft(eagerad.ones(8), 4, 4, None, False, "reflect", False, True)[:, 0].tolist()
    [(4+0j), 0j, 0j]
    """
    from .arrangement import pad
    if center:                     # padded as a (1, channels, samples) signal, as PyTorch
        half = n_fft // 2
        lead = tuple(x.shape[:-1])
        x = pad(x.reshape((1,) * (3 - x.ndim) + tuple(x.shape)), (half, half), pad_mode)
        x = x.reshape(lead + (x.shape[-1],))
    pieces = frames(x, n_fft, hop)
    if window is not None:
        pieces = pieces * window
    norm = "ortho" if normalized else "backward"
    axis = pieces.ndim - 1
    if onesided:
        out = r2c(pieces, axes=(axis,), norm=norm)
    else:
        out = c2c(pieces, axes=(axis,), forward=True, norm=norm)
    return out.swapaxes(-1, -2)
