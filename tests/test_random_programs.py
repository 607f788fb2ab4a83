"""Randomized programs checked against central finite differences (float64).

A program is a chain of steps applied to a current value; steps that take a
second operand bring their own leaf (so broadcasting both ways, concat and
matmul are exercised).  Each program is checked to first order (gradient of a
weighted sum of the output) and second order (Hessian-vector product through
``create_graph=True`` against differences of gradients).  A failing program is
shrunk by dropping steps while it still fails, and the minimal one is reported.

Masked-logit steps put ``-inf`` into some entries before ``log_softmax`` or
``cross_entropy`` (class or probability labels), as attention and vocabulary masks do.
Two more differential checks reuse the generator: reflected Python scalars in float64
against closed forms at full precision (finite differences could not see a scalar
rounded through float32), and every program run in float16 against float32.

CI runs the fixed seed; other seeds: ``EAGERAD_FUZZ_SEEDS=1,2,3 pytest tests/test_random_programs.py``.
"""
import os

import numpy as np
import pytest

import eagerad
from eagerad import autograd

N_PROGRAMS = int(os.environ.get("EAGERAD_FUZZ_N", "300"))
SEEDS = [int(s) for s in os.environ.get("EAGERAD_FUZZ_SEEDS", "20240601").split(",")]
EPS = 1e-6

UNARY = {
    "sin": eagerad.ops.sin, "cos": eagerad.ops.cos, "tanh": eagerad.ops.tanh,
    "sigmoid": eagerad.ops.sigmoid, "square": eagerad.ops.square,
    "exp_bounded": lambda x: eagerad.ops.exp(eagerad.ops.tanh(x)),
    "log1p_sq": lambda x: eagerad.ops.log(1 + x * x),
    "sqrt_pos": lambda x: eagerad.ops.sqrt(x * x + 0.5),
    "neg": lambda x: -x, "pow3": lambda x: x ** 3,
    "rsub_scalar": lambda x: 2.5 - x, "rpow_scalar": lambda x: 1.7 ** x,
    "rdiv_scalar": lambda x: 0.3 / (x * x + 1),
    "large_scalars": lambda x: x / 100000 * 100000,    # 1e5 overflows float16
}
BINARY = {
    "add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
    "div": lambda x, y: x / (y * y + 1), "rdiv": lambda x, y: y / (x * x + 1),
    "maximum": eagerad.ops.maximum, "minimum": eagerad.ops.minimum,
}
REDUCE = {
    "sum": lambda x, axis, keep: x.sum(axis=axis, keepdims=keep),
    "mean": lambda x, axis, keep: x.mean(axis=axis, keepdims=keep),
    "max": lambda x, axis, keep: x.max(axis=axis, keepdims=keep),
    "logsumexp": lambda x, axis, keep: x.logsumexp(axis=axis, keepdims=keep),
}


class Step:
    """One instruction: ``kind`` plus its arguments and (maybe) its own leaf value."""

    def __init__(self, kind, arg=None, leaf=None):
        self.kind, self.arg, self.leaf = kind, arg, leaf

    def __repr__(self):
        extra = f", leaf shape {self.leaf.shape}" if self.leaf is not None else ""
        return f"{self.kind}({self.arg!r}{extra})"


def _shape_after(shape, rng):
    """A random shape that broadcasts with ``shape`` (sometimes to a larger result)."""
    other = [s if rng.random() < 0.7 else 1 for s in shape]
    if other and rng.random() < 0.3:
        other = other[rng.integers(0, len(other)):]          # fewer leading dims
    elif len(shape) < 3 and rng.random() < 0.2:
        other = [int(rng.integers(2, 4))] + other            # result grows a dim
    return tuple(other)


