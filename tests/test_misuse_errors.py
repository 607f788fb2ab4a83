"""Misuses that used to give a silent wrong number or an unclear error (issue 22, items 7
and 8): each now raises a clear exception naming the argument and what was expected, and
the neighbouring right uses keep working."""
import numpy as np
import pytest

import eagerad
import eagerad.mindspore as ms_face
import eagerad.torch as torch_face
from eagerad import nn, ops
from eagerad.data import DataLoader
from eagerad.device import Device
from eagerad.optim import lr_scheduler


def _opt():
    return nn.SGD([eagerad.Parameter(eagerad.zeros(1))], lr=0.1)


# (id, call, exception type, words the message must hold)
MISUSES = [
    # item 7: silent wrong numbers
    ("int_floordiv_zero", lambda: eagerad.tensor([3, 4]) // 0, ZeroDivisionError, "floor_divide.*by zero"),
    ("int_floordiv_zero_tensor", lambda: eagerad.tensor([3, 4]) // eagerad.tensor([1, 0]),
     ZeroDivisionError, "by zero"),
    ("int_rfloordiv_zero", lambda: 7 // eagerad.tensor([0, 1]), ZeroDivisionError, "by zero"),
    ("int_mod_zero", lambda: eagerad.tensor([3, 4]) % 0, ZeroDivisionError, "remainder.*by zero"),
    ("uint8_mod_zero", lambda: eagerad.tensor(np.array([3], np.uint8)) % eagerad.tensor(np.array([0], np.uint8)),
     ZeroDivisionError, "by zero"),
    ("float_and", lambda: eagerad.tensor([1.0]) & eagerad.tensor([1.0]), TypeError, "bitwise.*integer or bool.*float32"),
    ("float_or_scalar", lambda: eagerad.tensor([1, 2]) | 1.5, TypeError, "bitwise.*float"),
    ("float_invert", lambda: ~eagerad.tensor([1.0]), TypeError, "bitwise_not.*float32"),
    ("zeros_float_size", lambda: eagerad.zeros(2.5), TypeError, r"size must be integers.*2\.5.*float"),
    ("bce_target_above_one", lambda: ops.binary_cross_entropy(eagerad.tensor([0.5]), eagerad.tensor([1.5])),
     ValueError, "target should be between 0 and 1"),
    ("device_negative_index", lambda: Device("cpu:-1"), ValueError, "index.*non-negative.*'-1'"),
    ("device_negative_index_arg", lambda: Device("cuda", -1), ValueError, "index must be non-negative"),
    ("dataloader_negative_workers", lambda: DataLoader([1, 2], num_workers=-1), ValueError,
     "num_workers must be a non-negative int, got -1"),
    # item 8: unclear errors
    ("ones_string", lambda: eagerad.ones("a"), TypeError, "size must be integers.*'a'.*str"),
    ("sum_dim_string", lambda: eagerad.ones(2).sum(dim="a"), TypeError, "sum.*dim must be an int or a tuple of ints.*'a'"),
    ("sum_axis_float", lambda: ops.sum(eagerad.ones(2), axis=0.5), TypeError, "axis must be an int"),
    ("device_bad_index", lambda: Device("cuda:abc"), ValueError, "index after ':' must be a non-negative integer.*'abc'"),
    ("arange_zero_step", lambda: eagerad.arange(0, 10, 0), ValueError, "arange: step must be nonzero"),
    ("arange_infinite_end", lambda: eagerad.arange(0, float("inf")), ValueError, "arange: end must be finite"),
    ("arange_string", lambda: eagerad.arange(0, "a"), TypeError, "arange: end must be a number"),
    ("conv_zero_kernel_torch", lambda: torch_face.nn.Conv2d(1, 1, 0), ValueError,
     "Conv2d: kernel_size must be positive"),
    ("conv_zero_kernel_mindspore", lambda: ms_face.nn.Conv2d(1, 1, 0), ValueError,
     "Conv2d: kernel_size must be positive"),
    ("conv1d_negative_kernel", lambda: nn.Conv1d(1, 1, -2, bias=True), ValueError,
     "Conv1d: kernel_size must be positive"),
    ("steplr_zero_step", lambda: lr_scheduler.StepLR(_opt(), step_size=0), ValueError,
     "StepLR: step_size must be a positive int, got 0"),
    ("steplr_not_optimizer", lambda: lr_scheduler.StepLR(3, step_size=2), TypeError,
     "StepLR: optimizer expected.*int"),
    ("lambdalr_not_optimizer", lambda: lr_scheduler.LambdaLR("opt", lambda e: 1.0), TypeError,
     "LambdaLR: optimizer expected"),
    ("plateau_not_optimizer", lambda: lr_scheduler.ReduceLROnPlateau(None), TypeError,
     "ReduceLROnPlateau: optimizer expected"),
    ("cosine_zero_tmax", lambda: lr_scheduler.CosineAnnealingLR(_opt(), T_max=0), ValueError,
     "T_max must be a positive number"),
    ("tensor_int_overflow", lambda: eagerad.tensor(2 ** 70), OverflowError, "1180591620717411303424.*overflows int64"),
    ("tensor_uint64_overflow", lambda: eagerad.tensor(2 ** 63), OverflowError, "overflows int64"),
    ("load_state_dict_list", lambda: _opt().load_state_dict([1, 2]), TypeError,
     "load_state_dict: state_dict must be the dict returned by optimizer.state_dict.*list"),
    ("load_state_dict_wrong_keys", lambda: _opt().load_state_dict({"weight": 1}), ValueError,
     "lacks.*'state'"),
]


@pytest.mark.parametrize("call,error,words", [m[1:] for m in MISUSES], ids=[m[0] for m in MISUSES])
def test_misuse_raises_clearly(call, error, words):
    with pytest.raises(error, match=words):
        call()


def test_right_uses_next_to_the_misuses():
    t = eagerad.tensor
    assert (t([7, -7]) // 2).tolist() == [3, -4] and (t([7, -7]) % 3).tolist() == [1, 2]
    assert (t([3.0, -3.0]) // 0).tolist() == [float("inf"), float("-inf")]     # floats: IEEE
    assert (t([12, 10]) & t([10, 6])).tolist() == [8, 2] and (t([12, 10]) | 1).tolist() == [13, 11]
    assert (t([12, 10]) ^ t([10, 6])).tolist() == [6, 12] and (~t([5, -1])).tolist() == [-6, 0]
    assert (t([True, False]) & t([True, True])).tolist() == [True, False]
    assert (~t([True, False])).tolist() == [False, True]
    assert eagerad.zeros(np.int64(2), 3).shape == (2, 3)
    assert Device("cuda", 1) == "cuda:1" and Device("cpu:0").index == 0
    assert eagerad.arange(0, 1, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75]
    assert eagerad.tensor(2 ** 70, dtype=eagerad.float64).item() == float(2 ** 70)
    assert eagerad.tensor([1, 2 ** 63 - 1]).tolist() == [1, 2 ** 63 - 1]
    assert eagerad.tensor(-2 ** 63).item() == -2 ** 63


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.int32, np.int64, np.bool_])
def test_integer_sums_are_int64_as_pytorch(dtype):
    x = eagerad.tensor(np.array([100, 27, 1], dtype=dtype) if dtype != np.bool_ else
                       np.array([True, True, False]))
    total = x.sum()
    assert total.dtype == eagerad.int64
    assert total.item() == int(np.array(x.numpy(), np.int64).sum())
    assert ops.sum(x, dtype=eagerad.int32).dtype == eagerad.int32


def test_grad_assignment_checks_shape_dtype_and_device():
    w = eagerad.Parameter(eagerad.zeros(2))
    with pytest.raises(ValueError, match=r"grad of shape \(3,\) does not match tensor shape \(2,\)"):
        w.grad = eagerad.zeros(3)
    with pytest.raises(TypeError, match="grad of dtype float64 does not match tensor dtype float32"):
        w.grad = eagerad.zeros(2, dtype=eagerad.float64)
    w.grad = eagerad.ones(2)
    assert w.grad.tolist() == [1.0, 1.0]


CUDA_SCRIPT = """
import io, json
import numpy as np
import eagerad
from eagerad.ops.losses import binary_cross_entropy
from eagerad.serialization import load, save
P = [0.2, 0.9, 0.6, 0.3]
out = {}
w = eagerad.zeros(2, device="cuda").requires_grad_(True)
try:
    w.grad = eagerad.zeros(2)
except RuntimeError as err:
    out["grad_error"] = str(err)
w.grad = eagerad.ones(2, device="cuda")
out["grad_ok"] = w.grad.tolist()
a, b = eagerad.tensor([12, 10], device="cuda"), eagerad.tensor([10, 6], device="cuda")
out["bitwise"] = [(a & b).tolist(), (a | b).tolist(), (a ^ b).tolist(), (~a).tolist()]
buf = io.BytesIO(); save({"w": eagerad.tensor([1.5, 2.5], device="cuda")}, buf)
buf.seek(0); back = load(buf)["w"]
buf.seek(0); cpu = load(buf, map_location="cpu")["w"]
out["load"] = [str(back.device), back.tolist(), str(cpu.device)]
p = eagerad.tensor(P, device="cuda", requires_grad=True)   # (the simulator's log(0) raises)
t = eagerad.tensor([0.0, 1.0, 0.0, 1.0], device="cuda")
loss = binary_cross_entropy(p, t, reduction="sum"); loss.backward()
out["bce"] = [loss.item(), p.grad.tolist()]
print("RELIAB", json.dumps(out))
"""


def test_cuda_grad_device_bitwise_save_load_and_bce_on_the_simulator():
    from simulator_run import run_on_simulator
    out = run_on_simulator(CUDA_SCRIPT, "RELIAB")
    assert "grad on device cpu does not match tensor device cuda:0" in out["grad_error"]
    assert out["grad_ok"] == [1.0, 1.0]
    assert out["bitwise"] == [[8, 2], [14, 14], [6, 12], [-13, -11]]
    assert out["load"] == ["cuda:0", [1.5, 2.5], "cpu"]
    loss, grad = out["bce"]
    cpu_p = eagerad.tensor([0.2, 0.9, 0.6, 0.3], requires_grad=True)
    cpu_loss = ops.binary_cross_entropy(cpu_p, eagerad.tensor([0.0, 1.0, 0.0, 1.0]), reduction="sum")
    cpu_loss.backward()
    assert loss == pytest.approx(cpu_loss.item(), rel=1e-6)
    np.testing.assert_allclose(grad, cpu_p.grad.numpy(), rtol=1e-6)
