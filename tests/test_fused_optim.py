"""The optimizers' array-level updates (``update_arrays``, issue 23) give the numbers of
their Tensor-op updates to the bit, step after step, and state_dict still round-trips."""
import numpy as np
import pytest

import eagerad
from eagerad import nn

SETTINGS = [
    (nn.Adam, dict(lr=0.01, betas=(0.9, 0.99), eps=1e-8, weight_decay=0.0)),
    (nn.Adam, dict(lr=0.01, betas=(0.8, 0.9), eps=1e-6, weight_decay=0.1)),
    (nn.AdamW, dict(lr=0.01, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1)),
    (nn.SGD, dict(lr=0.1, momentum=0.0, weight_decay=0.0)),
    (nn.SGD, dict(lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01)),
    (nn.SGD, dict(lr=0.1, momentum=0.9, nesterov=True)),
    (nn.Adam, dict(lr=0.01, maximize=True, weight_decay=0.05)),
    (nn.AdamW, dict(lr=0.02, maximize=True)),
    (nn.SGD, dict(lr=0.1, momentum=0.5, maximize=True, weight_decay=0.1)),
]


def _run(cls, kwargs, dtype, arrays_path):
    rng = np.random.default_rng(0)
    params = [eagerad.Parameter(eagerad.tensor(rng.standard_normal(s).astype(dtype)))
              for s in ((3, 4), (4,), (37, 29))]     # (37, 29): vector loop and remainder
    opt = cls(params, **kwargs)
    if not arrays_path:
        opt.update_arrays = lambda *a: False
    for _ in range(3):
        grads = tuple(eagerad.tensor(rng.standard_normal(p.shape).astype(dtype)) for p in params)
        opt(grads)
    return [p.numpy().copy() for p in params], opt


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("cls,kwargs", SETTINGS)
def test_array_update_equals_tensor_update_bitwise(cls, kwargs, dtype):
    fast, opt = _run(cls, kwargs, dtype, True)
    slow, ref = _run(cls, kwargs, dtype, False)
    for a, b in zip(fast, slow):
        np.testing.assert_array_equal(a, b)
    for p, q in zip(opt.parameters, ref.parameters):
        for key, value in ref.state[q].items():
            got = opt.state[p][key]
            if isinstance(value, eagerad.Tensor):
                np.testing.assert_array_equal(got.numpy(), value.numpy())
            else:
                assert got == value


def test_array_update_bumps_the_version_and_matches_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    w0 = rng.standard_normal((5,))
    w = eagerad.Parameter(eagerad.tensor(w0))
    tw = torch.tensor(w0, requires_grad=True)
    opt = nn.AdamW([w], lr=0.05, betas=(0.9, 0.99), eps=1e-8, weight_decay=0.2)
    topt = torch.optim.AdamW([tw], lr=0.05, betas=(0.9, 0.99), eps=1e-8, weight_decay=0.2)
    for _ in range(4):
        g = rng.standard_normal(5)
        before = w.version
        opt((eagerad.tensor(g),))
        assert w.version == before + 1
        tw.grad = torch.tensor(g)
        topt.step()
    np.testing.assert_allclose(w.numpy(), tw.detach().numpy(), rtol=1e-12)


def test_state_dict_resumes_after_array_updates():
    w = eagerad.Parameter(eagerad.tensor([1.0, 2.0]))
    opt = nn.Adam([w], lr=0.1)
    opt((eagerad.tensor([1.0, -1.0]),))
    saved = opt.state_dict()
    opt((eagerad.tensor([0.5, 0.5]),))
    assert saved["state"][0]["exp_avg"].tolist() == pytest.approx([0.1, -0.1])
    w2 = eagerad.Parameter(eagerad.tensor(w.numpy()))
    opt2 = nn.Adam([w2], lr=0.1)
    opt2.load_state_dict(opt.state_dict())
    opt((eagerad.tensor([0.3, 0.1]),))
    opt2((eagerad.tensor([0.3, 0.1]),))
    np.testing.assert_array_equal(w.numpy(), w2.numpy())


@pytest.mark.parametrize("name,kwargs", [
    ("Adam", dict(lr=1e-3, betas=(0.9, 0.999), eps=1e-8)),
    ("AdamW", dict(lr=1e-3, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1)),
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)),
    ("Adam", dict(lr=1e-2, weight_decay=0.1, maximize=True))])
def test_float32_updates_follow_torch_over_several_steps(name, kwargs):
    """The one-pass kernels against PyTorch's optimizers on float32 parameters."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    w0 = [rng.standard_normal(s).astype(np.float32) for s in ((64, 48), (48,))]
    ws = [eagerad.Parameter(eagerad.tensor(a)) for a in w0]
    tws = [torch.tensor(a, requires_grad=True) for a in w0]
    opt = getattr(nn, name)(ws, **kwargs)
    topt = getattr(torch.optim, name)(tws, **kwargs)
    for _ in range(6):
        for w, tw in zip(ws, tws):
            g = rng.standard_normal(w.shape).astype(np.float32)
            w.grad, tw.grad = eagerad.tensor(g), torch.tensor(g)
        opt.step()
        topt.step()
    for w, tw in zip(ws, tws):
        np.testing.assert_allclose(w.numpy(), tw.detach().numpy(), rtol=1e-6, atol=1e-6)
