"""Normalisation: batch_norm (training and eval, running statistics), layer_norm,
group_norm.

Each is a composition of differentiable ops (mean, subtraction, ``1/sqrt``),
exact and differentiable to any order, so the gradient through the batch
statistics is the true one (the terms through the mean and variance included).
``layer_norm`` of float32/float64 CPU tensors is one op (``_layer_norm_rows``): a Numba
pass per row forward and one backward, its rules written in these ops again (so
double backward and forward-mode work as for the composition).
Training normalises with the biased batch variance and, as PyTorch, updates
``running_var`` with the unbiased one; the update happens in place, outside the
graph, with PyTorch's convention ``running = (1 - momentum) * running +
momentum * batch`` (MindSpore's ``momentum`` is the weight of the old value
instead: pass ``1 - momentum``; ``nn.BatchNorm2d`` does that for MindSpore's
spelling).

>>> import eagerad
>>> x = eagerad.tensor([[1.0, 2.0], [3.0, 6.0]])
>>> batch_norm(x, None, None, training=True).tolist()
[[-1.0, -1.0], [1.0, 1.0]]
"""
import threading

from ..autograd.grad_mode import no_grad
from .convolution import _floats, _plain
from .math import as_tensor, sqrt
from .registry import Case, U, defop, export, loop_batch, move_batch
from .shape import broadcast_to


def _standardize(x, axes, eps):
    """``(x - mean) / sqrt(var + eps)`` over ``axes`` (biased variance), and the mean and
    variance (kept dimensions)."""
    mean = x.mean(axis=axes, keepdims=True)
    centered = x - mean
    var = (centered * centered).mean(axis=axes, keepdims=True)
    return centered / sqrt(var + eps), mean, var


def _affine(name, y, weight, bias, shape):
    """``y * weight + bias`` with both reshaped to ``shape`` (either may be None)."""
    for what, p in (("weight", weight), ("bias", bias)):
        if p is not None:
            p = as_tensor(p, y)
            if p.size != _prod(shape):
                raise ValueError(f"{name}: {what} of shape {p.shape} does not match the "
                                 f"{_prod(shape)} normalised features (shape {shape})")
            p = p.reshape(shape)
            y = y * p if what == "weight" else y + p
    return y


def _prod(shape):
    out = 1
    for s in shape:
        out *= s
    return out


def _update(running, batch, momentum, name, what):
    """``running = (1 - momentum) * running + momentum * batch`` in place."""
    if running.shape != batch.shape:
        raise ValueError(f"{name}: {what} of shape {running.shape} does not match the "
                         f"{batch.size} channels")
    with no_grad():
        running.set_data((running * (1.0 - momentum) + batch.astype(running.dtype) * momentum)
                         .detach())


