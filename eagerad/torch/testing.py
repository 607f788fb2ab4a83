"""``torch.testing``: ``assert_close`` with PyTorch's default tolerances per dtype.

>>> import eagerad.torch as torch
>>> torch.testing.assert_close(torch.tensor([1.0]), torch.tensor([1.0 + 1e-7]))
"""
import numpy as np

from ..tensor import Tensor

_DEFAULTS = {np.dtype(np.float16): (1e-3, 1e-5), np.dtype(np.float32): (1.3e-6, 1e-5),
             np.dtype(np.float64): (1e-7, 1e-7)}


def _host(x):
    return x.detach().numpy() if isinstance(x, Tensor) else np.asarray(x)


def assert_close(actual, expected, *, rtol=None, atol=None, equal_nan=False, check_dtype=True,
                 msg=None, **ignored):
    """Raise AssertionError unless ``|actual - expected| <= atol + rtol * |expected|``
    everywhere (shapes equal, dtypes too with ``check_dtype``); nested lists, tuples and
    dicts compare element by element.

    >>> import eagerad.torch as torch
    >>> torch.testing.assert_close(torch.tensor([1.0]), torch.tensor([1.1]))
    Traceback (most recent call last):
    AssertionError: Tensor-likes are not close! ...
    """
    if (rtol is None) != (atol is None):
        raise ValueError("assert_close: give both rtol and atol, or neither")
    if isinstance(expected, dict):
        if not isinstance(actual, dict) or actual.keys() != expected.keys():
            raise AssertionError(msg or f"keys differ: {sorted(actual)} vs {sorted(expected)}")
        for k in expected:
            assert_close(actual[k], expected[k], rtol=rtol, atol=atol, equal_nan=equal_nan,
                         check_dtype=check_dtype, msg=msg)
        return
    if isinstance(expected, (list, tuple)) and not isinstance(actual, Tensor):
        if len(actual) != len(expected):
            raise AssertionError(msg or f"lengths differ: {len(actual)} vs {len(expected)}")
        for a, e in zip(actual, expected):
            assert_close(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan,
                         check_dtype=check_dtype, msg=msg)
        return
    a, e = _host(actual), _host(expected)
    if a.shape != e.shape:
        raise AssertionError(msg or f"The values for attribute 'shape' do not match: {a.shape} "
                                    f"!= {e.shape}.")
    if check_dtype and a.dtype != e.dtype:
        raise AssertionError(msg or f"The values for attribute 'dtype' do not match: {a.dtype} "
                                    f"!= {e.dtype}.")
    if rtol is None:
        rtol, atol = _DEFAULTS.get(np.result_type(a, e), (0.0, 0.0))
    close = np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if not close.all():
        bad = int((~close).sum())
        diff = np.abs(a.astype(np.float64) - e.astype(np.float64))
        raise AssertionError(msg or f"Tensor-likes are not close!\n\nMismatched elements: {bad} / "
                                    f"{close.size}\nGreatest absolute difference: "
                                    f"{np.nanmax(diff)} (up to {atol} allowed)\nrtol={rtol}")
