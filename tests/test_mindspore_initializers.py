"""MindSpore's initializer family in its face: names (``weight_init='he_uniform'``) and
objects (``HeNormal``, ``TruncatedNormal``, ``VarianceScaling``, ``Orthogonal``, ``Dirac``,
``Identity``, ``Sparse``).  ``'he_uniform'`` drew U(+-1/sqrt(fan_in)) -- the Dense default
-- where MindSpore's HeUniform() draws U(+-sqrt(6/fan_in)), and ``HeUniform`` ignored
``nonlinearity`` and refused ``mode='fan_out'``: silently different weights.  The bounds
and spreads here are MindSpore's formulas; the figures in comments are what MindSpore 2.x
printed for (200, 100) weights."""
import math

import numpy as np
import pytest

import eagerad.mindspore as ms
from eagerad.mindspore.common.initializer import (Dirac, HeNormal, HeUniform, Identity,
                                                  Orthogonal, Sparse, TruncatedNormal,
                                                  VarianceScaling, XavierNormal, initializer)

SHAPE = (200, 100)                    # fan_in 100, fan_out 200


@pytest.fixture(autouse=True)
def _seeded():
    ms.set_seed(0)


def _draw(init, shape=SHAPE):
    return initializer(init, shape, ms.float32).asnumpy().astype(np.float64)


@pytest.mark.parametrize("name", ["he_uniform", "HeUniform", "heuniform"])
def test_the_name_he_uniform_is_heuniforms_default(name):
    bound = math.sqrt(6 / 100)                                    # MindSpore: max 0.24494554
    assert bound * 0.999 < np.abs(_draw(name)).max() <= bound


def test_dense_keeps_its_own_default_and_takes_the_name():
    assert np.abs(ms.nn.Dense(100, 200).weight.asnumpy()).max() <= 0.1       # 1/sqrt(fan_in)
    w = ms.nn.Dense(100, 200, weight_init="he_uniform").weight.asnumpy()
    assert np.abs(w).max() > 0.2                                  # MindSpore: 0.24494173


@pytest.mark.parametrize("kw, fan, gain", [
    (dict(nonlinearity="tanh"), 100, 5 / 3),
    (dict(mode="fan_out", nonlinearity="relu"), 200, 2 ** 0.5),
    (dict(negative_slope=0.2), 100, (2 / 1.04) ** 0.5)])
def test_he_uniform_uses_the_gain_and_the_fan(kw, fan, gain):
    bound = gain * math.sqrt(3 / fan)
    assert bound * 0.999 < np.abs(_draw(HeUniform(**kw))).max() <= bound


@pytest.mark.parametrize("init, std", [(HeNormal(), math.sqrt(2 / 100)),              # 0.14149
                                       (HeNormal(mode="fan_out"), math.sqrt(2 / 200)),
                                       (XavierNormal(), math.sqrt(2 / 300)),          # 0.08136
                                       ("he_normal", math.sqrt(2 / 100)),
                                       ("xavier_normal", math.sqrt(2 / 300)),
                                       ("truncatednormal", 0.01),                     # 0.009986
                                       (TruncatedNormal(0.02), 0.02),
                                       (VarianceScaling(2.0, distribution="untruncated_normal"),
                                        math.sqrt(2 / 100)),
                                       (VarianceScaling(2.0, "fan_avg", "truncated_norm"),
                                        math.sqrt(2 / 150))])
def test_normal_families_have_their_spread(init, std):
    values = _draw(init, (400, 100) if init in ("truncatednormal",) else SHAPE)
    assert abs(values.mean()) < 0.05 * std and values.std() == pytest.approx(std, rel=0.03)


def test_truncated_normal_bounds_are_absolute():
    values = _draw(TruncatedNormal(sigma=1.0, a=-0.5, b=0.5))
    assert values.min() >= -0.5 and values.max() <= 0.5           # MindSpore: +-0.49999
    assert values.std() == pytest.approx(0.2836, rel=0.03)       # MindSpore: 0.28358704


def test_variance_scalings_default_draws_uniformly_as_mindspore():
    limit = math.sqrt(3 * 2.0 / 100)                              # MindSpore: max 0.24493
    values = _draw(VarianceScaling(2.0))
    assert limit * 0.999 < np.abs(values).max() <= limit
    with pytest.raises(ValueError, match="scale must be greater than 0"):
        VarianceScaling(0.0)
    with pytest.raises(ValueError, match="mode must be fan_in, fan_out or fan_avg"):
        VarianceScaling(mode="fan")


def test_exact_families():
    q = _draw(Orthogonal(gain=2.0), (3, 5))
    np.testing.assert_allclose(q @ q.T, 4 * np.eye(3), atol=1e-5)
    assert _draw(Dirac(), (2, 2, 3))[:, :, 1].tolist() == [[1, 0], [0, 1]]
    assert _draw(Identity(), (2, 3)).tolist() == [[1, 0, 0], [0, 1, 0]]
    assert ((_draw(Sparse(0.3, sigma=0.5), (10, 4)) == 0).sum(0) == 3).all()
    assert _draw("identity", (2, 2)).tolist() == [[1, 0], [0, 1]]
