"""``eagerad.jit``: trace a function once, fuse its elementwise chains, replay it after.

Opt-in only: nothing is traced or compiled unless a function is wrapped (importing this
package compiles nothing).  Also spelled MindSpore's ``jit``/``ms_function`` (the
MindSpore face re-exports ``jit`` and ``ms_function`` from here) and PyTorch's
``torch.compile``.

>>> import eagerad
>>> @eagerad.jit
... def f(x):
...     return (x.tanh() * x + (-x).exp()).sum()
>>> float(f(eagerad.zeros(3)))
3.0
"""
import sys

from .compiled import Compiled, optimized_module

DEFAULT_MIN_FUSE_SIZE = 1 << 15

# keywords of MindSpore's ``jit`` and PyTorch's ``torch.compile``: accepted, with no effect
_IGNORED = frozenset(("mode", "jit_config", "input_signature", "hash_args", "capture_mode",
                      "jit_level", "dynamic", "fullgraph", "backend", "options",
                      "compile_once", "exc_mode"))


def jit(fn=None, *, min_fuse_size=DEFAULT_MIN_FUSE_SIZE, **options):
    """Compile ``fn``: JAX's ``jit`` semantics on eagerad's eager ops.

    ``jit(fn)``, ``@jit`` and ``@jit(min_fuse_size=...)`` return a callable that, on its
    first call for each *guard key*, runs ``fn`` eagerly while recording every op it
    applies (that call's result is the eager one), then replays the recording on later
    calls with the same key.  The key: for every tensor in the arguments (nested tuples,
    lists and dicts) its shape, dtype, device and ``requires_grad``; Python numbers,
    strings, booleans and None in the arguments by value; grad mode; and when ``fn`` is a
    layer (``nn.Cell``/``nn.Module``) or a bound method of one, every sublayer's
    ``training`` flag and the identity, shape and dtype of its parameters and buffers.
    Arguments of other types (numpy arrays, objects), and layers with hooks, make each
    call run eagerly.

    Tensors the recording reads but did not make (parameters, tensors of enclosing
    scopes) are read by reference when replayed, so an optimizer's in-place updates are
    seen; rebinding a name to another tensor is not (call the function with it instead).
    Random ops draw anew at every call.  The recording keeps the grad mode of every op
    (``no_grad`` blocks inside ``fn`` stay so), and the replayed ops record the autograd
    graph as an eager call would, so ``backward``, ``grad`` and higher derivatives of the
    outputs work as usual.

    Python side effects (printing, appending to lists, counters, attribute writes, a
    layer's forward hooks) run only while tracing, as in ``jax.jit`` or MindSpore's graph
    mode, and Python values read from elsewhere (globals, layer attributes other than
    ``training``, a tensor created from numpy data) are baked into the trace.  When the trace
    cannot be replayed safely the key runs eagerly from then on (the reason is kept in
    ``compiled.fallbacks``): a tensor's value read on the host (``item``, ``bool``,
    ``float``, ``int``, ``tolist``, ``numpy``, printing, ``__index__``), a tensor changed
    in place, a tensor made outside the ops (``detach()``, ``.data``, a custom Function's
    output, a kernel called directly), the autograd engine or a tensor hook used inside
    ``fn``, an exception, or an output that is not a tensor or a tuple/list/dict of them.

    Chains of elementwise float ops (``neg exp log sin cos tanh sigmoid relu sqrt square
    reciprocal add sub mul div``; broadcasting allowed, one dtype, CPU) of at least
    ``min_size`` elements whose intermediate values nothing else uses, optionally ending
    in a full ``sum``, become one op: one generated Numba pass forward and one backward
    (recomputing the chain), cached on disk so another process compiles nothing.  Their
    higher-order derivatives are those of the original ops.  Smaller chains replay op by
    op (fusing pays for passes over memory, not for small tensors).

    >>> import eagerad
    >>> g = jit(lambda x, y: x * y + 1)
    >>> g(eagerad.ones(2), eagerad.ones(2) * 2).tolist()
    [3.0, 3.0]
    """
    bad = sorted(set(options) - _IGNORED)
    if bad:
        raise TypeError(f"jit() got unexpected keyword argument(s) {', '.join(map(repr, bad))}")
    if isinstance(min_fuse_size, bool) or not isinstance(min_fuse_size, int) or min_fuse_size < 1:
        raise ValueError(f"jit: min_fuse_size must be a positive int, got {min_fuse_size!r}")
    if fn is None:
        return lambda f: jit(f, min_fuse_size=min_fuse_size, **options)
    if not callable(fn):
        raise TypeError(f"jit: expected a function or a layer to compile, got "
                        f"{type(fn).__name__}")
    if isinstance(fn, Compiled):
        return fn
    return Compiled(fn, min_fuse_size)


ms_function = jit     # MindSpore 1.x's name


class _CallableModule(type(sys.modules[__name__])):
    """Importing this package makes ``eagerad.jit`` the package (Python binds a submodule
    to its parent's attribute); calling it is calling ``jit``, so ``eagerad.jit(fn)`` works
    before and after the import."""

    def __call__(self, fn=None, **kwargs):
        return jit(fn, **kwargs)


sys.modules[__name__].__class__ = _CallableModule

__all__ = ["jit", "ms_function", "Compiled", "optimized_module"]
