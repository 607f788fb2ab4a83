"""The mistakes users make, fed to the public entry points: each gives a clear
Python exception whose message names the argument (and shapes/dtypes), and the
session carries on normally afterwards."""
import numpy as np
import pytest

import eagerad
from eagerad import autograd, ops


def _leaf(*values):
    return eagerad.tensor(list(values), requires_grad=True)


def _twice_backward():
    a = _leaf(1.0, 2.0)
    loss = (a * a).sum()
    loss.backward()
    loss.backward()


def _mixed_devices():
    problem = eagerad.context.cuda_problem()
    if problem is not None:                      # no GPU: asking for one is the error
        eagerad.tensor([1.0], device="cuda")
    eagerad.ones(2) + eagerad.ones(2, device="cuda")


CASES = {
    # wrong shapes
    "matmul shapes": (lambda: eagerad.ones(2, 3) @ eagerad.ones(4, 5), ValueError,
                      r"matmul.*\(2, 3\).*\(4, 5\)"),
    "broadcast shapes": (lambda: eagerad.ones(2, 3) + eagerad.ones(4, 5), ValueError,
                         r"add.*\(2, 3\).*\(4, 5\)"),
    "reshape size": (lambda: eagerad.ones(2, 3).reshape(7), ValueError, r"6 elements.*\(7,\)"),
    "concat shapes": (lambda: ops.concat([eagerad.ones(2, 3), eagerad.ones(4, 5)]), ValueError,
                      r"concat: tensor 1 has shape \(4, 5\)"),
    "gradient shape": (lambda: (_leaf(1.0, 2.0) * 2).backward(eagerad.ones(3)), RuntimeError,
                       r"gradient for output 0 has shape \(3,\).*\(2,\)"),
    "non-scalar backward": (lambda: (_leaf(1.0, 2.0) * 2).backward(), RuntimeError,
                            r"shape \(2,\); pass gradient="),
    "inplace shape": (lambda: eagerad.zeros(2).add_(eagerad.ones(3)), ValueError,
                      r"add_: other of shape \(3,\)"),
    "item of many": (lambda: eagerad.ones(2, 3).item(), ValueError, r"item\(\).*\(2, 3\)"),
    # dtypes
    "int requires grad": (lambda: eagerad.tensor([1, 2], requires_grad=True), RuntimeError,
                          r"floating point.*int64"),
    "int requires_grad_": (lambda: eagerad.arange(3).requires_grad_(), RuntimeError,
                           r"floating point.*int64"),
    "unknown dtype": (lambda: eagerad.zeros(2, dtype="floaty"), TypeError, r"dtype.*'floaty'"),
    "int inplace float": (lambda: eagerad.arange(3).mul_(0.5), TypeError, r"mul_.*dtype int64"),
    # graph misuse
    "backward twice": (_twice_backward, RuntimeError, r"second time.*retain_graph=True"),
    "no grad_fn": (lambda: autograd.grad(eagerad.ones(2).sum(), eagerad.ones(2)), RuntimeError,
                   r"does not require grad"),
    "unused input": (lambda: autograd.grad((_leaf(1.0) * 2).sum(), _leaf(3.0)), RuntimeError,
                     r"inputs\[0\].*allow_unused=True"),
    "leaf inplace": (lambda: _leaf(1.0).add_(1.0), RuntimeError, r"leaf tensor.*no_grad"),
    "hook on constant": (lambda: eagerad.ones(2).register_hook(print), RuntimeError,
                         r"register_hook.*does not require grad"),
    # non-tensor inputs
    "grad inputs non-tensor": (lambda: autograd.grad((_leaf(1.0) * 2).sum(), [_leaf(1.0), 3]),
                               TypeError, r"inputs\[1\] must be a Tensor, got int"),
    "grad outputs non-tensor": (lambda: autograd.grad([2.0], [_leaf(1.0)]), TypeError,
                                r"outputs\[0\] must be a Tensor, got float"),
    "string tensor": (lambda: eagerad.tensor("abc"), TypeError, r"'abc'.*numbers"),
    "ragged tensor": (lambda: eagerad.tensor([[1, 2], [3]]), TypeError, r"from list"),
    "string operand": (lambda: eagerad.ones(2) + "a", TypeError, r"unsupported operand 'a'"),
    "viz non-tensor": (lambda: eagerad.viz.to_dot([1.0]), TypeError, r"tensor 0 is float"),
    # axes and options
    "sum axis": (lambda: eagerad.ones(2, 3).sum(axis=5), ValueError, r"axis=5.*2 dimensions"),
    "softmax axis": (lambda: ops.softmax(eagerad.ones(2, 3), axis=4), ValueError, r"axis=4"),
    "transpose axes": (lambda: eagerad.ones(2, 3).transpose((0, 3)), ValueError, r"axes=\(0, 3\)"),
    "cross_entropy reduction": (lambda: ops.cross_entropy(eagerad.ones(2, 3), eagerad.tensor([0, 1]),
                                                          reduction="avg"),
                                ValueError, r"reduction='avg'.*'mean'"),
    "cross_entropy labels": (lambda: ops.cross_entropy(eagerad.ones(2, 3), eagerad.tensor([0, 1, 2])),
                             ValueError, r"labels of shape \(3,\).*\(2,\)"),
    "clip without bounds": (lambda: ops.clip_by_value(eagerad.ones(2)), ValueError, r"clip_value_min"),
    # devices
    "mixed devices": (_mixed_devices, RuntimeError, r"cuda|device"),
}


