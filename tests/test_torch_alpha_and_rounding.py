"""PyTorch's ``alpha`` of ``add``/``sub`` (function and method) and ``rounding_mode`` of the
in-place ``div_``: they raised TypeError on the PyTorch face."""
import numpy as np
import pytest

import eagerad
import eagerad.torch as torch

A, B = [1.0, -7.0, 2.5], [2.0, 2.0, -4.0]


@pytest.mark.parametrize("spell", ["function", "method"])
def test_add_and_sub_scale_other_by_alpha(spell):
    a, b = torch.tensor(A), torch.tensor(B)
    for name, sign in (("add", 1), ("sub", -1), ("subtract", -1)):
        got = getattr(torch, name)(a, b, alpha=3) if spell == "function" \
            else getattr(a, name)(b, alpha=3)
        assert got.tolist() == (np.array(A) + sign * 3 * np.array(B)).tolist(), name


def test_alpha_scales_the_gradient_of_other():
    a, b = torch.tensor(A, requires_grad=True), torch.tensor(B, requires_grad=True)
    torch.sub(a, b, alpha=0.5).sum().backward()
    assert a.grad.tolist() == [1.0] * 3 and b.grad.tolist() == [-0.5] * 3


def test_alpha_must_be_a_number():
    with pytest.raises(TypeError, match=r"add\(\): alpha must be a number, got str"):
        torch.add(torch.tensor(A), 1.0, alpha="2")


def test_the_neutral_face_keeps_its_plain_add():
    assert eagerad.ones(2).add(eagerad.ones(2)).tolist() == [2.0, 2.0]


@pytest.mark.parametrize("mode, expected", [(None, [0.5, -3.5, -0.625]),
                                            ("trunc", [0.0, -3.0, -0.0]),
                                            ("floor", [0.0, -4.0, -1.0])])
def test_div_in_place_rounds_as_div(mode, expected):
    x = torch.tensor(A)
    assert x.div_(torch.tensor(B), rounding_mode=mode) is x
    assert x.tolist() == expected
    assert torch.tensor(A).divide_(torch.tensor(B), rounding_mode=mode).tolist() == expected
    with pytest.raises(ValueError, match="rounding_mode must be None, 'trunc' or 'floor'"):
        torch.tensor(A).div_(2.0, rounding_mode="round")


def test_installing_the_neutral_in_place_methods_again_keeps_the_faces_own():
    from eagerad.ops import inplace
    inplace.install()             # (ops' doctest does; div_ of this face lost rounding_mode)
    assert torch.tensor(A).div_(2.0, rounding_mode="floor").tolist() == [0.0, -4.0, 1.0]
    assert eagerad.tensor(A).div_(2.0).tolist() == [0.5, -3.5, 1.25]


def test_the_same_numbers_as_pytorch_where_installed():
    real = pytest.importorskip("torch")
    for name in ("add", "sub"):
        ours = getattr(torch, name)(torch.tensor(A), torch.tensor(B), alpha=0.3)
        ref = getattr(real, name)(real.tensor(A), real.tensor(B), alpha=0.3)
        np.testing.assert_allclose(ours.numpy(), ref.numpy(), rtol=1e-6)
    for mode in ("trunc", "floor"):
        ours, ref = torch.tensor(A), real.tensor(A)
        ours.div_(torch.tensor(B), rounding_mode=mode)
        ref.div_(real.tensor(B), rounding_mode=mode)
        assert ours.tolist() == ref.tolist()
