"""``eagerad.torch.fft``, ``stft`` and ``linalg.eig``: closed forms (a delta, a cosine,
Parseval, round trips, traces), finite-difference gradchecks of the transforms' real
parametrisations to second order (every norm), and PyTorch where it is installed."""
import numpy as np
import pytest

import eagerad
import eagerad.torch as et
from eagerad.autograd import gradcheck, gradgradcheck
from eagerad.ops import complex_ops as C

F64 = et.float64


def _t(x, grad=False):
    return et.tensor(np.asarray(x), requires_grad=grad)


def test_delta_and_cosine_spectra():
    delta = np.zeros(8)
    delta[0] = 1
    np.testing.assert_allclose(et.fft.fft(_t(delta)).numpy(), np.ones(8))
    n, k = 16, 3
    cosine = np.cos(2 * np.pi * k * np.arange(n) / n)
    spectrum = et.fft.rfft(_t(cosine)).numpy()
    expected = np.zeros(n // 2 + 1, complex)
    expected[k] = n / 2
    np.testing.assert_allclose(spectrum, expected, atol=1e-12)
    np.testing.assert_allclose(et.fft.fft(_t(cosine), norm="forward").numpy()[[k, n - k]], [0.5, 0.5])


def test_parseval_and_round_trips():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 10)) + 1j * rng.standard_normal((3, 10))
    X = et.fft.fft(_t(x)).numpy()
    np.testing.assert_allclose((abs(X) ** 2).sum(axis=-1) / 10, (abs(x) ** 2).sum(axis=-1))
    np.testing.assert_allclose(np.linalg.norm(et.fft.fftn(_t(x), norm="ortho").numpy()),
                               np.linalg.norm(x))
    np.testing.assert_allclose(et.fft.ifft(et.fft.fft(_t(x))).numpy(), x, atol=1e-12)
    for n in (9, 10):
        r = rng.standard_normal(n)
        np.testing.assert_allclose(et.fft.irfft(et.fft.rfft(_t(r)), n).numpy(), r, atol=1e-12)
        np.testing.assert_allclose(et.fft.hfft(et.fft.ihfft(_t(r)), n).numpy(), r, atol=1e-12)
    np.testing.assert_allclose(et.fft.fftshift(et.fft.fftfreq(5)).numpy(), [-0.4, -0.2, 0, 0.2, 0.4])
    np.testing.assert_allclose(et.fft.rfftfreq(6, d=0.5).numpy(), [0.0, 1 / 3, 2 / 3, 1.0], rtol=1e-7)


@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
def test_transforms_gradcheck_to_second_order(norm):
    rng = np.random.default_rng(1)
    z = _t(rng.standard_normal((3, 4, 2)), True)        # a complex (3, 4) signal as pairs
    r = _t(rng.standard_normal((3, 5)), True)
    cases = [
        (lambda x: C.view_as_real(et.fft.fft2(C.view_as_complex(x), s=(4, 3), norm=norm)), z),
        (lambda x: C.view_as_real(et.fft.ifft(C.view_as_complex(x), n=6, dim=0, norm=norm)), z),
        (lambda x: C.view_as_real(et.fft.rfftn(x, norm=norm)), r),
        (lambda x: et.fft.irfft(C.view_as_complex(x), n=7, norm=norm), z),     # odd length
        (lambda x: et.fft.irfft2(C.view_as_complex(x), norm=norm), z),         # even length
        (lambda x: et.fft.hfft(C.view_as_complex(x), norm=norm), z),
        (lambda x: C.view_as_real(et.fft.ihfft2(x, norm=norm)), r),
    ]
    for fn, x in cases:
        assert gradcheck(fn, (x,), check_forward_ad=True)
        assert gradgradcheck(fn, (x,))


def test_stft_of_a_constant_is_its_dc_bin():
    out = et.stft(et.ones(12, dtype=F64), 4, hop_length=2, center=False, return_complex=True)
    expected = np.zeros((3, 5), complex)
    expected[0] = 4
    np.testing.assert_allclose(out.numpy(), expected, atol=1e-12)
    x = _t(np.random.default_rng(2).standard_normal(20), True)
    assert gradcheck(lambda s: et.stft(s, 8, window=et.tensor(np.hanning(8)),
                                       return_complex=False), (x,))


