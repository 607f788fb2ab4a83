"""PyTorch's window functions (``hann_window``, ``hamming_window``, ``blackman_window``,
``bartlett_window``, ``kaiser_window``): ``periodic=True`` (the default, for spectral
analysis) computes ``window_length + 1`` points of the symmetric window and drops the last.

>>> import eagerad.torch as torch
>>> torch.hann_window(4), torch.hann_window(3, periodic=False)
(tensor([0.0000, 0.5000, 1.0000, 0.5000]), tensor([0., 1., 0.]))
"""
import numpy as np

from .. import dtype as dt
from ._creation import tensor


def _window(name, symmetric, params=()):
    """A ``torch.<name>_window`` from ``symmetric(m, *values)``: m float64 points; ``params``
    are the names of the window's own arguments (``alpha``, ``beta``)."""
    def window(window_length, periodic=True, *values, dtype=None, layout=None, device=None,
               requires_grad=False, pin_memory=False, **named):
        unknown = set(named) - set(params)
        if unknown or len(values) > len(params):
            raise TypeError(f"{name}_window: unexpected arguments {sorted(unknown) or values}; "
                            f"it takes window_length, periodic, {', '.join(params) or 'nothing more'}")
        given = dict(zip(params, values), **named)
        if isinstance(window_length, bool) or int(window_length) != window_length \
                or window_length < 0:
            raise ValueError(f"{name}_window: window_length must be a non-negative int, got "
                             f"{window_length!r}")
        dtype = dt.as_dtype(dtype) if dtype is not None else dt.get_default_dtype()
        if np.dtype(dtype).kind != "f":
            raise ValueError(f"{name}_window: dtype must be a floating point type, got {dtype}")
        n = int(window_length)
        if n <= 1:
            values = np.ones(n)
        else:
            values = symmetric(n + 1, **given)[:-1] if periodic else symmetric(n, **given)
        return tensor(values, dtype=dtype, device=device, requires_grad=requires_grad)
    window.__name__ = f"{name}_window"
    return window


def _cosine_sum(*coefficients):
    """``sum_k (-1)^k a_k cos(2 pi k n / (m - 1))``: the Hann/Hamming/Blackman family
    (Hamming's ``alpha``, ``beta`` replace the first two)."""
    def symmetric(m, alpha=coefficients[0], beta=coefficients[1]):
        a = (alpha, beta) + coefficients[2:]
        phase = 2 * np.pi * np.arange(m) / (m - 1)
        return sum((-1) ** k * c * np.cos(k * phase) for k, c in enumerate(a))
    return symmetric


hann_window = _window("hann", _cosine_sum(0.5, 0.5))
hann_window.__doc__ = """``torch.hann_window(window_length, periodic=True)``:
``0.5 - 0.5 cos(2 pi n / (N - 1))``.

    >>> import eagerad.torch as torch
    >>> torch.hann_window(2)
    tensor([0., 1.])
    """

hamming_window = _window("hamming", _cosine_sum(0.54, 0.46), ("alpha", "beta"))
hamming_window.__doc__ = """``torch.hamming_window(window_length, periodic=True, alpha=0.54,
beta=0.46)``: ``alpha - beta cos(2 pi n / (N - 1))``.

    >>> import eagerad.torch as torch
    >>> torch.hamming_window(3, False)
    tensor([0.0800, 1.0000, 0.0800])
    """

blackman_window = _window("blackman", _cosine_sum(0.42, 0.5, 0.08))
blackman_window.__doc__ = """``torch.blackman_window(window_length, periodic=True)``:
``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))``.

    >>> import eagerad.torch as torch
    >>> torch.blackman_window(5, False)[1:4]
    tensor([0.3400, 1.0000, 0.3400])
    """

bartlett_window = _window("bartlett", lambda m: 1 - np.abs(2 * np.arange(m) / (m - 1) - 1))
bartlett_window.__doc__ = """``torch.bartlett_window(window_length, periodic=True)``: the
triangle ``1 - |2n / (N - 1) - 1|``.

    >>> import eagerad.torch as torch
    >>> torch.bartlett_window(4)
    tensor([0.0000, 0.5000, 1.0000, 0.5000])
    """

kaiser_window = _window("kaiser", lambda m, beta=12.0: np.kaiser(m, beta), ("beta",))
kaiser_window.__doc__ = """``torch.kaiser_window(window_length, periodic=True, beta=12.0)``:
``I0(beta sqrt(1 - ((n - N/2) / (N/2))^2)) / I0(beta)``.

    >>> import eagerad.torch as torch
    >>> torch.kaiser_window(3, False, 0.0)
    tensor([1., 1., 1.])
    """

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window"]
