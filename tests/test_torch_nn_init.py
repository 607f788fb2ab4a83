"""``torch.nn.init`` has PyTorch's initialisers with PyTorch's fans, gains and bounds
(``kaiming_normal_``, ``trunc_normal_``, ``orthogonal_``... were missing: programs stopped
at the name), and its deprecated spellings (``init.normal(w)``) fill ``w`` as PyTorch does
instead of meaning MindSpore's ``normal(shape)``."""
import math

import numpy as np
import pytest

import eagerad.torch as torch
import eagerad.torch.nn.functional as F
from eagerad.torch.nn import init


@pytest.fixture(autouse=True)
def _seeded():
    torch.manual_seed(0)


GAINS = [("linear", None, 1.0), ("conv2d", None, 1.0), ("sigmoid", None, 1.0),
         ("tanh", None, 5.0 / 3), ("relu", None, math.sqrt(2.0)), ("selu", None, 0.75),
         ("leaky_relu", None, math.sqrt(2.0 / (1 + 0.01 ** 2))),
         ("leaky_relu", 0.2, math.sqrt(2.0 / 1.04))]


@pytest.mark.parametrize("name, param, expected", GAINS)
def test_calculate_gain_follows_pytorchs_table(name, param, expected):
    assert init.calculate_gain(name, param) == pytest.approx(expected, rel=1e-15)


def test_fans_count_the_receptive_field():
    assert init._calculate_fan_in_and_fan_out(torch.empty(8, 3, 5, 5)) == (75, 200)
    assert init._calculate_fan_in_and_fan_out(torch.empty(10, 4)) == (4, 10)
    with pytest.raises(ValueError, match=r"fewer than 2 dimensions \(got shape \(3,\)\)"):
        init._calculate_fan_in_and_fan_out(torch.empty(3))


def _spread(w):
    values = w.numpy().astype(np.float64)
    return values.mean(), values.std(), np.abs(values).max()


@pytest.mark.parametrize("mode, fan", [("fan_in", 64 * 9), ("fan_out", 128 * 9)])
def test_kaiming_normal_and_uniform_have_hes_scale(mode, fan):
    std = math.sqrt(2.0) / math.sqrt(fan)             # relu's gain
    mean, got, _ = _spread(init.kaiming_normal_(torch.empty(128, 64, 3, 3), mode=mode,
                                                nonlinearity="relu"))
    assert abs(mean) < 0.02 * std and got == pytest.approx(std, rel=0.01)
    bound = math.sqrt(3.0) * std
    _, got, top = _spread(init.kaiming_uniform_(torch.empty(128, 64, 3, 3), mode=mode,
                                                nonlinearity="relu"))
    assert bound * 0.999 < top <= bound and got == pytest.approx(bound / math.sqrt(3), rel=0.01)


def test_kaiming_uniforms_default_is_linears_own_init():
    # a = sqrt(5) with leaky_relu: bound 1 / sqrt(fan_in), what nn.Linear starts from
    w = init.kaiming_uniform_(torch.empty(300, 400), a=math.sqrt(5))
    assert 0.999 / 20 < float(w.abs().max()) <= 1 / 20


def test_xavier_normal_and_uniform_have_glorots_scale():
    std = math.sqrt(2.0 / (200 + 300))
    _, got, _ = _spread(init.xavier_normal_(torch.empty(300, 200), gain=2.0))
    assert got == pytest.approx(2 * std, rel=0.01)
    _, _, top = _spread(init.xavier_uniform_(torch.empty(300, 200)))
    assert math.sqrt(3) * std * 0.999 < top <= math.sqrt(3) * std


def _truncated_moments(mean, std, a, b):
    """Mean and standard deviation of N(mean, std**2) truncated to [a, b] (closed form)."""
    alpha, beta = (a - mean) / std, (b - mean) / std
    pdf = [math.exp(-z * z / 2) / math.sqrt(2 * math.pi) for z in (alpha, beta)]
    mass = 0.5 * (math.erf(beta / math.sqrt(2)) - math.erf(alpha / math.sqrt(2)))
    shift = (pdf[0] - pdf[1]) / mass
    var = 1 + (alpha * pdf[0] - beta * pdf[1]) / mass - shift ** 2
    return mean + std * shift, std * math.sqrt(var)


@pytest.mark.filterwarnings("ignore:mean is more than 2 std")   # (PyTorch's; exact here)
@pytest.mark.parametrize("mean, std, a, b", [(0.0, 1.0, -2.0, 2.0), (0.0, 0.02, -0.04, 0.04),
                                             (1.0, 2.0, 0.5, 6.0), (0.0, 1.0, 3.0, 4.0)])
def test_trunc_normal_has_the_truncated_distributions_moments(mean, std, a, b):
    values = init.trunc_normal_(torch.empty(200_000, dtype=torch.float64), mean, std, a, b).numpy()
    assert values.min() >= a and values.max() <= b
    want_mean, want_std = _truncated_moments(mean, std, a, b)
    assert values.mean() == pytest.approx(want_mean, abs=0.01 * want_std)
    assert values.std() == pytest.approx(want_std, rel=0.01)