def test_eig_closed_forms_and_gradients():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((2, 4, 4))
    L, V = et.linalg.eig(_t(a))
    np.testing.assert_allclose(a @ V.numpy(), V.numpy() * L.numpy()[:, None, :], atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(V.numpy(), axis=-2), 1.0)
    tri = np.triu(rng.standard_normal((3, 3))) + np.diag([0.0, 1.0, 2.0])
    assert sorted(et.linalg.eigvals(_t(tri)).numpy().real) == pytest.approx(sorted(np.diag(tri)))
    x = _t(a, True)
    (g,) = et.autograd.grad(C.real(et.linalg.eigvals(x)).sum(), x)     # sum of eigenvalues: trace
    np.testing.assert_allclose(g.numpy(), np.broadcast_to(np.eye(4), (2, 4, 4)), atol=1e-10)
    L = et.linalg.eigvals(x)
    (g,) = et.autograd.grad(C.real(L * L).sum(), x)
    np.testing.assert_allclose(g.numpy(), 2 * np.swapaxes(a, -1, -2), atol=1e-9)   # tr(A^2)


def test_bad_arguments_are_named():
    x = et.ones(4)
    with pytest.raises(ValueError, match="norm"):
        et.fft.fft(x, norm="sideways")
    with pytest.raises(TypeError, match="real input"):
        et.fft.rfft(et.tensor([1j]))
    with pytest.raises(ValueError, match="repeats"):
        et.fft.fftn(et.ones(2, 2), dim=(0, -2))
    with pytest.raises(RuntimeError, match="return_complex"):
        et.stft(x, 4)
    with pytest.raises(ValueError, match="square"):
        et.linalg.eig(et.ones(2, 3))


torch = pytest.importorskip("torch")

NAMES_1D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
NAMES_ND = ["fft2", "ifftn", "rfft2", "rfftn", "irfft2", "irfftn", "hfft2", "hfftn", "ihfftn"]


def _both(name, x, **kw):
    """Values, first and second-order gradients of ``<view_as_real(f(x)), w>`` in eagerad and
    torch (w fixed, x real or complex)."""
    out = []
    for m in (et, torch):
        rng = np.random.default_rng(len(name))
        t = m.tensor(x, requires_grad=True)
        y = getattr(m.fft, name)(t * t, **kw)
        y = m.view_as_real(y.resolve_conj() if m is torch else y) if y.is_complex() else y
        w = m.tensor(np.random.default_rng(7).standard_normal(tuple(y.shape)))
        (g,) = m.autograd.grad((y * w).sum(), t, create_graph=True)
        gw = rng.standard_normal(tuple(g.shape)) + (1j * rng.standard_normal(tuple(g.shape))
                                                    if g.is_complex() else 0)
        gg = m.tensor(gw)
        inner = (g.real * gg.real + g.imag * gg.imag).sum() if g.is_complex() else (g * gg).sum()
        (h,) = m.autograd.grad(inner, t)
        out.append([np.asarray(v.detach().resolve_conj().numpy() if m is torch else
                               v.detach().numpy()) for v in (y, g, h)])
    for mine, theirs in zip(*out):
        assert mine.shape == theirs.shape, name
        np.testing.assert_allclose(mine, theirs, rtol=1e-9, atol=1e-10, err_msg=f"{name} {kw}")


@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_transforms_match_pytorch(norm):
    rng = np.random.default_rng(4)
    real = rng.standard_normal((3, 5))
    cplx = real + 1j * rng.standard_normal((3, 5))
    for name in NAMES_1D:                  # (n, dim) and the Hermitian halves, odd and even
        x = real if name in ("rfft", "ihfft") else cplx
        _both(name, x, norm=norm, n=4)
        _both(name, x, norm=norm, n=7, dim=0)
    for name in NAMES_ND:
        x = real if name.startswith(("rfft", "ihfft")) else cplx
        _both(name, x, norm=norm, s=(-1, 3), dim=(-1, 0))
    _both("fft", real, norm=norm)         # real input to a complex transform
    _both("fftshift", cplx, dim=1)


def test_stft_matches_pytorch():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 40))
    window = np.hanning(10)
    for kw in ({"n_fft": 16, "hop_length": 4}, {"n_fft": 16, "win_length": 10, "normalized": True},
               {"n_fft": 9, "center": False, "onesided": False}):
        got = []
        for m in (et, torch):
            w = m.tensor(window) if kw.get("win_length") else None
            t = m.tensor(x, requires_grad=True)
            y = m.stft(t, window=w, return_complex=True, **kw)
            (g,) = m.autograd.grad(m.view_as_real(y).sum(), t)
            got.append((y.detach().numpy(), g.numpy()))
        np.testing.assert_allclose(got[0][0], got[1][0], rtol=1e-9, atol=1e-10)
        np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-9, atol=1e-10)
