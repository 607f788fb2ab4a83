"""``out=`` of the PyTorch face is written, never ignored (it was: ``torch.max(x, 1,
out=(v, i))`` left v and i unchanged), with PyTorch's rules for gradients, dtypes and
shapes."""
import inspect
import warnings

import numpy as np
import pytest

import eagerad.torch as torch
import eagerad.torch.nn.functional as F

X = [[1.0, 5.0, -2.0], [3.0, 2.0, 7.0]]


def _functions_taking_out():
    for module in (torch, torch.linalg, torch.special, torch.fft, F):
        for name, fn in vars(module).items():
            if name.startswith("_") or not inspect.isfunction(fn):
                continue
            if "out" in inspect.signature(fn).parameters:
                yield f"{module.__name__}.{name}", fn


def test_every_function_with_an_out_parameter_honours_it():
    found = dict(_functions_taking_out())
    assert len(found) > 40
    assert [n for n, fn in found.items() if not getattr(fn, "honours_out", False)] == []


CALLS = {
    "sum": (lambda x, **o: torch.sum(x, 1, **o), [4.0, 12.0]),
    "mean": (lambda x, **o: torch.mean(x, 0, **o), [2.0, 3.5, 2.5]),
    "amax": (lambda x, **o: torch.amax(x, 1, **o), [5.0, 7.0]),
    "cat": (lambda x, **o: torch.cat([x[0], x[1]], **o), [1.0, 5.0, -2.0, 3.0, 2.0, 7.0]),
    "stack": (lambda x, **o: torch.stack([x[0, :2], x[1, :2]], **o), [[1.0, 5.0], [3.0, 2.0]]),
    "clamp": (lambda x, **o: torch.clamp(x[0], 0.0, 2.0, **o), [1.0, 2.0, 0.0]),
    "div": (lambda x, **o: torch.div(x[0], 2.0, **o), [0.5, 2.5, -1.0]),
    "index_select": (lambda x, **o: torch.index_select(x, 1, torch.tensor([2, 0]), **o),
                     [[-2.0, 1.0], [7.0, 3.0]]),
    "special.logsumexp": (lambda x, **o: torch.special.logsumexp(torch.zeros(4), 0, **o),
                          float(np.log(4.0))),
    "F.normalize": (lambda x, **o: F.normalize(torch.tensor([3.0, 4.0]), dim=0, **o),
                    [0.6, 0.8]),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_the_result_is_written_into_out_and_out_is_returned(name):
    call, expected = CALLS[name]
    x = torch.tensor(X)
    out = torch.full(np.shape(expected), 99.0)
    before = out.data_ptr()
    got = call(x, out=out)
    assert got is out and out.data_ptr() == before
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)


def test_max_and_min_along_a_dim_write_values_and_indices():
    x = torch.tensor(X)
    v, i = torch.empty(2), torch.empty(2, dtype=torch.int64)
    got = torch.max(x, 1, out=(v, i))
    assert got.values is v and got.indices is i
    assert v.tolist() == [5.0, 7.0] and i.tolist() == [1, 2]
    torch.min(x, 0, out=(v3 := torch.empty(3), i3 := torch.empty(3, dtype=torch.int64)))
    assert v3.tolist() == [1.0, 2.0, -2.0] and i3.tolist() == [0, 1, 0]


def test_a_positional_out_is_written_too():
    out = torch.zeros(())
    assert torch.tensordot(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]), 1, out) is out
    assert out.item() == 11.0


def test_arguments_after_a_positional_out_keep_their_places():
    values = np.array([0.1, 0.2, 0.3], np.float32)
    out = torch.zeros((), dtype=torch.float64)
    # dtype=float64 after the positional out: the norm is taken in float64 (a float32 norm
    # differs from it in the 8th digit)
    assert torch.norm(torch.tensor(values), 2, 0, False, out, torch.float64) is out
    assert out.item() == np.linalg.norm(values.astype(np.float64))


def test_writing_into_a_view_reaches_its_base():
    base = torch.zeros(2, 3)
    torch.sum(torch.tensor(X), 0, out=base[1])
    assert base.tolist() == [[0.0, 0.0, 0.0], [4.0, 7.0, 5.0]]


def test_out_refuses_a_result_that_needs_a_gradient():
    x = torch.tensor(X, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"sum\(\): functions with out=.*requires grad"):
        torch.sum(x, 1, out=torch.empty(2))
    with torch.no_grad():
        out = torch.empty(2)
        torch.sum(x, 1, out=out)
    assert out.tolist() == [4.0, 12.0]


def test_out_refuses_a_dtype_the_result_cannot_cast_to():
    with pytest.raises(RuntimeError, match="result type float32 can't be cast to the desired "
                                           "output type int64"):
        torch.sum(torch.tensor(X), 1, out=torch.empty(2, dtype=torch.int64))
    wide = torch.empty(2, dtype=torch.float64)
    torch.sum(torch.tensor(X), 1, out=wide)
    assert wide.dtype == torch.float64 and wide.tolist() == [4.0, 12.0]