@pytest.mark.parametrize("shape", [(5, 5), (3, 7), (7, 3), (6, 2, 2)])
def test_orthogonal_gives_orthonormal_rows_or_columns_times_gain(shape):
    q = init.orthogonal_(torch.empty(*shape, dtype=torch.float64), gain=1.5).numpy()
    flat = q.reshape(shape[0], -1)
    small = flat @ flat.T if flat.shape[0] <= flat.shape[1] else flat.T @ flat
    np.testing.assert_allclose(small, 2.25 * np.eye(len(small)), atol=1e-12)


def test_eye_and_dirac_are_exact():
    assert init.eye_(torch.empty(2, 3)).tolist() == [[1, 0, 0], [0, 1, 0]]
    w = init.dirac_(torch.empty(3, 3, 3, 3))
    x = torch.randn(2, 3, 5, 5)
    np.testing.assert_array_equal(F.conv2d(x, w, padding=1).numpy(), x.numpy())
    grouped = init.dirac_(torch.empty(4, 2, 3), groups=2).numpy()
    assert grouped[:, :, 1].tolist() == [[1, 0], [0, 1], [1, 0], [0, 1]]
    assert grouped[:, :, [0, 2]].sum() == 0


def test_sparse_zeroes_the_same_count_in_every_column():
    w = init.sparse_(torch.empty(10, 6), 0.25, std=0.5).numpy()
    assert ((w == 0).sum(0) == 3).all()
    assert w[w != 0].std() == pytest.approx(0.5, rel=0.3)


def test_fills_keep_a_parameter_a_leaf_and_bump_its_version():
    p = torch.nn.Parameter(torch.zeros(4, 3))
    version = p._version[0]
    init.kaiming_uniform_(p)
    assert p.requires_grad and p.grad_fn is None and p._version[0] > version
    (p * 2).sum().backward()
    assert p.grad.tolist() == [[2.0] * 3] * 4


def test_a_generator_gives_its_own_reproducible_stream():
    first = init.normal_(torch.empty(5), generator=torch.Generator().manual_seed(3)).tolist()
    again = init.normal_(torch.empty(5), generator=torch.Generator().manual_seed(3)).tolist()
    assert first == again


def test_the_deprecated_spellings_warn_and_fill_in_place():
    w = torch.zeros(3)
    with pytest.warns(FutureWarning, match=r"nn.init.normal.*nn.init.normal_"):
        assert init.normal(w, 5.0, 0.0) is w
    assert w.tolist() == [5.0, 5.0, 5.0]
    with pytest.warns(FutureWarning):
        init.constant(w, 2.0)
    assert w.tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("call, message", [
    (lambda: init.normal_(torch.empty(2), 0.0, -1.0), "normal_: std must be >= 0"),
    (lambda: init.uniform_(torch.empty(2), 2.0, 1.0), r"uniform_: expects a \[from, to\)"),
    (lambda: init.trunc_normal_(torch.empty(2), a=2.0, b=-2.0), "trunc_normal_: expects"),
    (lambda: init.kaiming_normal_(torch.empty(2, 2), mode="fan"), "Mode fan not supported"),
    (lambda: init.calculate_gain("gelu"), "Unsupported nonlinearity gelu"),
    (lambda: init.calculate_gain("leaky_relu", True), "negative_slope True not a valid number"),
    (lambda: init.eye_(torch.empty(2, 2, 2)), "Only tensors with 2 dimensions"),
    (lambda: init.dirac_(torch.empty(2, 2)), "Only tensors with 3, 4, or 5 dimensions"),
    (lambda: init.orthogonal_(torch.empty(3)), "Only tensors with 2 or more dimensions"),
])
def test_bad_arguments_raise_naming_them(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_the_same_exact_fills_and_constants_as_pytorch_where_installed():
    real = pytest.importorskip("torch")
    for name, param, _ in GAINS:
        assert init.calculate_gain(name, param) == real.nn.init.calculate_gain(name, param)
    for shape in [(8, 3, 5, 5), (10, 4), (6, 2, 3)]:
        assert init._calculate_fan_in_and_fan_out(torch.empty(*shape)) == \
            real.nn.init._calculate_fan_in_and_fan_out(real.empty(*shape))
    for shape, groups in [((6, 3, 3, 3), 1), ((4, 2, 3), 2), ((2, 4, 3, 3, 3), 1)]:
        ours = init.dirac_(torch.empty(*shape), groups).numpy()
        ref = real.nn.init.dirac_(real.empty(*shape), groups).numpy()
        np.testing.assert_array_equal(ours, ref)
    np.testing.assert_array_equal(init.eye_(torch.empty(3, 5)).numpy(),
                                  real.nn.init.eye_(real.empty(3, 5)).numpy())
