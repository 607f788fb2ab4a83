"""ctc_loss, embedding_bag, multilabel_margin_loss, linear_cross_entropy and
PairwiseDistance: values against brute-force enumerations and explicit loops, float64
gradchecks, PyTorch where installed (including where PyTorch's gradient is not the
derivative: ctc_loss w.r.t. its log-probabilities)."""
import itertools
import math

import numpy as np
import pytest

import eagerad
import eagerad.torch as et
from eagerad import autograd, ops

F64 = eagerad.float64


def t64(values, requires_grad=False):
    return eagerad.tensor(np.asarray(values, dtype=np.float64), dtype=F64,
                          requires_grad=requires_grad)


def log_softmax_np(a, axis):
    a = a - a.max(axis=axis, keepdims=True)
    return a - np.log(np.exp(a).sum(axis=axis, keepdims=True))


def collapse(path, blank=0):
    out = [k for k, _ in itertools.groupby(path)]
    return tuple(k for k in out if k != blank)


def ctc_brute_force(lp, target, blank=0):
    """-log of the summed probability of every frame labelling that collapses to target."""
    frames, classes = lp.shape
    total = 0.0
    for path in itertools.product(range(classes), repeat=frames):
        if collapse(path, blank) == tuple(target):
            total += math.exp(sum(lp[t, k] for t, k in enumerate(path)))
    return -math.log(total) if total > 0 else math.inf


def test_ctc_loss_matches_brute_force_enumeration():
    rng = np.random.default_rng(0)
    lp = log_softmax_np(rng.standard_normal((5, 3, 3)), 2)
    targets = [[1, 1], [2, 1], [2]]
    padded = np.array([[1, 1], [2, 1], [2, 0]])
    lengths, input_lengths = [2, 2, 1], [5, 4, 5]
    want = [ctc_brute_force(lp[:n, i], targets[i]) for i, n in enumerate(input_lengths)]
    got = ops.ctc_loss(t64(lp), eagerad.tensor(padded), input_lengths, lengths, reduction="none")
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    flat = eagerad.tensor([1, 1, 2, 1, 2])                    # the targets concatenated
    mean = ops.ctc_loss(t64(lp), flat, input_lengths, lengths)
    assert mean.item() == pytest.approx(np.mean(np.array(want) / lengths), rel=1e-12)
    # blank 2 instead of 0, unbatched input
    one = ops.ctc_loss(t64(lp[:, 0]), eagerad.tensor([1, 0]), 5, 2, blank=2, reduction="sum")
    assert one.item() == pytest.approx(ctc_brute_force(lp[:, 0], [1, 0], blank=2), rel=1e-12)


def test_ctc_loss_impossible_alignment_and_zero_infinity():
    lp = t64(log_softmax_np(np.zeros((2, 1, 3)), 2), requires_grad=True)
    target = eagerad.tensor([[1, 1]])                  # needs 3 frames (1, blank, 1)
    loss = ops.ctc_loss(lp, target, [2], [2], reduction="sum")
    assert loss.item() == math.inf
    zeroed = ops.ctc_loss(lp, target, [2], [2], reduction="sum", zero_infinity=True)
    (g,) = autograd.grad(zeroed, lp)
    assert zeroed.item() == 0.0 and np.array_equal(g.numpy(), np.zeros((2, 1, 3)))


def test_ctc_loss_gradcheck_to_second_order():
    rng = np.random.default_rng(1)
    lp = t64(log_softmax_np(rng.standard_normal((4, 2, 3)), 2), requires_grad=True)

    def fn(x):
        return ops.ctc_loss(x, eagerad.tensor([[1, 2], [2, 0]]), [4, 3], [2, 1], reduction="sum")
    assert autograd.gradcheck(fn, (lp,))
    assert autograd.gradgradcheck(fn, (lp,))


def test_ctc_loss_bad_arguments_name_themselves():
    lp = t64(np.zeros((3, 1, 3)))
    with pytest.raises(ValueError, match="blank"):
        ops.ctc_loss(lp, eagerad.tensor([[0]]), [3], [1])
    with pytest.raises(ValueError, match="input_lengths"):
        ops.ctc_loss(lp, eagerad.tensor([[1]]), [4], [1])
    with pytest.raises(ValueError, match="reduction"):
        ops.ctc_loss(lp, eagerad.tensor([[1]]), [3], [1], reduction="avg")


def test_ctc_loss_against_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    logits = rng.standard_normal((12, 4, 6))
    targets = rng.integers(1, 6, (4, 5))
    il, tl = [12, 11, 12, 9], [5, 3, 4, 2]
    ref_in = torch.tensor(logits, requires_grad=True)
    ref = torch.nn.functional.ctc_loss(ref_in.log_softmax(2), torch.tensor(targets), il, tl)
    (ref_g,) = torch.autograd.grad(ref, ref_in)
    x = t64(logits, requires_grad=True)
    loss = et.nn.functional.ctc_loss(ops.log_softmax(x, 2), eagerad.tensor(targets), il, tl)
    (g,) = autograd.grad(loss, x)
    assert loss.item() == pytest.approx(ref.item(), rel=1e-12)
    # through log_softmax the gradients agree; PyTorch's gradient w.r.t. the log-probs
    # themselves is exp(lp) - posterior (as if log_softmax followed), not the derivative
    np.testing.assert_allclose(g.numpy(), ref_g.numpy(), rtol=1e-9, atol=1e-12)