def _transforms_cases():
    """MindSpore-face cases, when eagerad.grad / GradOperation exist."""
    cases = {}
    if hasattr(eagerad, "grad"):
        double = lambda a: a * 2          # noqa: E731
        cases.update({
            "grad_position range": (lambda: eagerad.grad(double, grad_position=3)(eagerad.ones(2)),
                                    ValueError, r"grad_position"),
            "grad_position None": (lambda: eagerad.grad(double, grad_position=None)(eagerad.ones(2)),
                                   ValueError, r"grad_position"),
            "grad non-tensor arg": (lambda: eagerad.grad(double)("abc"), TypeError,
                                    r"grad_position 0.*str"),
        })
    if hasattr(ops, "GradOperation"):
        cases["sens shape"] = (lambda: ops.GradOperation(sens_param=True)(lambda a: a * 2)(
            eagerad.ones(2), eagerad.ones(3)), ValueError, r"sens.*\(3,\).*\(2,\)")
    return cases


ALL = {**CASES, **_transforms_cases()}


def _session_still_works():
    assert eagerad.is_grad_enabled() and not autograd.is_anomaly_enabled()
    x = eagerad.tensor([1.0, 2.0], dtype=eagerad.float64, requires_grad=True)
    (x ** 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 12.0])


@pytest.mark.parametrize("name", sorted(ALL))
def test_mistake_gives_clear_error_and_session_continues(name):
    action, error, words = ALL[name]
    with pytest.raises(error, match=words) as info:
        action()
    # never a Numba typing/lowering error leaking through (naming the numba-cuda
    # package in an install hint is fine)
    assert not type(info.value).__module__.startswith("numba")
    assert not any(w in str(info.value) for w in ("TypingError", "nopython", "Failed in "))
    _session_still_works()


@pytest.mark.parametrize("index, words", [(5, r"shape \(2, 3\)"), (0.5, r"0.5"),
                                          ("a", r"'a'")])
def test_bad_index_is_an_index_error_naming_it(index, words):
    """Indexing mistakes are IndexError, Python's convention (a LookupError)."""
    with pytest.raises(IndexError, match=words):
        eagerad.ones(2, 3)[index]
    _session_still_works()


def test_errors_inside_no_grad_restore_grad_mode():
    with pytest.raises(ValueError):
        with eagerad.no_grad():
            eagerad.ones(2) + eagerad.ones(3)
    _session_still_works()
