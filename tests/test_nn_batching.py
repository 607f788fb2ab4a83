"""Batching rules of the nn ops (softmax, log_softmax, nll_loss under cross_entropy) and
``elementwise`` declarations of math.py, each checked against a Python loop of the op."""
import numpy as np
import pytest

import eagerad
from eagerad import ops
from eagerad.ops.registry import OPS, PRIMITIVES, PUBLIC


def _stack(parts, bdim):
    return eagerad.tensor(np.stack([p.numpy() for p in parts], axis=bdim))


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("bdim", [0, 1, 2])
@pytest.mark.parametrize("axis", [0, 1])
def test_softmax_family_batch_rule_equals_a_loop(name, bdim, axis):
    rng = np.random.default_rng(bdim * 2 + axis)
    xs = [eagerad.tensor(rng.normal(size=(3, 4))) for _ in range(5)]
    out, out_bdim = OPS[name].batch((_stack(xs, bdim),), (bdim,), axis=axis)
    want = [OPS[name](x, axis=axis).numpy() for x in xs]
    np.testing.assert_allclose(np.moveaxis(out.numpy(), out_bdim, 0), np.stack(want), rtol=1e-15)


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("bdims", [(0, 0), (1, None), (None, 2), (2, 1)])
def test_nll_loss_batch_rule_equals_a_loop(reduction, bdims):
    rng = np.random.default_rng(7)
    logps = [ops.log_softmax(eagerad.tensor(rng.normal(size=(3, 4)))) for _ in range(4)]
    targets = [eagerad.tensor(rng.dirichlet(np.ones(4), 3)) for _ in range(4)]
    if bdims[0] is None:
        logps = [logps[0]] * 4
    if bdims[1] is None:
        targets = [targets[0]] * 4
    args = tuple(p[0] if b is None else _stack(p, b) for p, b in zip((logps, targets), bdims))
    out, out_bdim = OPS["nll_loss"].batch(args, bdims, axis=1, reduction=reduction)
    want = [OPS["nll_loss"](lp, t, axis=1, reduction=reduction).numpy()
            for lp, t in zip(logps, targets)]
    np.testing.assert_allclose(np.moveaxis(out.numpy(), out_bdim, 0), np.stack(want), rtol=1e-14)


def test_every_math_op_with_a_public_function_is_declared_elementwise():
    for name in ("add", "sub", "mul", "div", "pow", "maximum", "minimum", "floordiv", "mod", "eq",
                 "logical_xor", "neg", "exp", "sin", "relu", "isnan", "where", "clip"):
        assert OPS[name].elementwise, name


def test_stanzas_declare_public_names_methods_and_primitives():
    assert PUBLIC["sin"] is ops.sin and PRIMITIVES["Sin"] is ops.sin
    assert PUBLIC["clip"] is ops.clip_by_value and PUBLIC["clamp"] is ops.clip_by_value
    assert PRIMITIVES["Select"] is ops.where and PRIMITIVES["ReLU"] is ops.relu
    x = eagerad.tensor([1.0, 2.0])
    assert x.eq(2.0).tolist() == [False, True] and x.subtract(1.0).tolist() == [0.0, 1.0]
    assert ops.ReLU()(eagerad.tensor([-1.0, 2.0])).tolist() == [0.0, 2.0]
