"""eagerad.nn.functional: PyTorch's names and argument order over the op stanzas, and the
MindSpore-ordered variants exported to eagerad.ops."""
import numpy as np
import pytest

import eagerad
import eagerad.nn.functional as F
from eagerad import ops

RNG = np.random.default_rng(3)


def test_every_listed_name_resolves_and_unknown_names_fall_back_to_ops():
    for name in F.__all__:
        assert callable(getattr(F, name)), name
    assert F.exp is ops.exp                       # not defined here: eagerad.ops's
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        F.nonexistent


def test_softmax_implicit_dim_follows_pytorch_with_its_warning():
    x = eagerad.tensor(RNG.normal(size=(2, 3, 4)))
    with pytest.warns(UserWarning, match="Implicit dimension"):
        implicit = F.softmax(x)
    np.testing.assert_allclose(implicit.numpy(), F.softmax(x, dim=0).numpy())
    np.testing.assert_allclose(F.log_softmax(x, dim=-1, dtype=eagerad.float64).numpy(),
                               np.log(F.softmax(x, dim=-1).numpy()), rtol=1e-6)


def test_cross_entropy_is_the_full_pytorch_version():
    x = eagerad.tensor(RNG.normal(size=(4, 3, 2)))       # class axis 1
    y = eagerad.tensor(RNG.integers(0, 3, (4, 2)))
    per = F.cross_entropy(x, y, reduction="none")
    logp = x.numpy() - np.log(np.exp(x.numpy()).sum(1, keepdims=True))
    np.testing.assert_allclose(per.numpy(), -np.take_along_axis(logp, y.numpy()[:, None], 1)[:, 0],
                               rtol=1e-6)
    assert F.one_hot(eagerad.tensor([2, 0])).tolist() == [[0, 0, 1], [1, 0, 0]]


def test_argument_orders_of_both_faces():
    x, t = eagerad.tensor(RNG.normal(size=(3, 2))), eagerad.tensor(RNG.uniform(size=(3, 2)))
    pw = eagerad.tensor([2.0, 0.5])
    torch_order = F.binary_cross_entropy_with_logits(x, t, None, "sum", pw)
    ms_order = ops.binary_cross_entropy_with_logits(x, t, None, pw, "sum")
    np.testing.assert_allclose(torch_order.item(), ms_order.item())
    img, w = eagerad.ones(1, 2, 5, 5), eagerad.ones(3, 2, 3, 3)
    assert ops.conv2d(img, w).shape == (1, 3, 3, 3)                       # MindSpore: 'valid'
    assert ops.conv2d(img, w, None, 1, "pad", 1).shape == (1, 3, 5, 5)
    assert F.conv2d(img, w, None, 1, 1).shape == (1, 3, 5, 5)             # PyTorch: padding 5th
    np.testing.assert_allclose(ops.dense(x, eagerad.ones(4, 2)).numpy(), F.linear(x, eagerad.ones(4, 2)).numpy())
    assert ops.smooth_l1_loss(x, x * 0).shape == (3, 2)                  # MindSpore: 'none'
    assert F.smooth_l1_loss(x, x * 0).shape == ()
