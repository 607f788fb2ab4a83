"""Checkpoints: bit-exact round trip, exact file path, clear errors for bad files and
mismatched parameters, PyTorch-style state_dict."""
import numpy as np
import pytest

import eagerad
from eagerad import nn


def make_net(seed):
    eagerad.set_seed(seed)
    net = nn.SequentialCell(nn.Dense(4, 8), nn.Tanh(), nn.Dense(8, 3, dtype=eagerad.float64))
    net.steps = eagerad.Parameter(eagerad.Tensor(np.array([7], np.int32)), requires_grad=False)
    return net


def test_round_trip_is_bit_exact(tmp_path):
    src, dst = make_net(0), make_net(1)
    path = tmp_path / "model.ckpt"
    eagerad.save_checkpoint(src, str(path))
    assert path.exists() and not (tmp_path / "model.ckpt.npz").exists()
    params = eagerad.load_checkpoint(str(path))
    assert list(params) == ["steps", "0.weight", "0.bias", "2.weight", "2.bias"]
    assert isinstance(params["0.weight"], eagerad.Parameter) and params["0.weight"].name == "0.weight"
    assert not np.array_equal(dst[0].weight.numpy(), src[0].weight.numpy())
    weight_buffer = dst[0].weight.numpy()
    assert eagerad.load_param_into_net(dst, params) == ([], [])
    for (name, a), (_, b) in zip(src.parameters_and_names(), dst.parameters_and_names()):
        assert a.dtype == b.dtype and a.numpy().tobytes() == b.numpy().tobytes(), name
    assert dst[2].weight.dtype == np.float64 and dst.steps.dtype == np.int32
    assert weight_buffer is dst[0].weight.numpy()     # loaded in place
    x = eagerad.randn(2, 4)
    assert np.array_equal(src(x).numpy(), dst(x).numpy())


def test_save_dict_and_mindspore_list(tmp_path):
    path = str(tmp_path / "list.ckpt")
    eagerad.save_checkpoint([{"name": "w", "data": eagerad.tensor([1.5, 2.5])}], path)
    assert eagerad.load_checkpoint(path)["w"].tolist() == [1.5, 2.5]
    eagerad.save_checkpoint({"b": np.arange(3)}, path)
    assert eagerad.load_checkpoint(path)["b"].tolist() == [0, 1, 2]
    with pytest.raises(TypeError, match="save_obj"):
        eagerad.save_checkpoint(42, path)


def test_missing_and_bad_files(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.ckpt"):
        eagerad.load_checkpoint(str(tmp_path / "nope.ckpt"))
    bad = tmp_path / "bad.ckpt"
    bad.write_bytes(b"this is not a checkpoint")
    with pytest.raises(ValueError, match="bad.ckpt.*not an eagerad checkpoint"):
        eagerad.load_checkpoint(str(bad))
    npy = tmp_path / "single.npy"
    np.save(npy, np.ones(3))
    with pytest.raises(ValueError, match="not an eagerad checkpoint"):
        eagerad.load_checkpoint(str(npy))


def test_shape_mismatch_names_parameter_and_shapes(tmp_path):
    path = str(tmp_path / "small.ckpt")
    eagerad.save_checkpoint(nn.Dense(4, 8), path)
    target = nn.Dense(4, 5)
    before = target.weight.numpy().copy()
    with pytest.raises(ValueError, match=r"'weight'.*\(5, 4\).*\(8, 4\)"):
        eagerad.load_param_into_net(target, eagerad.load_checkpoint(path))
    assert np.array_equal(target.weight.numpy(), before)   # nothing half-loaded


def test_missing_and_unexpected_names():
    net = nn.Dense(2, 1)
    partial = {"weight": eagerad.ones(1, 2), "extra": eagerad.ones(3)}
    assert eagerad.load_param_into_net(net, partial) == (["bias"], ["extra"])
    assert net.weight.tolist() == [[1.0, 1.0]]
    with pytest.raises(ValueError, match=r"missing from the checkpoint: \['bias'\].*\['extra'\]"):
        eagerad.load_param_into_net(net, partial, strict_load=True)


def test_state_dict_round_trip():
    src, dst = nn.Linear(3, 2), nn.Linear(3, 2)
    state = src.state_dict()
    assert list(state) == ["weight", "bias"] and not state["weight"].requires_grad
    dst.load_state_dict(state)
    assert np.array_equal(dst.weight.numpy(), src.weight.numpy())
    with pytest.raises(RuntimeError, match="missing"):         # as PyTorch
        dst.load_state_dict({"weight": state["weight"]})
