"""Grad mode: whether new operations are recorded.  Thread-local, so two threads
training two models never see each other's ``no_grad``.

>>> import eagerad
>>> with eagerad.no_grad():
...     eagerad.is_grad_enabled()
False
"""
import functools
import threading


class _State(threading.local):
    enabled = True


state = _State()


def is_grad_enabled():
    """True when operations on tensors that require grad are being recorded.

    >>> with no_grad():
    ...     print(is_grad_enabled())
    False
    >>> is_grad_enabled()
    True
    """
    return state.enabled


class _Mode:
    """Base of the grad-mode switches: a context manager and a decorator."""
    target = True

    def __enter__(self):
        self._prev = state.enabled
        state.enabled = self.target

    def __exit__(self, *exc):
        state.enabled = self._prev
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(*self._args()):
                return fn(*args, **kwargs)
        return wrapper

    def _args(self):
        return ()


class no_grad(_Mode):
    """Run without recording (inference, optimizer updates).

    >>> @no_grad()
    ... def f(x): return x * 2
    """
    target = False


class enable_grad(_Mode):
    """Record again inside a ``no_grad`` block.

    >>> x = eagerad.tensor(1.0, requires_grad=True)
    >>> with no_grad():
    ...     with enable_grad():
    ...         print((x * 2).requires_grad)
    True
    """
    target = True


class set_grad_enabled(_Mode):
    """Switch recording on or off; works as a call, a context manager or a decorator.

    >>> set_grad_enabled(True)  # doctest: +ELLIPSIS
    <...set_grad_enabled object at ...>
    """

    def __init__(self, mode):
        self.target = bool(mode)
        self._prev = state.enabled
        state.enabled = self.target

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        state.enabled = self._prev
        return False

    def _args(self):
        return (self.target,)

    def __call__(self, fn):
        state.enabled = self._prev  # used as a decorator: undo the switch made by __init__
        return super().__call__(fn)
