"""einsum and the contractions built on it: values against numpy, gradients to second
order, the einsum batching rule against a loop, Tensor methods and errors."""
import numpy as np
import pytest

import eagerad
from eagerad import ops
from eagerad.autograd import gradcheck, gradgradcheck
from eagerad.ops import OPS

RNG = np.random.default_rng(7)


def t64(a, grad=True):
    return eagerad.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


EINSUMS = [("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]), ("ii", [(3, 3)]),
           ("ii->i", [(3, 3)]), ("ij->", [(2, 3)]), ("ij->ji", [(2, 3)]),
           ("...ij,...jk->...ik", [(2, 1, 2, 3), (4, 3, 2)]), ("...i,...i", [(2, 3), (3,)]),
           ("i...->...", [(3, 2, 2)]), ("bij,bjk,bkl->bil", [(2, 2, 3), (2, 3, 2), (2, 2, 2)]),
           ("i,j->ij", [(3,), (2,)]), ("iij->j", [(2, 2, 3)]), (",i->i", [(), (3,)]),
           ("ab,ab->", [(0, 2), (0, 2)])]


@pytest.mark.parametrize("subscripts,shapes", EINSUMS, ids=[e[0] or "scalar" for e in EINSUMS])
def test_einsum_values_and_gradients(subscripts, shapes):
    arrays = [RNG.standard_normal(s) for s in shapes]
    got = ops.einsum(subscripts, *[t64(a, False) for a in arrays])
    np.testing.assert_allclose(got.numpy(), np.einsum(subscripts, *arrays), rtol=1e-12, atol=1e-12)
    xs = tuple(t64(a) for a in arrays)
    assert gradcheck(lambda *x: ops.einsum(subscripts, *x), xs)
    assert gradgradcheck(lambda *x: ops.einsum(subscripts, *x), xs)


def test_einsum_takes_a_list_and_promotes_dtypes():
    a = eagerad.tensor([[1, 2], [3, 4]])
    b = eagerad.tensor([1.0, 1.0])
    assert ops.einsum("ij,j->i", [a, b]).tolist() == [3.0, 7.0]


@pytest.mark.parametrize("bdims", [(0, 0), (1, None), (None, 2), (2, 1)])
def test_einsum_batching_rule_matches_a_loop(bdims):
    a, b = RNG.standard_normal((5, 2, 3)), RNG.standard_normal((5, 3, 4))
    args = [t64(np.moveaxis(x, 0, d), False) if d is not None else t64(x[0], False)
            for x, d in zip((a, b), bdims)]
    out, out_bdim = OPS["einsum"].batch(args, bdims, subscripts="ij,jk->ik")
    loop = [np.einsum("ij,jk->ik", a[i] if bdims[0] is not None else a[0],
                      b[i] if bdims[1] is not None else b[0]) for i in range(5)]
    np.testing.assert_allclose(np.moveaxis(out.numpy(), out_bdim, 0), np.stack(loop), rtol=1e-12)


def test_contractions_match_numpy():
    a, b = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((3, 4, 5))
    v, w = RNG.standard_normal(3), RNG.standard_normal(3)
    m = RNG.standard_normal((3, 3))
    T = lambda x: t64(x, False)   # noqa: E731
    close = np.testing.assert_allclose
    close(ops.tensordot(T(a), T(b)).numpy(), np.tensordot(a, b), rtol=1e-12)
    close(ops.tensordot(T(a), T(b), axes=([1], [0])).numpy(), np.tensordot(a, b, ([1], [0])),
          rtol=1e-12)
    close(ops.tensordot(T(v), T(w), axes=0).numpy(), np.tensordot(v, w, 0), rtol=1e-12)
    close(ops.outer(T(v), T(m)).numpy(), np.outer(v, m), rtol=1e-12)
    close(ops.inner(T(a), T(b[..., :4, 0])).numpy(), np.inner(a, b[..., :4, 0]), rtol=1e-12)
    close(ops.dot(T(v), T(w)).numpy(), np.dot(v, w), rtol=1e-12)
    close(ops.dot(T(a), T(b[:, :4, 0].T)).numpy(), np.dot(a, b[:, :4, 0].T), rtol=1e-12)
    close(ops.dot(T(m), T(v)).numpy(), np.dot(m, v), rtol=1e-12)
    close(ops.dot(T(a), T(b)).numpy(), np.dot(a, b), rtol=1e-12)
    close(ops.kron(T(m), T(a[0])).numpy(), np.kron(m, a[0]), rtol=1e-12)
    close(ops.kron(T(v), T(a)).numpy(), np.kron(v, a), rtol=1e-12)
    close(ops.cross(T(v), T(w)).numpy(), np.cross(v, w), rtol=1e-12)
    c = RNG.standard_normal((3, 2))
    close(ops.cross(T(c), T(m[:, :1]), axis=0).numpy(), np.cross(c, m[:, :1], axis=0), rtol=1e-12)
    for offset in (-2, -1, 0, 1, 3):
        close(ops.trace(T(a), offset=offset).numpy(), np.trace(a, offset), rtol=1e-12)
        close(ops.trace(T(a), offset, 1, 2).numpy(), np.trace(a, offset, 1, 2), rtol=1e-12)


def test_contraction_gradients_to_second_order():
    a, b = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((3, 4, 2))
    v, w, m = RNG.standard_normal(3), RNG.standard_normal(3), RNG.standard_normal((3, 3))
    for fn, arrays in [(ops.tensordot, (a, b)),
                       (lambda x, y: ops.tensordot(x, y, axes=([0, 2], [0, 1])), (a, b.T)),
                       (ops.outer, (v, w)), (ops.inner, (a, b[:, :, 0])), (ops.dot, (m, v)),
                       (ops.dot, (a, b)), (ops.kron, (m, a[0])),
                       (lambda x, y: ops.cross(x, y, dim=0), (m, m.T)),
                       (lambda x: ops.trace(x, 1, 0, 2), (a,)), (ops.trace, (m,))]:
        xs = tuple(t64(x) for x in arrays)
        assert gradcheck(fn, xs)
        assert gradgradcheck(fn, xs)


def test_tensor_methods():
    v, w = eagerad.tensor([1.0, 2.0, 3.0]), eagerad.tensor([0.0, 1.0, 0.0])
    assert v.dot(w).item() == 2.0 and v.inner(w).item() == 2.0
    assert v.outer(w).shape == (3, 3) and v.kron(w).shape == (9,)
    assert v.cross(w).tolist() == [-3.0, 0.0, 1.0]
    assert eagerad.eye(3).trace().item() == 3.0


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match="size 3 in one operand and 4"):
        ops.einsum("ij,jk", eagerad.ones(2, 3), eagerad.ones(4, 2))
    with pytest.raises(ValueError, match="2 operands but 1"):
        ops.einsum("ij,jk", eagerad.ones(2, 3))
    with pytest.raises(ValueError, match="output subscript"):
        ops.einsum("ij->ik", eagerad.ones(2, 3))
    with pytest.raises(ValueError, match=r"name 2 dimensions.*\(3,\)"):
        ops.einsum("ij", eagerad.ones(3))
    with pytest.raises(ValueError, match="size 3"):
        ops.cross(eagerad.ones(2), eagerad.ones(2))
    with pytest.raises(ValueError, match="axis 1 of a"):
        ops.tensordot(eagerad.ones(2, 3), eagerad.ones(2, 3), axes=([1], [0]))
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        ops.trace(eagerad.ones(3))
