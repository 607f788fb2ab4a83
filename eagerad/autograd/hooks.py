"""Tensor hooks: ``register_hook`` (inspect or replace the gradient flowing into a
tensor) and ``retain_grad`` (keep a non-leaf's gradient in ``.grad``).

A leaf keeps its hooks in ``Tensor._hooks``; a non-leaf's live on the node that
made it (``Node.pre_hooks[out_index]``), because gradients arrive at nodes, and
the engine runs them before the node's rule.  Both run on the gradient as a
Tensor, so with ``create_graph=True`` what a hook computes is recorded too.

>>> import eagerad
>>> x = eagerad.tensor([1.0, 2.0], requires_grad=True)
>>> h = x.register_hook(lambda g: g * 10)
>>> (x * x).sum().backward(); x.grad.tolist()
[20.0, 40.0]
>>> h.remove()
"""
import itertools
import weakref

from ..tensor import Tensor
from . import batching

_ids = itertools.count()


class RemovableHandle:
    """Returned by ``register_hook``; ``remove()`` unregisters the hook (twice is harmless).

    >>> x = eagerad.tensor(1.0, requires_grad=True)
    >>> with x.register_hook(lambda g: g * 10):
    ...     (x * 2).backward()
    >>> x.grad.item()
    20.0
    """
    __slots__ = ("_hooks", "_key")

    def __init__(self, hooks, key):
        self._hooks = weakref.ref(hooks)
        self._key = key

    def remove(self):
        """Unregister the hook; calling it again does nothing.

        >>> x = eagerad.tensor(1.0, requires_grad=True)
        >>> h = x.register_hook(lambda g: g * 10); h.remove(); h.remove()
        >>> (x * 2).backward(); x.grad.item()
        2.0
        """
        hooks = self._hooks()
        if hooks is not None:
            hooks.pop(self._key, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
        return False


class _HookDict(dict):
    """A dict that a handle can reference weakly (plain dicts cannot)."""
    __slots__ = ("__weakref__",)


def _checked(fn, tensor):
    """Wrap ``fn`` so a replacement gradient of the wrong kind fails at the hook."""
    shape, name = tensor.shape, getattr(fn, "__name__", repr(fn))

    def hook(grad):
        new = fn(grad)
        if new is not None and (not isinstance(new, Tensor) or new.shape != shape):
            got = f"shape {new.shape}" if isinstance(new, Tensor) else type(new).__name__
            raise RuntimeError(f"hook {name} returned {got}; a hook must return None or a "
                               f"Tensor of the gradient's shape {shape}")
        return new
    return hook


def register_hook(self, hook):
    """Call ``hook(grad)`` whenever a gradient for this tensor is computed; a
    non-None return value replaces the gradient.  Returns a handle with ``remove()``.

    >>> y = eagerad.tensor(3.0, requires_grad=True) * 2
    >>> seen = []; _ = y.register_hook(seen.append); y.backward(); seen[0].item()
    1.0
    """
    if not callable(hook):
        raise TypeError(f"register_hook: hook must be callable, got {type(hook).__name__}")
    if type(self) is batching.BatchedTensor:   # inside vmap: the graph is on the physical tensor
        return register_hook(batching.unwrap(self)[0], hook)
    if not self._requires_grad:
        raise RuntimeError("register_hook: cannot register a hook on a tensor that does not "
                           "require grad")
    node = self.grad_fn
    if node is None:
        if self._hooks is None:
            self._hooks = _HookDict()
        hooks = self._hooks
    else:
        if node.pre_hooks is None:
            node.pre_hooks = {}
        hooks = node.pre_hooks.setdefault(self._out_index, _HookDict())
    key = next(_ids)
    hooks[key] = _checked(hook, self)
    return RemovableHandle(hooks, key)


def retain_grad(self):
    """Keep this non-leaf tensor's gradient in ``.grad`` after backward (a no-op on leaves).

    >>> y = eagerad.tensor(3.0, requires_grad=True) * 2
    >>> y.retain_grad(); (y * y).backward(); y.grad.item()
    12.0
    """
    if not self._requires_grad:
        raise RuntimeError("retain_grad: cannot retain the gradient of a tensor that does not "
                           "require grad")
    node = self.grad_fn
    if node is None or self._retains_grad:
        return
    if node.retained is None:
        node.retained = {}
    node.retained[self._out_index] = weakref.ref(self)
    self._retains_grad = True


def _retains_grad(self):
    """True after ``retain_grad()`` on a non-leaf."""
    return self._retains_grad


def install():
    """Give Tensor its hook methods (``register_hook``, ``retain_grad``, ``retains_grad``).

    >>> install(); eagerad.tensor(1.0, requires_grad=True).retains_grad
    False
    """
    Tensor.register_hook = register_hook
    Tensor.retain_grad = retain_grad
    Tensor.retains_grad = property(_retains_grad)
