"""Randomized differential test against PyTorch: same programs, same numbers (issue 12).

Random programs (the generator of ``test_random_programs.py``, plus steps for special
functions, softmax, linear algebra and conv2d) run twice: on eagerad and on PyTorch, each
step written once against a small namespace that maps to either library.  In float64 the
values, the first derivatives (gradient of a weighted sum of the output) and the second
derivatives (Hessian-vector products through ``create_graph=True``) must agree to ~1e-10
relative; a float16 chain of elementwise ops must agree loosely; and composed transforms
(``jacrev``, ``jacfwd``, ``hessian``, ``vmap``) must agree with ``torch.func``.
A failing program is shrunk to a minimal one before it is reported.

Where PyTorch's convention differs on purpose the twin is written out: cross-entropy with
probability labels over ``-inf`` (masked) logits is NaN in PyTorch (0 * -inf); the twin
sums over the unmasked classes only, which is the value eagerad defines.

CI runs one seed; more: ``EAGERAD_FUZZ_SEEDS=1,2,3 EAGERAD_VS_TORCH_N=300 pytest tests/test_vs_torch.py``.
"""
import math
import os
import types

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import eagerad                                                   # noqa: E402
from test_random_programs import SEEDS, Step, _random_step      # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")
N_PROGRAMS = int(os.environ.get("EAGERAD_VS_TORCH_N", "40"))
RTOL = 1e-10
# PyTorch's CPU trigamma (the derivative of digamma, second derivative of lgamma) is good to
# about 5e-10 relative (against the asymptotic series; eagerad's to 4e-16): programs that
# differentiate through them compare at a looser tolerance.
RTOL_POLYGAMMA = 1e-8


def _rtol(steps):
    return RTOL_POLYGAMMA if any(s.kind == "special" and s.arg != "erf" for s in steps) else RTOL


def _namespace(lib):
    """The few names where eagerad and PyTorch differ; everything else is the module's own."""
    if lib is torch:
        return types.SimpleNamespace(
            lib=torch, F=torch.nn.functional, linalg=torch.linalg, erf=torch.erf,
            lgamma=torch.lgamma, digamma=torch.digamma, where=torch.where, cat=torch.cat,
            const=lambda a: torch.from_numpy(np.array(a)),
            leaf=lambda a, dtype=torch.float64: torch.tensor(a, dtype=dtype, requires_grad=True),
            grad=torch.autograd.grad, func=torch.func, f16=torch.float16,
            class_last=lambda x: x.movedim(-1, 1) if x.ndim > 1 else x)
    return types.SimpleNamespace(
        lib=eagerad, F=eagerad.nn.functional, linalg=eagerad.linalg, erf=eagerad.ops.erf,
        lgamma=eagerad.ops.lgamma, digamma=eagerad.ops.digamma, where=eagerad.ops.where,
        cat=eagerad.concat, const=eagerad.tensor,
        leaf=lambda a, dtype=eagerad.float64: eagerad.tensor(a, dtype=dtype, requires_grad=True),
        grad=eagerad.autograd.grad, func=eagerad, f16=eagerad.float16,
        class_last=lambda x: x.movedim(-1, 1) if x.ndim > 1 else x)


LIBS = {"eagerad": _namespace(eagerad), "torch": _namespace(torch)}

UNARY = {   # the names of test_random_programs.UNARY, written for both libraries
    "sin": lambda M, x: M.lib.sin(x), "cos": lambda M, x: M.lib.cos(x),
    "tanh": lambda M, x: M.lib.tanh(x), "sigmoid": lambda M, x: M.lib.sigmoid(x),
    "square": lambda M, x: x * x, "exp_bounded": lambda M, x: M.lib.exp(M.lib.tanh(x)),
    "log1p_sq": lambda M, x: M.lib.log(1 + x * x), "sqrt_pos": lambda M, x: M.lib.sqrt(x * x + 0.5),
    "neg": lambda M, x: -x, "pow3": lambda M, x: x ** 3, "rsub_scalar": lambda M, x: 2.5 - x,
    "rpow_scalar": lambda M, x: 1.7 ** x, "rdiv_scalar": lambda M, x: 0.3 / (x * x + 1),
    "large_scalars": lambda M, x: x / 100000 * 100000,
}
SPECIAL = {
    "erf": lambda M, x: M.erf(x), "lgamma": lambda M, x: M.lgamma(x * x + 0.5),
    "digamma": lambda M, x: M.digamma(x * x + 0.5),
}
BINARY = {
    "add": lambda M, x, y: x + y, "sub": lambda M, x, y: x - y, "mul": lambda M, x, y: x * y,
    "div": lambda M, x, y: x / (y * y + 1), "rdiv": lambda M, x, y: y / (x * x + 1),
    "maximum": lambda M, x, y: M.lib.maximum(x, y), "minimum": lambda M, x, y: M.lib.minimum(x, y),
}


