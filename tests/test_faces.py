"""Issue 19's "Done when": each face follows its own framework where PyTorch and MindSpore
read a name differently, the neutral top level refuses those names, and nothing about
one face leaks into the other (fresh processes where the old bug was process-wide).

The last two tests walk the semantics tables in ``eagerad.torch``'s and
``eagerad.mindspore``'s docstrings: one check per row, asserting both faces' meaning.
"""
import math
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import eagerad
import eagerad.mindspore as ms
import eagerad.torch as torch

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = [1.0, 2.0, 3.0, 4.0]          # mean 2.5, sum of squared deviations 5
UNBIASED_STD, BIASED_STD = math.sqrt(5 / 3), math.sqrt(5 / 4)


def _fresh(code):
    """Run ``code`` in a new interpreter (no face imported before it) and return stdout."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _zero_fraction(layer, x):
    return float((layer(x).numpy() == 0).mean())


# ------------------------------------------------------------------ Dropout

def test_dropout_positional_argument_is_p_in_torch_and_keep_prob_in_mindspore():
    assert torch.nn.Dropout(0.2).p == 0.2
    assert ms.nn.Dropout(0.8).p == pytest.approx(0.2)
    torch.manual_seed(0)
    assert abs(_zero_fraction(torch.nn.Dropout(0.2), torch.ones(20000)) - 0.2) < 0.02
    ms.set_seed(0)
    cell = ms.nn.Dropout(0.8)
    cell.set_train()
    assert abs(_zero_fraction(cell, ms.ops.ones(20000)) - 0.2) < 0.02


def test_torch_dropout_zero_keeps_everything():
    x = torch.tensor([1.0, -2.0, 3.0])
    assert torch.nn.Dropout(0.0)(x).tolist() == [1.0, -2.0, 3.0]


# ------------------------------------------------------------------ std / var

def test_std_var_defaults_per_face():
    t, m = torch.tensor(DATA), ms.Tensor(DATA)
    assert t.std().item() == pytest.approx(UNBIASED_STD) and t.var().item() == pytest.approx(5 / 3)
    assert t.std(0).item() == pytest.approx(UNBIASED_STD)
    assert torch.std(t).item() == pytest.approx(UNBIASED_STD)
    assert torch.var(t).item() == pytest.approx(5 / 3)
    assert m.std().item() == pytest.approx(BIASED_STD) and m.var().item() == pytest.approx(5 / 4)
    assert m.std(0).item() == pytest.approx(BIASED_STD)
    assert ms.ops.std(m).item() == pytest.approx(BIASED_STD)
    assert m.std(ddof=1).item() == pytest.approx(UNBIASED_STD)


def test_torch_std_positional_unbiased():
    t = torch.tensor(DATA)
    assert torch.std(t, True).item() == pytest.approx(UNBIASED_STD)
    assert torch.std(t, False).item() == pytest.approx(BIASED_STD)
    assert t.std(False).item() == pytest.approx(BIASED_STD)
    assert torch.var(t, False).item() == pytest.approx(5 / 4)
    assert torch.std(torch.tensor([DATA, DATA]), 1, False).tolist() == \
        pytest.approx([BIASED_STD, BIASED_STD])


# ------------------------------------------------------------------ max / min along a dim

@pytest.mark.parametrize("make", [torch.tensor, ms.Tensor], ids=["torch", "mindspore"])
def test_max_min_along_a_dim_are_value_index_pairs(make):
    x = make([[1.0, 5.0, 2.0], [7.0, 2.0, 3.0]])
    values, indices = x.max(1)
    assert values.tolist() == [5.0, 7.0] and indices.tolist() == [1, 0]
    assert x.max(1)[1].tolist() == [1, 0]          # out.max(1)[1]: the indices
    values, indices = x.min(1)
    assert values.tolist() == [1.0, 2.0] and indices.tolist() == [0, 1]


def test_module_level_max_min_per_face():
    x = torch.tensor([[1.0, 5.0], [7.0, 2.0]])
    assert torch.max(x, 1).indices.tolist() == [1, 0] and torch.min(x, 0).values.tolist() == [1.0, 2.0]
    y = ms.Tensor([[1.0, 5.0], [7.0, 2.0]])
    values, indices = ms.ops.max(y, 1)
    assert values.tolist() == [5.0, 7.0] and indices.tolist() == [1, 0]
    values, indices = ms.ops.min(y, 1)
    assert values.tolist() == [1.0, 2.0] and indices.tolist() == [0, 1]


# ------------------------------------------------------------------ Conv2d / BatchNorm

def test_conv2d_defaults_per_face():
    t = torch.nn.Conv2d(1, 4, 3)
    assert [n for n, _ in t.named_parameters()] == ["weight", "bias"]
    with torch.no_grad():
        t.weight.fill_(1.0)
        t.bias.fill_(0.5)
    out = t(torch.ones(1, 1, 5, 5))
    assert tuple(out.shape) == (1, 4, 3, 3)                      # padding 0
    assert out.detach().numpy().ravel().tolist() == [9.5] * 36     # 3x3 ones + bias

    m = ms.nn.Conv2d(1, 4, 3)
    assert [p.name for p in m.get_parameters()] == ["weight"]      # has_bias=False
    m.weight.set_data(ms.ops.ones((4, 1, 3, 3)))
    out = m(ms.ops.ones((1, 1, 5, 5))).numpy()
    assert out.shape == (1, 4, 5, 5)                                # pad_mode='same'
    assert out[0, 0, 0, 0] == 4.0 and out[0, 0, 2, 2] == 9.0 and out[0, 0, 0, 2] == 6.0


def test_batchnorm_parameter_names_and_defaults_per_face():
    t = torch.nn.BatchNorm2d(3)
    assert [n for n, _ in t.named_parameters()] == ["weight", "bias"]
    assert list(t.state_dict())[:4] == ["weight", "bias", "running_mean", "running_var"]
    assert t.momentum == pytest.approx(0.1) and t.eps == pytest.approx(1e-5) and t.training
    m = ms.nn.BatchNorm2d(3)
    assert [p.name for p in m.get_parameters()] == ["moving_mean", "moving_variance", "gamma",
                                                   "beta"]     # MindSpore 2.10's order
    assert [p.name for p in m.trainable_params()] == ["gamma", "beta"]
    assert m.eps == pytest.approx(1e-5) and not m.training
    # one training step moves the running mean by the same amount in both (0.1 of the way)
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 2, 2)
    t(torch.tensor(x))
    m.set_train()
    m(ms.Tensor(x))
    want = 0.1 * x.mean(axis=(0, 2, 3))
    np.testing.assert_allclose(t.running_mean.detach().numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(m.moving_mean.numpy(), want, rtol=1e-6)


# ------------------------------------------------------------------ Parameter.data

def test_torch_parameter_data_is_outside_the_graph():
    p = torch.nn.Parameter(torch.tensor([3.0]))
    y = (p.data * p).sum()
    y.backward()
    assert p.grad.tolist() == [3.0] == p.data.tolist()            # 3 stays 3, not 6
    assert not p.data.requires_grad and p.data.grad_fn is None
    p.data.mul_(2)                                                  # the same buffer
    assert p.tolist() == [6.0]


def test_mindspore_parameter_data_is_the_parameter():
    q = ms.Parameter(ms.Tensor([3.0]), name="q")
    assert q.data is q
    (g,) = ms.grad(lambda x: (q.data * q * x).sum(), None, [q])(ms.Tensor([1.0]))
    assert g.tolist() == [6.0]                                      # d(q * q)/dq


def test_torch_data_assignment_takes_the_dtype():
    p = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    p.data = torch.tensor([1.0, 2.0]).double()
    assert p.dtype == torch.float64 and p.tolist() == [1.0, 2.0] and p.requires_grad
    q = ms.Parameter(ms.Tensor([1.0, 2.0]), name="q")
    q.set_data(ms.Tensor(np.array([3.0, 4.0])))                    # MindSpore keeps float32
    assert q.dtype == ms.float32 and q.tolist() == [3.0, 4.0]


def test_torch_tensor_of_float64_data_is_float32():
    data = np.array([1.5, 2.5], np.float64)
    assert torch.Tensor(data).dtype == torch.float32 and torch.Tensor(data).tolist() == [1.5, 2.5]
    assert torch.tensor(data).dtype == torch.float64                # torch.tensor keeps it
    assert ms.Tensor(data).dtype == ms.float64


# ------------------------------------------------------------------ buffers, diagonal view

def test_torch_batchnorm_running_statistics_are_buffers_not_parameters():
    net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.BatchNorm1d(2))
    assert len(list(net.parameters())) == 4                       # 2 weights + 2 biases
    assert [n for n, _ in net.named_buffers()] == ["1.running_mean", "1.running_var",
                                                   "1.num_batches_tracked"]


def test_torch_diagonal_is_a_writable_view():
    K = torch.zeros(3, 3)
    K.diagonal().add_(1e-3)
    assert K.numpy().tolist() == (np.eye(3, dtype=np.float32) * np.float32(1e-3)).tolist()


# ------------------------------------------------------------------ fresh processes

def test_shape_numel_in_a_fresh_process():
    out = _fresh("import eagerad.torch as torch; s = torch.zeros(2, 3).shape; "
                 "print(s.numel(), repr(s))")
    assert out.split("\n")[0] == "6 torch.Size([2, 3])"
    out = _fresh("import eagerad.mindspore as ms; s = ms.ops.zeros((2, 3)).shape; "
                 "print(s.numel(), repr(s))")
    assert out.split("\n")[0] == "6 (2, 3)"


def test_printing_unchanged_by_the_other_faces_constructor_in_a_fresh_process():
    out = _fresh("import eagerad.torch as torch, eagerad.mindspore as ms\n"
                 "a = torch.tensor([1.0, 2.0])\n"
                 "ms.Tensor([1.0]); ms.Parameter(ms.Tensor([1.0]), name='w'); ms.set_seed(0)\n"
                 "print(repr(a)); print(repr(a * 2)); print(repr(torch.ones(1)))")
    assert out.splitlines() == ["tensor([1., 2.])", "tensor([2., 4.])", "tensor([1.])"]
    out = _fresh("import eagerad.torch as torch, eagerad.mindspore as ms\n"
                 "b = ms.Tensor([1.0, 2.0])\n"
                 "torch.Tensor([1.0]); torch.tensor(1.0); torch.manual_seed(0)\n"
                 "print(repr(b)); print(repr(b * 2)); print(repr(ms.ops.ones(1)))")
    assert out.splitlines() == [
        "Tensor(shape=[2], dtype=Float32, value= [ 1.00000000e+00,  2.00000000e+00])",
        "Tensor(shape=[2], dtype=Float32, value= [ 2.00000000e+00,  4.00000000e+00])",
        "Tensor(shape=[1], dtype=Float32, value= [ 1.00000000e+00])"]


# ------------------------------------------------------------------ the neutral top level

@pytest.mark.parametrize("call", [
    lambda: eagerad.nn.Dropout(0.2),
    lambda: eagerad.tensor(DATA).std(),
    lambda: eagerad.tensor(DATA).var(),
    lambda: eagerad.tensor([DATA, DATA]).std(0),
    lambda: eagerad.std(eagerad.tensor(DATA)),
    lambda: eagerad.nn.Conv2d(1, 4, 3),
    lambda: eagerad.nn.BatchNorm2d(3),
    lambda: eagerad.nn.LayerNorm(4),
    lambda: eagerad.nn.Embedding(4, 4),
    lambda: eagerad.nn.MaxPool2d(2),
    lambda: eagerad.nn.AvgPool2d(2),
    lambda: eagerad.nn.LeakyReLU(),
    lambda: eagerad.nn.GELU(),
    lambda: eagerad.nn.SmoothL1Loss(),
    lambda: eagerad.meshgrid(eagerad.ones(2), eagerad.ones(3)),
], ids=["Dropout(0.2)", "x.std()", "x.var()", "x.std(0)", "eagerad.std(x)", "Conv2d(1, 4, 3)",
        "BatchNorm2d(3)", "LayerNorm(4)", "Embedding(4, 4)", "MaxPool2d(2)", "AvgPool2d(2)",
        "LeakyReLU()", "GELU()", "SmoothL1Loss()", "meshgrid"])
def test_neutral_top_level_refuses_colliding_names_naming_both_faces(call):
    with pytest.raises(TypeError) as info:
        call()
    text = str(info.value)
    assert "PyTorch" in text and "MindSpore" in text
    assert "eagerad.torch" in text and "eagerad.mindspore" in text


def test_neutral_top_level_with_explicit_arguments_works():
    assert eagerad.nn.Dropout(p=0.2).p == 0.2 and eagerad.nn.Dropout(keep_prob=0.8).p == \
        pytest.approx(0.2)
    assert eagerad.tensor(DATA).std(ddof=1).item() == pytest.approx(UNBIASED_STD)
    assert eagerad.tensor(DATA).var(correction=0).item() == pytest.approx(5 / 4)
    assert eagerad.nn.Conv2d(1, 4, 3, bias=False).weight.shape == (4, 1, 3, 3)


def test_getframe_only_in_anomaly_mode_and_the_cuda_launch_guard():
    hits = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "eagerad").rglob("*.py")
                  if "_getframe" in p.read_text(encoding="utf-8"))
    assert hits == ["eagerad/autograd/anomaly.py", "eagerad/backend/cuda/launch.py"]
    import eagerad.printing
    assert not hasattr(eagerad.printing, "CURRENT") and not hasattr(eagerad.printing, "speak")


# ------------------------------------------------------------------ the semantics tables

def _table_rows(module):
    """The first column of each row of the ``===`` table in ``module``'s docstring."""
    lines = module.__doc__.splitlines()
    rules = [i for i, line in enumerate(lines) if re.fullmatch(r"=+( +=+)+", line.strip())]
    assert len(rules) == 3, f"{module.__name__}: no semantics table in the docstring"
    width = len(lines[rules[0]].split()[0])
    rows = []
    for line in lines[rules[1] + 1:rules[2]]:
        end = width
        while end < len(line) and line[end] != " ":     # an entry running past its rule
            end += 1
        if line.strip():
            rows.append(line[:end].strip())
    return rows