def _random_step(shape, rng):
    """A step valid for a current value of ``shape``, and the shape after it."""
    ndim = len(shape)
    choices = ["unary", "binary", "binary"]
    if ndim:
        choices += ["reduce", "index", "basic_index", "mask", "transpose", "reshape", "concat",
                    "matmul", "masked_log_softmax", "masked_ce"]
    kind = choices[rng.integers(len(choices))]
    if kind == "unary":
        return Step("unary", list(UNARY)[rng.integers(len(UNARY))]), shape
    if kind == "binary":
        other = _shape_after(shape, rng)
        name = list(BINARY)[rng.integers(len(BINARY))]
        return Step(name, None, rng.uniform(-1, 1, other)), np.broadcast_shapes(shape, other)
    if kind == "reduce":
        axis = int(rng.integers(-ndim, ndim)) if rng.random() < 0.8 else None
        keep = bool(rng.random() < 0.5)
        name = list(REDUCE)[rng.integers(len(REDUCE))]
        out = np.empty(shape).sum(axis=axis, keepdims=keep).shape
        return Step("reduce", (name, axis, keep)), out
    if kind == "index":   # integer-array index with repeats along axis 0
        idx = rng.integers(0, shape[0], size=int(rng.integers(1, 4)))
        return Step("index", (idx,)), (len(idx),) + shape[1:]
    if kind == "basic_index":
        start = int(rng.integers(0, shape[0]))
        if rng.random() < 0.3:
            return Step("index", (start,)), shape[1:]
        step = int(rng.choice([1, 2, -1]))
        sl = slice(start, None, step)
        return Step("index", (sl,)), (len(range(shape[0])[sl]),) + shape[1:]
    if kind == "mask":
        mask = rng.random(shape) < 0.6
        if not mask.any():
            mask.flat[0] = True
        return Step("mask", mask), (int(mask.sum()),)
    if kind == "transpose":
        perm = tuple(int(p) for p in rng.permutation(ndim))
        return Step("transpose", perm), tuple(shape[p] for p in perm)
    if kind == "reshape":
        size = int(np.prod(shape))
        if size % 2 == 0 and rng.random() < 0.5:
            new = (2, size // 2)
        else:
            new = (size,)
        return Step("reshape", new), new
    if kind == "concat":
        axis = int(rng.integers(0, ndim))
        other = list(shape)
        other[axis] = int(rng.integers(1, 3))
        out = list(shape)
        out[axis] += other[axis]
        return Step("concat", axis, rng.uniform(-1, 1, other)), tuple(out)
    if kind in ("masked_log_softmax", "masked_ce"):
        keep = rng.random(shape) < 0.6       # False: the logit is -inf
        keep[..., int(rng.integers(0, shape[-1]))] = True       # a class left in every row
        if kind == "masked_log_softmax":
            return Step(kind, keep), shape
        reduction = str(rng.choice(["none", "sum", "mean"]))
        if rng.random() < 0.5:               # class labels among the unmasked classes
            labels = np.argmax(keep * rng.random(shape), axis=-1)
        else:                                # probabilities, zero on masked classes
            labels = keep * rng.random(shape)
            labels /= labels.sum(axis=-1, keepdims=True)
        return Step(kind, (keep, labels, reduction)), shape[:-1] if reduction == "none" else ()
    k = int(rng.integers(1, 4))   # matmul with a (last, k) leaf
    out = shape[:-1] + (k,)
    return Step("matmul", None, rng.uniform(-1, 1, (shape[-1], k)) / shape[-1]), out


def generate(rng):
    """A random program: input value, steps and the output weights."""
    shape = tuple(int(s) for s in rng.integers(1, 4, size=int(rng.integers(0, 3))))
    x0 = rng.uniform(-1, 1, shape)
    steps = []
    for _ in range(int(rng.integers(1, 6))):
        step, shape = _random_step(shape, rng)
        steps.append(step)
    return x0, steps


def run(x0, steps, leaves):
    """Evaluate the program on tensors ``leaves`` (x0's tensor first, then each step's)."""
    cur = leaves[0]
    it = iter(leaves[1:])
    for step in steps:
        k = step.kind
        if k == "unary":
            cur = UNARY[step.arg](cur)
        elif k in BINARY:
            cur = BINARY[k](cur, next(it))
        elif k == "reduce":
            name, axis, keep = step.arg
            cur = REDUCE[name](cur, axis, keep)
        elif k == "index":
            cur = cur[tuple(eagerad.tensor(a) if isinstance(a, np.ndarray) else a for a in step.arg)]
        elif k == "mask":
            cur = cur[eagerad.tensor(step.arg)]
        elif k == "transpose":
            cur = cur.transpose(step.arg)
        elif k == "reshape":
            cur = cur.reshape(step.arg)
        elif k == "concat":
            cur = eagerad.concat([cur, next(it)], axis=step.arg)
        elif k == "matmul":
            cur = cur @ next(it)
        elif k == "masked_log_softmax":
            keep = eagerad.tensor(step.arg)
            out = eagerad.ops.log_softmax(eagerad.ops.where(keep, cur, -np.inf), axis=-1)
            cur = eagerad.ops.where(keep, out, 0.0)        # later steps see finite values
        elif k == "masked_ce":
            keep, labels, reduction = step.arg
            masked = eagerad.ops.where(eagerad.tensor(keep), cur, -np.inf)
            cur = eagerad.ops.cross_entropy(masked, eagerad.tensor(labels).astype(
                cur.dtype) if labels.dtype.kind == "f" else eagerad.tensor(labels),
                reduction=reduction, axis=-1)           # the mask is drawn over the last axis
    return cur


def _values(x0, steps):
    return [x0] + [s.leaf for s in steps if s.leaf is not None]


def _scalar(x0, steps, arrays):
    """sum(weights * output), weights fixed by the output's shape."""
    leaves = [eagerad.tensor(a, dtype=eagerad.float64, requires_grad=True) for a in arrays]
    out = run(x0, steps, leaves)
    w = np.cos(np.arange(out.size, dtype=np.float64) + 0.3).reshape(out.shape)
    return (out * eagerad.tensor(w)).sum(), leaves


def _grads(x0, steps, arrays, create_graph=False):
    y, leaves = _scalar(x0, steps, arrays)
    return autograd.grad(y, leaves, create_graph=create_graph, allow_unused=True), leaves


def mismatch(x0, steps):
    """None if the program's first and second derivatives match finite differences,
    else a description of the first mismatch."""
    arrays = _values(x0, steps)
    grads, _ = _grads(x0, steps, arrays)
    grads = [np.zeros_like(a) if g is None else g.numpy() for g, a in zip(grads, arrays)]
    for i, a in enumerate(arrays):
        for j in range(a.size):
            plus = [b.copy() for b in arrays]
            minus = [b.copy() for b in arrays]
            plus[i].flat[j] += EPS
            minus[i].flat[j] -= EPS
            fd = (_scalar(x0, steps, plus)[0].item() - _scalar(x0, steps, minus)[0].item()) / (2 * EPS)
            if not np.isclose(grads[i].flat[j], fd, rtol=1e-5, atol=1e-6):
                return f"first order: d/d leaf{i}[{j}] autograd {grads[i].flat[j]!r} vs fd {fd!r}"
    # second order: H v through create_graph, against differences of gradients along v
    rng = np.random.default_rng(len(steps))
    direction = [rng.uniform(-1, 1, a.shape) for a in arrays]
    g1, leaves = _grads(x0, steps, arrays, create_graph=True)
    dot = sum((g * eagerad.tensor(v)).sum() for g, v in zip(g1, direction)
              if g is not None and g.requires_grad)
    if isinstance(dot, int):
        hv = [np.zeros_like(a) for a in arrays]
    else:
        hv = [np.zeros_like(a) if h is None else h.numpy()
              for h, a in zip(autograd.grad(dot, leaves, allow_unused=True), arrays)]
    shifted = []
    for sign in (1, -1):
        moved = [a + sign * EPS * v for a, v in zip(arrays, direction)]
        shifted.append([np.zeros_like(a) if g is None else g.numpy()
                        for g, a in zip(_grads(x0, steps, moved)[0], arrays)])
    for i in range(len(arrays)):
        fd = (shifted[0][i] - shifted[1][i]) / (2 * EPS)
        if not np.allclose(hv[i], fd, rtol=1e-4, atol=1e-5):
            return f"second order: Hv for leaf{i} autograd {hv[i].ravel()} vs fd {fd.ravel()}"
    return None


def shrink(x0, steps):
    """Drop steps one at a time while the program still runs and still fails."""
    changed = True
    while changed:
        changed = False
        for i in range(len(steps)):
            candidate = steps[:i] + steps[i + 1:]
            try:
                failing = candidate and mismatch(x0, candidate) is not None
            except (ValueError, IndexError, RuntimeError):
                failing = False          # the shorter chain is not well-shaped
            if failing:
                steps, changed = candidate, True
                break
    return steps


def check_seed(seed, n):
    rng = np.random.default_rng(seed)
    for k in range(n):
        x0, steps = generate(rng)
        problem = mismatch(x0, steps)
        if problem is not None:
            small = shrink(x0, steps)
            pytest.fail(f"seed {seed}, program {k}: {problem}\n  full program: {steps}\n"
                        f"  input shape {x0.shape}; minimal failing program: {small}\n"
                        f"  its mismatch: {mismatch(x0, small)}")


@pytest.mark.parametrize("seed", SEEDS)
def test_random_programs_match_finite_differences(seed):
    check_seed(seed, N_PROGRAMS)


def test_generator_covers_every_step_kind():
    rng = np.random.default_rng(SEEDS[0])
    kinds = {s.kind for _ in range(N_PROGRAMS) for s in generate(rng)[1]}
    assert {"unary", "reduce", "index", "mask", "transpose", "reshape", "concat",
            "matmul", "masked_log_softmax", "masked_ce"} <= kinds
    assert set(BINARY) <= kinds


# Reflected Python scalars next to float64 tensors: value and derivative against numpy's
# float64 closed forms (the scalar must reach the kernel unrounded).
REFLECTED = {
    "rsub": (lambda c, x: c - x, lambda c, x: c - x, lambda c, x: -np.ones_like(x)),
    "rdiv": (lambda c, x: c / x, lambda c, x: c / x, lambda c, x: -c / (x * x)),
    "rpow": (lambda c, x: c ** x, lambda c, x: c ** x, lambda c, x: c ** x * np.log(c)),
    "radd": (lambda c, x: c + x, lambda c, x: c + x, lambda c, x: np.ones_like(x)),
    "rmul": (lambda c, x: c * x, lambda c, x: c * x, lambda c, x: np.full_like(x, c)),
    "where": (lambda c, x: eagerad.ops.where(x > 0, x, c),
              lambda c, x: np.where(x > 0, x, c), lambda c, x: (x > 0) * 1.0),
}


@pytest.mark.parametrize("seed", SEEDS)
def test_reflected_python_scalars_keep_float64_precision(seed):
    rng = np.random.default_rng(seed)
    for _ in range(N_PROGRAMS // 10):
        name = list(REFLECTED)[rng.integers(len(REFLECTED))]
        op, value, deriv = REFLECTED[name]
        c = float(rng.uniform(0.1, 3.0))        # not a float32 number
        a = rng.uniform(0.2, 2.0, int(rng.integers(1, 5))) * rng.choice((-1, 1))
        x = eagerad.tensor(a, requires_grad=True)
        out = op(c, x)
        out.sum().backward()
        assert out.dtype == np.float64, name
        np.testing.assert_allclose(out.numpy(), value(c, a), rtol=1e-15, err_msg=f"{name} {c}")
        np.testing.assert_allclose(x.grad.numpy(), deriv(c, a), rtol=1e-15, err_msg=f"{name} {c}")


def _run_in(x0, steps, dtype):
    with eagerad.no_grad():
        return run(x0, steps, [eagerad.tensor(a.astype(dtype)) for a in _values(x0, steps)])


@pytest.mark.parametrize("seed", SEEDS)
def test_float16_programs_follow_float32(seed):
    """Each float16 op computes in float32 and rounds once: a chain of a few ops stays
    within a few float16 roundings of the float32 result (relative to its scale)."""
    rng = np.random.default_rng(seed)
    for k in range(N_PROGRAMS):
        x0, steps = generate(rng)
        low, high = _run_in(x0, steps, np.float16), _run_in(x0, steps, np.float32)
        assert low.dtype == np.float16, (k, steps)
        got, want = low.numpy().astype(np.float64), high.numpy().astype(np.float64)
        scale = max(1.0, float(np.abs(want).max(initial=0.0)))
        np.testing.assert_allclose(got, want, rtol=2e-2, atol=2e-2 * scale,
                                   err_msg=f"seed {seed}, program {k}: {steps}")


def test_shrinking_finds_the_broken_step(monkeypatch):
    """Break one rule on purpose: the shrunk program is just that op."""
    x0 = np.array([0.3, -0.7, 0.5])
    steps = [Step("unary", "sin"), Step("mul", None, np.array([0.2, 0.4, -0.9])),
             Step("unary", "tanh"), Step("reduce", ("sum", 0, False))]
    assert mismatch(x0, steps) is None
    monkeypatch.setitem(UNARY, "tanh", lambda x: eagerad.ops.tanh(x) + eagerad.ops.stop_gradient(x) * 0.1)
    assert "first order" in mismatch(x0, steps)
    small = shrink(x0, steps)
    assert [s.kind for s in small] == ["unary"] and small[0].arg == "tanh"