def _reduce(M, name, x, axis, keep):
    if axis is None:          # PyTorch's amax/logsumexp want a dim: reduce the flattened value
        out = _reduce(M, name, x.reshape(-1), 0, False)
        return out.reshape((1,) * x.ndim) if keep else out
    if name == "logsumexp":
        return x.logsumexp(dim=axis, keepdim=keep)
    return getattr(x, {"max": "amax"}.get(name, name))(dim=axis, keepdim=keep)


def _linalg(M, name, cur, a):
    """A well-conditioned matrix from the step's leaf ``a``, moved by the current value."""
    n = a.shape[-1]
    eye = M.const(np.eye(n))
    base = a + (2 + 0.3 * M.lib.tanh(cur.mean())) * eye
    if name == "inv":
        return M.linalg.inv(base)
    if name == "solve":
        return M.linalg.solve(base, a * a + 1)
    if name == "det":
        return M.linalg.det(base)
    if name == "slogdet":
        return M.linalg.slogdet(base)[1]
    spd = base @ base.mT + eye
    if name == "cholesky":
        return M.linalg.cholesky(spd)
    spread = M.const(np.diag(np.arange(n, dtype=np.float64)))   # eigenvalues about 1 apart
    return M.linalg.eigh(spread + 0.1 * (base + base.mT))[0]


def _masked_ce(M, cur, keep, labels, reduction):
    keep = M.const(keep)
    masked = M.where(keep, cur, -math.inf)
    if labels.dtype.kind != "f":
        return M.F.cross_entropy(M.class_last(masked), M.const(labels), reduction=reduction)
    logp = M.where(keep, M.F.log_softmax(masked, dim=-1), 0.0)
    per = -(M.const(labels) * logp).sum(-1)
    return {"none": per, "sum": per.sum(), "mean": per.mean()}[reduction]


def run(M, steps, leaves):
    """Evaluate the program on ``leaves`` (x0 first, then each step's leaves) with library M."""
    cur, it = leaves[0], iter(leaves[1:])
    for step in steps:
        k, arg = step.kind, step.arg
        if k == "unary":
            cur = UNARY[arg](M, cur)
        elif k == "special":
            cur = SPECIAL[arg](M, cur)
        elif k in BINARY:
            cur = BINARY[k](M, cur, next(it))
        elif k == "reduce":
            cur = _reduce(M, *arg[:1], cur, *arg[1:])
        elif k == "index":
            sl = arg[0]
            if M.lib is torch and isinstance(sl, slice) and sl.step < 0:   # torch: no negative steps
                arg = (np.arange(cur.shape[0])[sl],)
            cur = cur[tuple(M.const(a) if isinstance(a, np.ndarray) else a for a in arg)]
        elif k == "mask":
            cur = cur[M.const(arg)]
        elif k == "transpose":
            cur = cur.permute(*arg) if M.lib is torch else cur.transpose(arg)
        elif k == "reshape":
            cur = cur.reshape(arg)
        elif k == "concat":
            cur = M.cat([cur, next(it)], dim=arg) if M.lib is torch else M.cat([cur, next(it)], axis=arg)
        elif k == "matmul":
            cur = cur @ next(it)
        elif k == "softmax":
            cur = M.F.softmax(cur, dim=arg)
        elif k == "masked_log_softmax":
            keep = M.const(arg)
            cur = M.where(keep, M.F.log_softmax(M.where(keep, cur, -math.inf), dim=-1), 0.0)
        elif k == "masked_ce":
            cur = _masked_ce(M, cur, *arg)
        elif k == "linalg":
            cur = _linalg(M, arg, cur, next(it))
        elif k == "conv2d":
            img, weight = next(it), next(it)
            stride, padding = arg
            cur = M.F.conv2d(img * (1 + 0.5 * M.lib.tanh(cur.mean())), weight, stride=stride,
                             padding=padding)
        else:
            raise AssertionError(k)
    return cur


