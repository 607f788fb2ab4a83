"""Files written by PyTorch's own ``torch.save`` load with ``eagerad.torch.load`` (no
PyTorch needed to read them, no code run from them): state dicts into eagerad modules
with equal outputs, optimizer state that continues training as PyTorch does, dtypes,
views and parameters; a pickle needing any other global is refused before it runs."""
import numpy as np
import pytest

import eagerad.torch as torch

pt = pytest.importorskip("torch")


def test_state_dict_from_pytorch_gives_the_same_outputs(tmp_path):
    pt.manual_seed(0)
    net = pt.nn.Sequential(pt.nn.Conv2d(1, 3, 3), pt.nn.BatchNorm2d(3), pt.nn.ReLU(),
                           pt.nn.Flatten(), pt.nn.Linear(3 * 4 * 4, 2))
    net(pt.randn(4, 1, 6, 6))                    # moves BatchNorm's running statistics
    pt.save(net.state_dict(), tmp_path / "net.pt")
    mine = torch.nn.Sequential(torch.nn.Conv2d(1, 3, 3), torch.nn.BatchNorm2d(3), torch.nn.ReLU(),
                               torch.nn.Flatten(), torch.nn.Linear(3 * 4 * 4, 2))
    mine.load_state_dict(torch.load(tmp_path / "net.pt"))
    net.eval(), mine.eval()
    x = np.random.default_rng(1).standard_normal((2, 1, 6, 6)).astype(np.float32)
    np.testing.assert_allclose(mine(torch.tensor(x)).detach().numpy(),
                               net(pt.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_dtypes_views_parameters_and_nesting(tmp_path):
    base = pt.arange(10.0, dtype=pt.float64)
    pt.save({"view": base[2:8:2], "base": base, "half": pt.tensor([0.5], dtype=pt.float16),
             "bf16": pt.tensor([1.5, -2.0], dtype=pt.bfloat16), "long": pt.tensor([2 ** 40]),
             "flag": pt.tensor([True, False]), "param": pt.nn.Parameter(pt.ones(2)),
             "meta": [1, (2.5, "x"), None]}, tmp_path / "mix.pt")
    d = torch.load(tmp_path / "mix.pt", map_location="cpu")
    assert d["view"].tolist() == [2.0, 4.0, 6.0] and d["base"].shape == (10,)
    assert d["half"].dtype == torch.float16 and d["bf16"].tolist() == [1.5, -2.0]
    assert d["long"].tolist() == [2 ** 40] and d["flag"].tolist() == [True, False]
    assert isinstance(d["param"], torch.nn.Parameter) and d["param"].requires_grad
    assert d["meta"] == [1, (2.5, "x"), None]


def test_optimizer_state_from_pytorch_continues_training_alike(tmp_path):
    pt.manual_seed(0)
    net = pt.nn.Linear(3, 1)
    opt = pt.optim.Adam(net.parameters(), lr=0.1)
    x, y = pt.randn(8, 3), pt.randn(8, 1)
    for _ in range(3):
        opt.zero_grad()
        pt.nn.functional.mse_loss(net(x), y).backward()
        opt.step()
    pt.save({"model": net.state_dict(), "opt": opt.state_dict()}, tmp_path / "ckpt.pt")
    ckpt = torch.load(tmp_path / "ckpt.pt")
    mine = torch.nn.Linear(3, 1)
    mine.load_state_dict(ckpt["model"])
    my_opt = torch.optim.Adam(mine.parameters(), lr=0.1)
    my_opt.load_state_dict(ckpt["opt"])
    for _ in range(2):
        opt.zero_grad()
        pt.nn.functional.mse_loss(net(x), y).backward()
        opt.step()
        my_opt.zero_grad()
        torch.nn.functional.mse_loss(mine(torch.tensor(x.numpy())), torch.tensor(y.numpy())).backward()
        my_opt.step()
    np.testing.assert_allclose(mine.weight.detach().numpy(), net.weight.detach().numpy(), rtol=1e-5)


class _Payload:
    def __reduce__(self):
        return (print, ("code from the file ran",))


def test_a_pickled_object_is_refused_before_it_runs(tmp_path, capsys):
    pt.save({"w": pt.ones(1), "x": _Payload()}, tmp_path / "evil.pt")
    with pytest.raises(Exception, match="print, which eagerad does not load"):
        torch.load(tmp_path / "evil.pt")
    assert "code from the file ran" not in capsys.readouterr().out
