"""``torch.finfo``/``iinfo``/``promote_types``/``result_type``/``can_cast`` against
PyTorch over a dtype grid; ``torch.compile`` and the recorded switches."""
import itertools

import pytest

import eagerad.torch as torch

pt = pytest.importorskip("torch")
NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


@pytest.mark.parametrize("a, b", list(itertools.combinations_with_replacement(NAMES, 2)))
def test_promotion_and_casting_follow_torch(a, b):
    assert str(torch.promote_types(getattr(torch, a), getattr(torch, b))) == \
        str(pt.promote_types(getattr(pt, a), getattr(pt, b))).replace("torch.", "")
    assert torch.can_cast(getattr(torch, a), getattr(torch, b)) == \
        pt.can_cast(getattr(pt, a), getattr(pt, b))


@pytest.mark.parametrize("name", ["float16", "float32", "float64"])
def test_finfo_matches_torch(name):
    mine, theirs = torch.finfo(getattr(torch, name)), pt.finfo(getattr(pt, name))
    for field in ("bits", "eps", "max", "min", "tiny", "resolution"):
        assert getattr(mine, field) == pytest.approx(getattr(theirs, field), rel=1e-12)


def test_result_type_with_numbers_and_zero_dim_tensors():
    cases = [(lambda m: m.tensor([1, 2]), 1.0), (lambda m: m.tensor([1, 2], dtype=m.int32), 5),
             (lambda m: m.tensor([1.0], dtype=m.float16), 2.5)]
    for make, number in cases:
        assert str(torch.result_type(make(torch), number)) == \
            str(pt.result_type(make(pt), number)).replace("torch.", "")


def test_compile_and_switches():
    net = torch.nn.Linear(2, 1)
    assert torch.compile(net)._orig_mod is net and torch.compile(net, disable=True) is net
    assert torch.compile(mode="max-autotune")(net)._orig_mod is net
    torch.set_float32_matmul_precision("high")
    assert torch.get_float32_matmul_precision() == "high"
    with pytest.raises(ValueError, match="precision"):
        torch.set_float32_matmul_precision("fast")
    torch.set_float32_matmul_precision("highest")
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    assert torch.is_floating_point(torch.ones(1)) and not torch.is_nonzero(torch.zeros(1))