def _extra_step(shape, rng):
    """A step of the kinds test_random_programs does not have."""
    kind = ["special", "softmax", "linalg", "conv2d"][rng.integers(4)]
    if kind == "special" or (kind == "softmax" and not shape):
        return Step("special", list(SPECIAL)[rng.integers(len(SPECIAL))]), shape
    if kind == "softmax":
        return Step("softmax", int(rng.integers(-len(shape), len(shape)))), shape
    if kind == "linalg":
        name = ["inv", "solve", "det", "slogdet", "cholesky", "eigh"][rng.integers(6)]
        n = int(rng.integers(1, 4))
        batch = (2,) if rng.random() < 0.3 else ()
        a = rng.uniform(-0.3, 0.3, batch + (n, n))
        out = {"det": batch, "slogdet": batch, "eigh": batch + (n,)}.get(name, batch + (n, n))
        return Step("linalg", name, [a]), out
    stride, padding = int(rng.integers(1, 3)), int(rng.integers(0, 2))
    img, weight = rng.uniform(-1, 1, (1, 2, 5, 5)), rng.uniform(-0.5, 0.5, (3, 2, 3, 3))
    side = (5 + 2 * padding - 3) // stride + 1
    return Step("conv2d", (stride, padding), [img, weight]), (1, 3, side, side)


def generate(rng):
    """Input value and steps: test_random_programs' steps, a third of them ours."""
    shape = tuple(int(s) for s in rng.integers(1, 4, size=int(rng.integers(0, 3))))
    x0 = rng.uniform(-1, 1, shape)
    steps = []
    for _ in range(int(rng.integers(1, 6))):
        step, shape = (_extra_step if rng.random() < 0.35 else _random_step)(shape, rng)
        steps.append(step)
    return x0, steps


def values(x0, steps):
    out = [x0]
    for s in steps:
        if s.leaf is not None:
            out += s.leaf if isinstance(s.leaf, list) else [s.leaf]
    return out


def _np(t):
    return None if t is None else t.detach().cpu().numpy() if hasattr(t, "cpu") else t.numpy()


def derivatives(M, x0, steps):
    """Output, gradient of sum(w * out) and H v for every leaf, as numpy arrays."""
    arrays = values(x0, steps)
    leaves = [M.leaf(a) for a in arrays]
    out = run(M, steps, leaves)
    w = np.cos(np.arange(out.numel() if M.lib is torch else out.size) + 0.3).reshape(tuple(out.shape))
    grads = M.grad((out * M.const(w)).sum(), leaves, create_graph=True, allow_unused=True)
    direction = [np.sin(np.arange(a.size) + 1.0 + k).reshape(a.shape) for k, a in enumerate(arrays)]
    dot = sum((g * M.const(v)).sum() for g, v in zip(grads, direction)
              if g is not None and g.requires_grad)
    hv = [None] * len(leaves) if isinstance(dot, int) else M.grad(dot, leaves, allow_unused=True)
    zero = [np.zeros_like(a) for a in arrays]
    return ([_np(out)] + [z if g is None else _np(g) for g, z in zip(grads, zero)]
            + [z if h is None else _np(h) for h, z in zip(hv, zero)])


def _differ(label, a, b, other="torch"):
    gap = np.max(np.abs(np.asarray(a, np.float64) - b)) if np.shape(a) == np.shape(b) else "shapes"
    return (f"{label}: eagerad {np.ravel(a)[:6]} vs {other} {np.ravel(b)[:6]} "
            f"(shapes {np.shape(a)} {np.shape(b)}, max gap {gap})")


def _close(a, b, rtol):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if a.shape != b.shape:
        return False
    scale = max(1.0, float(np.max(np.abs(b[np.isfinite(b)]), initial=0.0)))
    return bool(np.all(np.isclose(a, b, rtol=rtol, atol=rtol * scale, equal_nan=True)))


def mismatch(x0, steps):
    """None when eagerad and PyTorch agree on value, gradient and H v; else what differs."""
    ours, theirs = (derivatives(LIBS[n], x0, steps) for n in ("eagerad", "torch"))
    n = len(values(x0, steps))
    labels = ["value"] + [f"gradient of leaf {i}" for i in range(n)] + [f"H v of leaf {i}" for i in range(n)]
    for label, a, b in zip(labels, ours, theirs):
        if not _close(a, b, _rtol(steps)):
            return _differ(label, a, b)
    return None