@export
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Normalise each channel (axis 1) of ``input`` (N, C, ...) by the batch statistics
    (``training``) or by ``running_mean``/``running_var`` (eval), then scale by
    ``weight`` and shift by ``bias``; PyTorch's ``F.batch_norm``.  In training the
    running statistics, when given, are updated in place (unbiased variance).

    >>> rm, rv = eagerad.zeros(1), eagerad.ones(1)
    >>> _ = batch_norm(eagerad.tensor([[1.0], [3.0]]), rm, rv, training=True, momentum=0.5)
    >>> rm.tolist(), rv.tolist()
    ([1.0], [1.5])
    """
    x, = _floats("batch_norm", input)
    if x.ndim < 2:
        raise ValueError(f"batch_norm: input must be (N, C, ...), got shape {x.shape}")
    c = x.shape[1]
    shape = (1, c) + (1,) * (x.ndim - 2)
    axes = (0,) + tuple(range(2, x.ndim))
    if training:
        count = x.size // c if c else 0
        if count <= 1:
            raise ValueError(f"batch_norm: training needs more than one value per channel, got "
                             f"input of shape {x.shape}")
        y, mean, var = _standardize(x, axes, eps)
        if running_mean is not None:
            _update(running_mean, mean.reshape(c), momentum, "batch_norm", "running_mean")
        if running_var is not None:
            _update(running_var, var.reshape(c) * (count / (count - 1)), momentum, "batch_norm",
                    "running_var")
    else:
        if running_mean is None or running_var is None:
            raise ValueError("batch_norm: eval mode (training=False) needs running_mean and "
                             "running_var")
        for what, r in (("running_mean", running_mean), ("running_var", running_var)):
            if r.shape != (c,):
                raise ValueError(f"batch_norm: {what} of shape {r.shape} does not match the "
                                 f"{c} channels of input {x.shape}")
        mean = as_tensor(running_mean, x).astype(x.dtype).reshape(shape)
        var = as_tensor(running_var, x).astype(x.dtype).reshape(shape)
        y = (x - mean) / sqrt(var + eps)
    return _affine("batch_norm", y, weight, bias, shape)


@export
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalise over the last ``len(normalized_shape)`` axes, then scale and shift
    elementwise by ``weight``/``bias`` of ``normalized_shape``; PyTorch's ``F.layer_norm``.

    >>> layer_norm(eagerad.tensor([[1.0, 3.0]]), (2,)).tolist()
    [[-1.0, 1.0]]
    """
    x, = _floats("layer_norm", input)
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(shape)
    if k == 0 or x.shape[x.ndim - k:] != shape:
        raise ValueError(f"layer_norm: normalized_shape {shape} must be the trailing shape of "
                         f"input {x.shape}")
    d = _prod(shape)
    if _fusable(x, d, weight, bias):
        w = _flat(weight, x, d, 1.0)
        b = _flat(bias, x, d, 0.0)
        if k == 1:          # (..., d) as it is: no reshape nodes around the op
            return _layer_norm_rows(x, w, b, eps=float(eps))
        return _layer_norm_rows(x.reshape(x.size // d, d), w, b, eps=float(eps)).reshape(x.shape)
    y, _, _ = _standardize(x, tuple(range(x.ndim - k, x.ndim)), eps)
    return _affine("layer_norm", y, weight, bias, shape)


def _fusable(x, d, *params):
    """Whether ``layer_norm`` of ``x`` takes the one-op CPU path: float32/float64 tensors
    outside vmap, parameters (or None) of ``x``'s dtype with ``d`` elements."""
    if not (_plain(x) and x.device.type == "cpu" and x.size > 0):
        return False
    dtype = x.dtype
    if dtype.char not in "fd":          # float32 / float64 (``char``: no numpy property code)
        return False
    for p in params:
        if p is not None and not (_plain(p) and p.dtype == dtype and p.size == d):
            return False
    return True


def _flat(p, like, d, value):
    """A parameter as the op's (d,) vector: itself when it is one, a constant when None."""
    if p is None:
        from ..tensor import full
        return full((d,), value, dtype=like.dtype, device=like.device)
    return p if p.ndim == 1 else p.reshape(d)


def _row_terms(x, eps):
    """``xhat`` (each row, the last axis, of ``x`` standardised) and ``1 / sqrt(var +
    eps)`` per row."""
    xhat, _, var = _standardize(x, (x.ndim - 1,), eps)
    return xhat, 1.0 / sqrt(var + eps)


def _ln_grad_x(g, ans, x, w, b, eps):
    xhat, rstd = _row_terms(x, eps)
    gw = g * w
    return rstd * (gw - gw.mean(axis=-1, keepdims=True)
                   - xhat * (gw * xhat).mean(axis=-1, keepdims=True))


def _ln_jvp_x(t, ans, x, w, b, eps):
    xhat, rstd = _row_terms(x, eps)
    return w * rstd * (t - t.mean(axis=-1, keepdims=True)
                       - xhat * (t * xhat).mean(axis=-1, keepdims=True))


def _rows_sum(t):
    """``t`` summed over every axis but the last (the parameters' gradients)."""
    return t.sum(axis=tuple(range(t.ndim - 1))) if t.ndim > 1 else t


def _rows(a):
    """An array (..., d) as the kernels' (rows, d) matrix (a view where numpy can)."""
    return a if a.ndim == 2 else a.reshape(-1, a.shape[-1])


def _ln_forward(B, x, w, b, eps):
    out = B.layer_norm(_rows(x), w, b, eps)
    return out if x.ndim == 2 else out.reshape(x.shape)


def _ln_backward(B, g, x, w, eps):
    dx, dw, db = B.layer_norm_backward(_rows(g), _rows(x), w, eps)
    return (dx if x.ndim == 2 else dx.reshape(x.shape)), dw, db


def _ln_fast(k):
    """Array rule for argument ``k``: one ``B.layer_norm_backward`` call gives the three
    gradients; the other rules of the same node reuse it (held per thread, by the
    identities of ``g``, ``x`` and ``w`` and by ``eps``)."""
    def rule(B, g, ans, x, w, b, eps):
        held = _LAST.__dict__
        if held.get("g") is not g or held.get("x") is not x or held.get("w") is not w \
                or held.get("eps") != eps:      # (two nodes may share g and x, not all four)
            held.update(g=g, x=x, w=w, eps=eps, grads=_ln_backward(B, g, x, w, eps))
        grads = held["grads"]
        if k == 2:
            held.clear()
        return grads[k]
    return rule


_LAST = threading.local()


def _ln_batch(args, bdims, eps):
    """vmap: a batched ``x`` with shared ``w``/``b`` is more rows; anything else per sample."""
    size = next(a.shape[d] for a, d in zip(args, bdims) if d is not None)
    if bdims[1] is not None or bdims[2] is not None:
        return loop_batch(_layer_norm_rows, args, bdims, {"eps": eps}, size)
    return _layer_norm_rows(move_batch(args[0], bdims[0]), args[1], args[2], eps=eps), 0


# x (..., d), w and b (d,): each row (along the last axis) normalised, scaled and shifted
_layer_norm_rows = defop(
    "layer_norm_rows", _ln_forward,
    vjp=(_ln_grad_x,
         lambda g, ans, x, w, b, eps: _rows_sum(g * _row_terms(x, eps)[0]),
         lambda g, ans, x, w, b, eps: _rows_sum(g)),
    jvp=(_ln_jvp_x,
         lambda t, ans, x, w, b, eps: t * _row_terms(x, eps)[0],
         lambda t, ans, x, w, b, eps: broadcast_to(t, x.shape)),
    fast=tuple(_ln_fast(k) for k in range(3)), saves=(0, 1), batch=_ln_batch,
    cases=[Case(U(3, 4), U(4), U(4), eps=1e-5), Case(U(1, 5), U(5), U(5), eps=0.5),
           Case(U(2, 1), U(1), U(1), eps=1e-3), Case(U(2, 3, 4), U(4), U(4), eps=1e-5),
           Case(U(4), U(4), U(4), eps=1e-5)])


@export
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalise each group of ``C / num_groups`` channels of each sample over its
    channels and positions, then scale and shift per channel; PyTorch's ``F.group_norm``.

    >>> group_norm(eagerad.tensor([[[1.0], [3.0], [0.0], [4.0]]]), 2).reshape(-1).tolist()
    [-1.0, 1.0, -1.0, 1.0]
    """
    x, = _floats("group_norm", input)
    if x.ndim < 2 or not isinstance(num_groups, int) or num_groups <= 0 \
            or x.shape[1] % num_groups:
        raise ValueError(f"group_norm: num_groups={num_groups!r} must be a positive int dividing "
                         f"the channels (axis 1) of input {x.shape}")
    n, c = x.shape[:2]
    grouped = x.reshape((n, num_groups, -1))
    y, _, _ = _standardize(grouped, (2,), eps)
    return _affine("group_norm", y.reshape(x.shape), weight, bias, (1, c) + (1,) * (x.ndim - 2))



# ------------------------------------------------------------------ PyTorch's native_* entry points


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """``torch.native_batch_norm``: ``batch_norm`` plus the batch mean and inverse standard
    deviation per channel (empty in eval mode); as in PyTorch those two carry no gradient.

    >>> out, mean, invstd = native_batch_norm(eagerad.tensor([[1.0], [3.0]]), None, None,
    ...                                       None, None, True, 0.1, 0.0)
    >>> out.tolist(), mean.tolist(), invstd.tolist()
    ([[-1.0], [1.0]], [2.0], [1.0])
    """
    out = batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    if not training:
        empty = out.detach().reshape(-1)[:0]
        return out, empty, empty
    x = _floats("native_batch_norm", input)[0].detach()
    _, mean, var = _standardize(x, (0,) + tuple(range(2, x.ndim)), eps)
    c = x.shape[1]
    return out, mean.reshape(c), (1.0 / sqrt(var + eps)).reshape(c)


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """``torch.native_layer_norm``: ``layer_norm`` plus the mean and reciprocal standard
    deviation of each normalised row (trailing axes kept as 1; no gradient, as PyTorch).

    >>> [t.shape for t in native_layer_norm(eagerad.ones(2, 3), (3,), None, None, 1e-5)]
    [(2, 3), (2, 1), (2, 1)]
    """
    out = layer_norm(input, normalized_shape, weight, bias, eps)
    x = _floats("native_layer_norm", input)[0].detach()
    k = len(out.shape) - (len(tuple(normalized_shape)) if not isinstance(normalized_shape, int)
                          else 1)
    _, mean, var = _standardize(x, tuple(range(k, x.ndim)), eps)
    return out, mean, 1.0 / sqrt(var + eps)


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """``torch.native_group_norm(input, weight, bias, N, C, HxW, group, eps)``:
    ``group_norm`` plus each (sample, group)'s mean and reciprocal standard deviation,
    shape (N, group), differentiable as in PyTorch.

    >>> [t.shape for t in native_group_norm(eagerad.ones(1, 4, 2), None, None, 1, 4, 2, 2, 1e-5)]
    [(1, 4, 2), (1, 2), (1, 2)]
    """
    x, = _floats("native_group_norm", input)
    if x.shape[:2] != (N, C) or x.size != N * C * HxW:
        raise ValueError(f"native_group_norm: input of shape {x.shape} does not match N={N}, "
                         f"C={C}, HxW={HxW}")
    out = group_norm(x, group, weight, bias, eps)
    _, mean, var = _standardize(x.reshape((N, group, -1)), (2,), eps)
    return out, mean.reshape(N, group), (1.0 / sqrt(var + eps)).reshape(N, group)