def _gelu_erf(x):
    return 0.5 * x * (1 + math.erf(x / math.sqrt(2)))


def _gelu_tanh(x):
    return 0.5 * x * (1 + math.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def _row_dropout():
    assert torch.nn.Dropout(0.2).p == 0.2 and ms.nn.Dropout(0.2).p == pytest.approx(0.8)


def _row_std_var():
    assert torch.tensor(DATA).std().item() == pytest.approx(UNBIASED_STD)
    assert torch.tensor(DATA).var().item() == pytest.approx(5 / 3)
    assert ms.Tensor(DATA).std().item() == pytest.approx(BIASED_STD)
    assert ms.Tensor(DATA).var().item() == pytest.approx(5 / 4)


def _row_std_unbiased_positional():
    assert torch.std(torch.tensor(DATA), True).item() == pytest.approx(UNBIASED_STD)
    assert ms.ops.std(ms.Tensor(DATA), None, 1).item() == pytest.approx(UNBIASED_STD)   # ddof


def _row_max_dim():
    for make in (torch.tensor, ms.Tensor):
        values, indices = make([[1.0, 5.0], [7.0, 2.0]]).max(1)
        assert values.tolist() == [5.0, 7.0] and indices.tolist() == [1, 0]


def _row_max_whole():
    assert torch.max(torch.tensor([1.0, 3.0, 2.0])).item() == 3.0
    value, index = ms.ops.max(ms.Tensor([1.0, 3.0, 2.0]))
    assert value.item() == 3.0 and index.item() == 1


def _row_flatten():
    assert tuple(torch.flatten(torch.ones(2, 3, 4)).shape) == (24,)
    assert ms.ops.flatten(ms.ops.ones((2, 3, 4))).shape == (2, 12)


def _row_conv2d():
    t, m = torch.nn.Conv2d(1, 4, 3), ms.nn.Conv2d(1, 4, 3)
    assert tuple(t(torch.ones(1, 1, 5, 5)).shape) == (1, 4, 3, 3) and t.bias is not None
    assert m(ms.ops.ones((1, 1, 5, 5))).shape == (1, 4, 5, 5) and m.bias is None


def _row_batchnorm():
    assert list(torch.nn.BatchNorm2d(2).state_dict()) == ["weight", "bias", "running_mean",
                                                         "running_var", "num_batches_tracked"]
    assert [p.name for p in ms.nn.BatchNorm2d(2).get_parameters()] == [
        "moving_mean", "moving_variance", "gamma", "beta"]


def _row_leaky_relu():
    assert torch.nn.LeakyReLU()(torch.tensor([-1.0])).item() == pytest.approx(-0.01)
    assert ms.nn.LeakyReLU()(ms.Tensor([-1.0])).item() == pytest.approx(-0.2)


def _row_gelu():
    assert torch.nn.GELU()(torch.tensor([1.0], dtype=torch.float64)).item() == \
        pytest.approx(_gelu_erf(1.0), abs=1e-12)
    assert ms.nn.GELU()(ms.Tensor([1.0], dtype=ms.float64)).item() == \
        pytest.approx(_gelu_tanh(1.0), abs=1e-12)


def _row_smooth_l1():
    pred, target = [0.0, 3.0], [0.5, 0.0]                  # |d| = 0.5 -> 0.125, 3 -> 2.5
    assert torch.nn.SmoothL1Loss()(torch.tensor(pred), torch.tensor(target)).item() == 1.3125
    assert ms.nn.SmoothL1Loss()(ms.Tensor(pred), ms.Tensor(target)).tolist() == [0.125, 2.5]


def _row_new_cell_mode():
    assert torch.nn.Linear(1, 1).training is True
    assert ms.nn.Dense(1, 1).training is False


def _row_squeeze():
    assert tuple(torch.zeros(2, 1).squeeze(0).shape) == (2, 1)
    assert tuple(torch.zeros(2, 1).squeeze(1).shape) == (2,)
    with pytest.raises(ValueError, match="size 2"):
        ms.ops.zeros((2, 1)).squeeze(0)


def _row_data():
    p = torch.nn.Parameter(torch.tensor([3.0]))
    (p.data * p).sum().backward()
    assert p.grad.tolist() == [3.0] and p.data is not p
    q = ms.Parameter(ms.Tensor([3.0]), name="q")
    assert q.data is q


def _row_data_assignment():
    p = torch.nn.Parameter(torch.tensor([1.0]))
    p.data = torch.tensor([2.0], dtype=torch.float64)
    assert p.dtype == torch.float64
    q = ms.Parameter(ms.Tensor([1.0]), name="q")
    q.set_data(ms.Tensor(np.array([2.0])))
    assert q.dtype == ms.float32 and q.tolist() == [2.0]


def _row_tensor_float64():
    data = np.array([1.5])
    assert torch.Tensor(data).dtype == torch.float32 and ms.Tensor(data).dtype == ms.float64


def _row_meshgrid():
    assert [tuple(g.shape) for g in torch.meshgrid(torch.ones(2), torch.ones(3))] == [(2, 3)] * 2
    assert [g.shape for g in ms.ops.meshgrid(ms.ops.ones(2), ms.ops.ones(3))] == [(3, 2)] * 2


def _row_sort_median():
    values, indices = torch.sort(torch.tensor([3.0, 1.0, 2.0]))
    assert values.tolist() == [1.0, 2.0, 3.0] and indices.tolist() == [1, 2, 0]
    assert torch.median(torch.tensor([4.0, 1.0, 3.0, 2.0])).item() == 2.0     # the lower one
    values, indices = torch.median(torch.tensor([[4.0, 1.0, 3.0, 2.0]]), 1)
    assert values.tolist() == [2.0] and indices.tolist() == [3]


def _row_printing():
    assert repr(torch.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert repr(ms.Tensor([1.0, 2.0])) == \
        "Tensor(shape=[2], dtype=Float32, value= [ 1.00000000e+00,  2.00000000e+00])"


ROWS = {
    "``nn.Dropout(0.2)``": _row_dropout, "``nn.Dropout(0.8)``": _row_dropout,
    "``x.std()``, ``x.var()``": _row_std_var,
    "``torch.std(x, True)``": _row_std_unbiased_positional,
    "``x.max(1)``": _row_max_dim,
    "``torch.max(x)``": _row_max_whole, "``ops.max(x)``": _row_max_whole,
    "``ops.flatten(x)``": _row_flatten,
    "``nn.Conv2d(1, 4, 3)``": _row_conv2d,
    "``nn.BatchNorm2d``": _row_batchnorm,
    "``nn.LeakyReLU()``": _row_leaky_relu,
    "``nn.GELU()``": _row_gelu,
    "``nn.SmoothL1Loss()``": _row_smooth_l1,
    "a new ``nn.Cell``": _row_new_cell_mode,
    "``x.squeeze(d)``": _row_squeeze,
    "``p.data``": _row_data,
    "``p.data = t``": _row_data_assignment,
    "``torch.Tensor(f64 data)``": _row_tensor_float64,
    "``torch.meshgrid``": _row_meshgrid,
    "``torch.sort``/``median``": _row_sort_median,
    "printing": _row_printing,
}


TABLE_ROWS = [(face, row) for face in (torch, ms) for row in _table_rows(face)]


def test_both_tables_are_there():
    assert sum(face is torch for face, _ in TABLE_ROWS) >= 12
    assert sum(face is ms for face, _ in TABLE_ROWS) >= 10


@pytest.mark.parametrize("face, row", TABLE_ROWS,
                         ids=[f"{face.__name__.split('.')[-1]}: {row.replace('`', '')}"
                              for face, row in TABLE_ROWS])
def test_semantics_table_row_holds_in_both_faces(face, row):
    assert row in ROWS, f"{face.__name__}'s table has a row this test does not check: {row}"
    ROWS[row]()


def test_neutral_flatten_function_and_parameter_data_refuse_and_name_both_faces():
    import eagerad.mindspore as ms
    import eagerad.torch as torch
    with pytest.raises(TypeError, match="eagerad.torch.*eagerad.mindspore"):
        eagerad.ops.flatten(eagerad.zeros(2, 3, 4))
    assert eagerad.zeros(2, 3, 4).flatten().shape == (24,)          # the method: 0 in both
    assert torch.flatten(torch.zeros(2, 3, 4)).shape == (24,)
    assert ms.ops.flatten(ms.ops.zeros((2, 3, 4))).shape == (2, 12)
    p = eagerad.Parameter(eagerad.ones(1), name="p")
    with pytest.raises(TypeError, match="eagerad.torch.*eagerad.mindspore"):
        p.data
    with pytest.raises(TypeError, match="set_data"):
        p.data = eagerad.zeros(1)
    q = ms.Parameter(ms.Tensor([1.0]), name="q")
    assert q.data is q
    r = torch.nn.Parameter(torch.ones(1))
    assert r.data is not r and not r.data.requires_grad


def test_jacobians_and_data_loader_batches_speak_their_inputs_face():
    import eagerad.torch as torch
    import eagerad.mindspore as ms
    f = lambda x: (x.sin() * x).sum()   # noqa: E731
    x = torch.tensor([1.0, 2.0])
    for out in (torch.func.hessian(f)(x), torch.func.jacfwd(f)(x), torch.func.jacrev(f)(x),
                torch.autograd.functional.hessian(f, x)):
        assert out._face.name == "torch" and repr(out).startswith("tensor(")
    assert ms.jacrev(lambda v: v * 2)(ms.Tensor([1.0]))._face.name == "mindspore"
    batch = next(iter(torch.utils.data.DataLoader([1, 2, 3], batch_size=3, num_workers=1)))
    assert batch._face.name == "torch" and str(batch) == "tensor([1, 2, 3])"