def _still_fails(fails, x0, steps):
    try:
        return bool(steps) and fails(x0, steps)
    except (ValueError, IndexError, RuntimeError, TypeError):
        return False                 # the shorter chain is not well-shaped


def shrink(x0, steps, fails):
    """Drop steps (retrying the same position after each drop) while the program still fails."""
    i = 0
    while i < len(steps):
        candidate = steps[:i] + steps[i + 1:]
        if _still_fails(fails, x0, candidate):
            steps = candidate
        else:
            i += 1
    return steps


def _check_programs(seed, check):
    rng = np.random.default_rng(seed)
    for k in range(N_PROGRAMS):
        x0, steps = generate(rng)
        problem = check(x0, steps)
        if problem is not None:
            small = shrink(x0, steps, lambda x, s: check(x, s) is not None)
            pytest.fail(f"seed {seed}, program {k}: {problem}\n  program: {steps} on shape "
                        f"{x0.shape}\n  minimal: {small}: {check(x0, small)}")


@pytest.mark.parametrize("seed", SEEDS)
def test_float64_programs_match_torch_to_second_order(seed):
    _check_programs(seed, mismatch)


def test_generator_covers_every_extra_kind():
    rng = np.random.default_rng(SEEDS[0])
    kinds = {(s.kind, s.arg if s.kind in ("linalg", "special") else None)
             for _ in range(N_PROGRAMS * 5) for s in generate(rng)[1]}
    assert {("linalg", n) for n in ("inv", "solve", "det", "slogdet", "cholesky", "eigh")} <= kinds
    assert {("special", n) for n in SPECIAL} | {("softmax", None), ("conv2d", None)} <= kinds


# float16: chains of elementwise ops (with reflected Python scalars) against PyTorch's half.
F16_UNARY = ["sin", "cos", "tanh", "sigmoid", "square", "exp_bounded", "neg", "rsub_scalar",
             "rpow_scalar", "rdiv_scalar"]


@pytest.mark.parametrize("seed", SEEDS)
def test_float16_elementwise_chains_match_torch_half(seed):
    rng = np.random.default_rng(seed)
    for k in range(N_PROGRAMS):
        x0 = rng.uniform(-1, 1, int(rng.integers(1, 6)))
        ops = [F16_UNARY[i] for i in rng.integers(len(F16_UNARY), size=int(rng.integers(1, 4)))]
        other = rng.uniform(-1, 1, x0.shape)
        outs = []
        for M in LIBS.values():
            x, y = M.leaf(x0, M.f16), M.leaf(other, M.f16)
            cur = x * y + x
            for name in ops:
                cur = UNARY[name](M, cur)
            cur.sum().backward()
            outs.append([_np(cur), _np(x.grad), _np(y.grad)])
        for label, a, b in zip(("value", "d/dx", "d/dy"), *outs):
            assert a.dtype == np.float16 and _close(a, b, 2e-2), \
                f"seed {seed} program {k} {ops} {label}: eagerad {a} vs torch {b}"


# Composed transforms against torch.func on the same programs, as functions of x0 alone.
def _as_function(M, x0, steps):
    others = [M.const(a) for a in values(x0, steps)[1:]]
    return lambda x: run(M, steps, [x] + others)


def transforms_mismatch(x0, steps, rng_seed=0):
    if not x0.shape or any(s.kind in ("mask",) for s in steps):
        return None       # vmap needs a batch axis; torch.func.vmap refuses boolean masks
    results = []
    batch = np.stack([x0, x0 * 0.5 + 0.1, -x0])
    for M in LIBS.values():
        f = _as_function(M, x0, steps)
        scalar = lambda x: (f(x) * 1.0).sum()           # noqa: E731
        x = M.const(x0)
        results.append([_np(M.func.jacrev(f)(x)), _np(M.func.jacfwd(f)(x)),
                        _np(M.func.hessian(scalar)(x)), _np(M.func.vmap(f)(M.const(batch))),
                        _np(M.func.vmap(M.func.jacrev(f))(M.const(batch)))])
    for label, a, b in zip(("jacrev", "jacfwd", "hessian", "vmap", "vmap(jacrev)"), *results):
        if not _close(a, b, _rtol(steps)):
            return _differ(label, a, b, "torch.func")
    return None


@pytest.mark.parametrize("seed", SEEDS)
def test_transforms_match_torch_func(seed):
    _check_programs(seed, transforms_mismatch)