def bag_reference(weight, bags, mode, psw=None):
    out = np.zeros((len(bags), weight.shape[1]))
    for b, entries in enumerate(bags):
        if not entries:
            continue
        rows = np.array([weight[i] * (1.0 if psw is None else psw[k]) for k, i in entries])
        out[b] = {"sum": rows.sum(0), "mean": rows.mean(0), "max": rows.max(0)}[mode]
    return out


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_matches_explicit_bags(mode):
    rng = np.random.default_rng(3)
    w = rng.standard_normal((6, 3))
    idx = np.array([1, 4, 4, 0, 5, 2, 3])
    offsets = [0, 3, 3, 5]                                # bag 1 is empty
    bags = [[(k, idx[k]) for k in range(s, e)] for s, e in zip(offsets, offsets[1:] + [7])]
    got = ops.embedding_bag(eagerad.tensor(idx), t64(w), eagerad.tensor(offsets), mode=mode)
    np.testing.assert_allclose(got.numpy(), bag_reference(w, bags, mode), rtol=1e-13)
    # padding_idx leaves entries out of their bag (and of the mean's count)
    two_d = np.array([[1, 4, 0], [4, 4, 2]])
    got = ops.embedding_bag(eagerad.tensor(two_d), t64(w), mode=mode, padding_idx=4)
    bags = [[(0, 1), (2, 0)], [(5, 2)]]
    np.testing.assert_allclose(got.numpy(), bag_reference(w, bags, mode), rtol=1e-13)
    x = t64(w, requires_grad=True)
    assert autograd.gradcheck(
        lambda v: ops.embedding_bag(eagerad.tensor(idx), v, eagerad.tensor(offsets), mode=mode),
        (x,))


def test_embedding_bag_per_sample_weights_order_and_errors():
    w = t64(np.arange(12.0).reshape(4, 3), requires_grad=True)
    psw = t64([1.0, 2.0, -1.0], requires_grad=True)
    idx, offsets = eagerad.tensor([0, 3, 1]), eagerad.tensor([0, 2, 3])
    got = ops.embedding_bag(idx, w, offsets, mode="sum", per_sample_weights=psw,
                            include_last_offset=True)
    np.testing.assert_allclose(got.numpy(), [[18.0, 21.0, 24.0], [-3.0, -4.0, -5.0]])
    assert autograd.gradcheck(lambda a, b: ops.embedding_bag(idx, a, offsets, mode="sum",
                                                             per_sample_weights=b,
                                                             include_last_offset=True), (w, psw))
    swapped = ops.embedding_bag(w, idx, offsets, mode="sum", per_sample_weights=psw,
                                include_last_offset=True)        # PyTorch's old order
    np.testing.assert_array_equal(swapped.numpy(), got.numpy())
    with pytest.raises(ValueError, match="per_sample_weights"):
        ops.embedding_bag(idx, w, offsets, mode="mean", per_sample_weights=psw)
    with pytest.raises(ValueError, match="offsets"):
        ops.embedding_bag(idx, w)
    with pytest.raises(IndexError, match="indices"):
        ops.embedding_bag(eagerad.tensor([[7]]), w)


def test_multilabel_margin_loss_matches_loops():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 5))
    y = np.array([[3, 0, -1, 1, 1], [2, 2, 4, 1, 0], [-1, 2, 3, 0, 0]])
    want = []
    for row, targets in zip(x, y):
        listed = list(itertools.takewhile(lambda k: k != -1, targets))
        others = [i for i in range(5) if i not in listed]
        want.append(sum(max(0.0, 1 - (row[j] - row[i])) for j in listed for i in others) / 5)
    got = ops.multilabel_margin_loss(t64(x), eagerad.tensor(y), reduction="none")
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-13)
    assert ops.multilabel_margin_loss(t64(x), eagerad.tensor(y)).item() == pytest.approx(
        np.mean(want), rel=1e-13)
    v = t64(x, requires_grad=True)
    assert autograd.gradcheck(lambda a: ops.multilabel_margin_loss(a, eagerad.tensor(y)), (v,))
    with pytest.raises(ValueError, match="target"):
        ops.multilabel_margin_loss(t64(x), eagerad.tensor([[7, -1, 0, 0, 0]] * 3))


def test_linear_cross_entropy_is_cross_entropy_of_the_linear_logits():
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal((4, 3)), rng.standard_normal((2, 5, 3))
    b = rng.standard_normal((2, 5))
    y = rng.integers(0, 2, (4, 5))
    logits = np.einsum("ni,cdi->ncd", x, w) + b
    logp = log_softmax_np(logits, 1)
    want = -np.take_along_axis(logp, y[:, None, :], 1).mean()
    got = ops.linear_cross_entropy(t64(x), t64(w), eagerad.tensor(y), linear_bias=t64(b))
    assert got.item() == pytest.approx(want, rel=1e-12)
    xs, ws = t64(x, requires_grad=True), t64(w[:, 0], requires_grad=True)
    def fn(a, c):
        return ops.linear_cross_entropy(a, c, eagerad.tensor(y[:, 0]), reduction="sum")
    assert autograd.gradcheck(fn, (xs, ws)) and autograd.gradgradcheck(fn, (xs, ws))
    with pytest.raises(ValueError, match="linear_weight"):
        ops.linear_cross_entropy(t64(x), t64(np.ones((2, 4))), eagerad.tensor(y[:, 0]))


def test_pairwise_distance_module_and_triplet_loss_with_it():
    d = et.nn.PairwiseDistance(p=1.0, eps=0.0)
    assert d.norm == 1.0 and isinstance(d, et.nn.Module)
    a, p, n = et.tensor([[0.0, 0.0]]), et.tensor([[1.0, 2.0]]), et.tensor([[3.0, 0.5]])
    assert d(a, p).tolist() == [3.0]
    loss = et.nn.functional.triplet_margin_with_distance_loss(a, p, n, distance_function=d,
                                                              margin=1.0)
    assert loss.item() == pytest.approx(max(0.0, 1.0 + 3.0 - 3.5))