def test_an_out_of_another_shape_is_resized_with_a_warning_unless_empty():
    with pytest.warns(UserWarning, match=r"resized since it had shape \[5\]"):
        out = torch.sum(torch.tensor(X), 1, out=torch.zeros(5))
    assert out.shape == (2,) and out.tolist() == [4.0, 12.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        empty = torch.sum(torch.tensor(X), 1, out=torch.empty(0))
    assert empty.tolist() == [4.0, 12.0]


def test_a_wrong_out_kind_names_the_function():
    with pytest.raises(TypeError, match=r"max\(\): out must be a tuple of 2 Tensors"):
        torch.max(torch.tensor(X), 1, out=torch.empty(2))
    with pytest.raises(TypeError, match=r"sum\(\): out must be a Tensor"):
        torch.sum(torch.tensor(X), 1, out=[1.0, 2.0])


def test_the_same_numbers_as_pytorch_where_installed():
    real = pytest.importorskip("torch")
    x = np.array(X, np.float32)
    ours_v, ours_i = torch.empty(2), torch.empty(2, dtype=torch.int64)
    torch.max(torch.tensor(x), 1, out=(ours_v, ours_i))
    ref_v, ref_i = real.empty(2), real.empty(2, dtype=real.int64)
    real.max(real.tensor(x), 1, out=(ref_v, ref_i))
    assert ours_v.tolist() == ref_v.tolist() and ours_i.tolist() == ref_i.tolist()
    ours, ref = torch.empty(6), real.empty(6)
    torch.cat([torch.tensor(x[0]), torch.tensor(x[1])], out=ours)
    real.cat([real.tensor(x[0]), real.tensor(x[1])], out=ref)
    assert ours.tolist() == ref.tolist()


# ---- functions whose shared implementation has no ``out`` parameter (``KEYWORD_OUT``)

FACE_MODULES = {"torch": torch, "torch.linalg": torch.linalg, "torch.special": torch.special,
                "torch.fft": torch.fft}


def test_every_name_listed_with_a_keyword_out_is_a_wrapped_function_of_its_module():
    from eagerad.torch._out import KEYWORD_OUT
    assert sorted(KEYWORD_OUT) == sorted("eagerad." + m for m in FACE_MODULES)
    for module_name, names in KEYWORD_OUT.items():
        module = FACE_MODULES[module_name[len("eagerad."):]]
        unwrapped = [n for n in names.split()
                     if not getattr(getattr(module, n), "honours_out", False)]
        assert unwrapped == [], module_name


def test_every_function_pytorch_documents_with_out_honours_it():
    import re
    real = pytest.importorskip("torch")
    missing = []
    for module_name, module in FACE_MODULES.items():
        reference = real if module_name == "torch" else getattr(real, module_name.split(".")[1])
        for name, fn in vars(module).items():
            theirs = getattr(reference, name, None)
            if name.startswith("_") or not inspect.isfunction(fn) or theirs is None:
                continue
            signature = (getattr(theirs, "__doc__", None) or "").strip().split("\n")[0]
            if re.search(r"\bout\b", signature) and not getattr(fn, "honours_out", False):
                missing.append(f"{module_name}.{name}")
    assert missing == []


KEYWORD_CALLS = {       # name -> (call with **out, a reference call on real torch, out dtype)
    "add alpha": (lambda t, **o: t.add(t.tensor([1.0, 2.0]), t.tensor([3.0, 4.0]), alpha=2, **o),
                  None),
    "sub alpha": (lambda t, **o: t.sub(t.tensor([1.0, 2.0]), t.tensor([3.0, 4.0]), alpha=2, **o),
                  None),
    "exp": (lambda t, **o: t.exp(t.tensor([0.0, 1.0]), **o), None),
    "matmul": (lambda t, **o: t.matmul(t.tensor([[1.0, 2.0]]), t.tensor([[3.0], [4.0]]), **o),
               None),
    "where": (lambda t, **o: t.where(t.tensor([True, False]), t.tensor([1.0, 2.0]),
                                     t.tensor([5.0, 6.0]), **o), None),
    "cumsum": (lambda t, **o: t.cumsum(t.tensor([1.0, 2.0, 3.0]), 0, **o), None),
    "zeros": (lambda t, **o: t.zeros(3, **o), None),
    "arange": (lambda t, **o: t.arange(4, **o), None),
    "linalg.inv": (lambda t, **o: t.linalg.inv(t.tensor([[2.0, 0.0], [0.0, 4.0]]), **o), None),
    "special.expit": (lambda t, **o: t.special.expit(t.tensor([0.0, 1.0]), **o), None),
    "fft.fft": (lambda t, **o: t.fft.fft(t.tensor([1.0, 2.0, 0.0]), **o), "complex64"),
}


@pytest.mark.parametrize("name", sorted(KEYWORD_CALLS))
def test_a_keyword_out_is_written_with_pytorchs_numbers(name):
    call, dtype = KEYWORD_CALLS[name]
    expected = call(torch)
    out = torch.full(tuple(expected.shape), 99.0, dtype=getattr(torch, dtype or "float32"))
    assert call(torch, out=out) is out
    np.testing.assert_allclose(out.numpy(), expected.numpy(), rtol=1e-6)
    try:
        import torch as real
    except ImportError:
        return
    ref = real.full(tuple(expected.shape), 99.0, dtype=getattr(real, dtype or "float32"))
    call(real, out=ref)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-6)


def test_sort_with_a_keyword_out_writes_values_and_indices():
    v, i = torch.empty(3), torch.empty(3, dtype=torch.int64)
    got = torch.sort(torch.tensor([3.0, 1.0, 2.0]), out=(v, i))
    assert got.values is v and v.tolist() == [1.0, 2.0, 3.0] and i.tolist() == [1, 2, 0]


def test_a_keyword_out_keeps_pytorchs_rules():
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"exp\(\): functions with out=.*requires grad"):
        torch.exp(x, out=torch.empty(2))
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type int64"):
        torch.add(torch.ones(2), 0.5, out=torch.empty(2, dtype=torch.int64))
