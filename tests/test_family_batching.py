"""Issue 14's families under vmap use batching rules, never the per-sample loop: every op
defined in their modules declares a rule, and vmap of the nn functions users batch
(linear, conv2d, layer_norm, softmax-based losses, and the jacobians tutorial's
vmap(jacrev(...))) equals the batched computation without entering the loop."""
import numpy as np
import pytest

import eagerad as E
import eagerad.nn.functional as F
from eagerad import _upcalls
from eagerad.ops import OPS, registry

FAMILIES = ("special", "activations", "decompositions", "contractions", "linalg", "statistics",
            "sorting", "cumulative", "norms", "indexing", "arrangement", "creation",
            "convolution", "normalization", "losses")


def test_every_family_op_has_a_batching_rule():
    mine = {name: op for name, op in OPS.items()
            if op.forward.__module__.rsplit(".", 1)[-1] in FAMILIES}
    assert len(mine) > 60
    assert [n for n, op in mine.items() if op.batch is None and not op.elementwise] == []


@pytest.fixture
def no_loop(monkeypatch):
    def refuse(op, *args):
        raise AssertionError(f"{getattr(op, 'name', op)} fell back to the per-sample loop "
                             "inside vmap")
    monkeypatch.setattr(registry, "loop_batch", refuse)
    monkeypatch.setitem(_upcalls._provided, "map_samples", lambda fn, *a: refuse(fn))


def _t(*shape, seed=0):
    return E.tensor(np.random.default_rng(seed).standard_normal(shape), dtype=E.float64)


def _close(a, b):
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)


def test_vmap_linear_conv_layer_norm_losses_are_batched(no_loop):
    x, w, b = _t(5, 4), _t(3, 4, seed=1), _t(3, seed=2)
    _close(E.vmap(lambda xi: F.linear(xi, w, b))(x), F.linear(x, w, b))
    ws = _t(5, 3, 4, seed=3)        # per-sample weights too
    _close(E.vmap(F.linear, in_axes=(0, 0))(x, ws),
           E.stack([F.linear(x[i], ws[i]) for i in range(5)]))
    _close(E.vmap(F.linear, in_axes=(None, 0))(x, ws),
           E.stack([F.linear(x, ws[i]) for i in range(5)]))
    img, k = _t(4, 2, 6, 5, seed=4), _t(3, 2, 3, 3, seed=5)
    _close(E.vmap(lambda im: F.conv2d(im, k, padding=1))(img), F.conv2d(img, k, padding=1))
    seq = _t(4, 3, 6, seed=6)
    _close(E.vmap(lambda s: F.layer_norm(s, (6,)))(seq), F.layer_norm(seq, (6,)))
    logits, target = _t(4, 3, 5, seed=7), E.tensor(np.array([[0, 4, 2], [1, 1, 3],
                                                             [4, 0, 0], [2, 3, 1]]))
    out = E.vmap(lambda z, t: F.cross_entropy(z, t, label_smoothing=0.1))(logits, target)
    _close(out, E.stack([F.cross_entropy(logits[i], target[i], label_smoothing=0.1)
                         for i in range(4)]))
    out = E.vmap(lambda z, t: F.nll_loss(F.log_softmax(z, dim=-1), t))(logits, target)
    _close(out, E.stack([F.nll_loss(F.log_softmax(logits[i], dim=-1), target[i])
                         for i in range(4)]))


def test_vmap_of_jacrev_equals_the_jacobian_of_the_summed_output(no_loop):
    # the jacobians tutorial's check, in float32 as there
    rng = np.random.default_rng(0)
    weight = E.tensor(rng.standard_normal((33, 31)).astype(np.float32))
    bias = E.tensor(rng.standard_normal(33).astype(np.float32))
    x = E.tensor(rng.standard_normal((64, 31)).astype(np.float32))

    def predict(weight, bias, x):
        return F.linear(x, weight, bias).tanh()

    batch_jac = E.vmap(E.jacrev(predict, grad_position=2), in_axes=(None, None, 0))(
        weight, bias, x)
    summed = E.jacrev(lambda w, b, x: predict(w, b, x).sum(0), grad_position=2)(weight, bias, x)
    assert batch_jac.shape == (64, 33, 31)
    # allclose's defaults, as the tutorial asserts: F.linear under vmap is the same one
    # matrix product as the batched call, so the float32 round-off agrees
    assert E.allclose(batch_jac, E.tensor(np.moveaxis(summed.numpy(), 1, 0)))
    # closed form: d tanh(Wx + b)/dx = diag(1 - y^2) W
    y = np.tanh(x.numpy() @ weight.numpy().T + bias.numpy())
    np.testing.assert_allclose(batch_jac.numpy(), (1 - y ** 2)[:, :, None] * weight.numpy(),
                               rtol=1e-5, atol=1e-5)


def test_value_checks_read_the_whole_batch_under_vmap(no_loop):
    p, t = E.tensor([[0.2, 0.9], [0.5, 0.1]]), E.tensor([[1.0, 0.0], [0.0, 1.0]])
    _close(E.vmap(F.binary_cross_entropy)(p, t),
           E.stack([F.binary_cross_entropy(p[i], t[i]) for i in range(2)]))
    table, idx = _t(5, 3), E.tensor(np.array([[0, 4], [2, 2]]))
    _close(E.vmap(lambda i: F.embedding(i, table))(idx), F.embedding(idx, table))
    with pytest.raises(ValueError, match="probabilities"):
        E.vmap(F.binary_cross_entropy)(p * 2, t)
    with pytest.raises(ValueError, match=r"indices must lie in \[0, 5\)"):
        E.vmap(lambda i: F.embedding(i, table))(idx + 1)
    with pytest.raises(ValueError, match="class indices"):
        E.vmap(lambda z, c: F.cross_entropy(z, c))(_t(2, 3, 5), E.tensor(np.array([[0, 1, 5],
                                                                                    [0, 0, 0]])))
