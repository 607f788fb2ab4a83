"""Rearranging ops (split family, flip/rot90, roll, pad, tile/repeat, triangles and
diagonals, moveaxis, atleast_nd, stacking, meshgrid, diff): values against numpy (and
PyTorch's documented results where the spellings differ), gradients to second order by
finite differences, batching rules of the stanzas against a loop, and bad input."""
import numpy as np
import pytest

import eagerad
from eagerad import ops
from eagerad.autograd import gradcheck, gradgradcheck
from eagerad.ops import OPS

F64 = eagerad.float64
RNG = np.random.default_rng(11)
A = RNG.normal(size=(3, 4, 2))


def _x(*shape):
    return eagerad.tensor(RNG.uniform(-1, 1, shape), dtype=F64, requires_grad=True)


def _both_orders(fn, *inputs):
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


def _same(got, want):
    got = [g.numpy() for g in got] if isinstance(got, (tuple, list)) else got.numpy()
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    else:
        np.testing.assert_array_equal(got, want)

# ------------------------------------------------------------------- values


def test_split_family_matches_numpy_and_pytorch():
    x = eagerad.tensor(A)
    # PyTorch/MindSpore split: sizes
    _same(ops.split(x, 2, axis=1), [A[:, :2], A[:, 2:]])
    _same(ops.split(x, 2), [A[:2], A[2:]])
    _same(x.split([1, 3], dim=1), [A[:, :1], A[:, 1:]])
    _same(ops.chunk(x, 2, dim=1), [A[:, :2], A[:, 2:]])
    _same(ops.chunk(eagerad.arange(5), 4), [[0, 1], [2, 3], [4]])        # fewer chunks, as torch
    for sections in (3, 2, [1, 3], [3, 1], [-1], [0, 10]):
        _same(ops.array_split(x, sections, axis=1), np.array_split(A, sections, axis=1))
        _same(ops.tensor_split(x, sections, dim=1), np.array_split(A, sections, axis=1))
    _same(ops.hsplit(x, 2), np.hsplit(A, 2))
    _same(ops.vsplit(x, [1]), np.vsplit(A, [1]))
    _same(ops.dsplit(x, 2), np.dsplit(A, 2))
    _same(ops.unbind(x, 2), [A[:, :, 0], A[:, :, 1]])
    with pytest.raises(ValueError, match="equal sections"):
        ops.hsplit(x, 3)
    with pytest.raises(ValueError, match="add up to 4"):
        ops.split(x, [1, 2], 1)


def test_flip_rot90_roll_match_numpy():
    x = eagerad.tensor(A)
    _same(ops.flip(x), np.flip(A))
    _same(ops.flip(x, (0, 2)), np.flip(A, (0, 2)))
    _same(x.flip(dims=[1]), np.flip(A, 1))
    _same(ops.fliplr(x), np.fliplr(A))
    _same(ops.flipud(x), np.flipud(A))
    for k in range(-1, 5):
        for axes in ((0, 1), (2, 0), (1, -1)):
            _same(ops.rot90(x, k, axes), np.rot90(A, k, axes))
    _same(x.rot90(1, dims=(1, 2)), np.rot90(A, 1, (1, 2)))
    for shift, axis in ((1, None), (-5, None), (2, 1), ((1, -3), (0, 2)), (7, (0, 1))):
        _same(ops.roll(x, shift, axis), np.roll(A, shift, axis))
    _same(x.roll(shifts=1, dims=0), np.roll(A, 1, 0))
    _same(ops.roll(eagerad.zeros(0, 2), 1, 0), np.zeros((0, 2)))


@pytest.mark.parametrize("mode,np_mode", [("constant", "constant"), ("reflect", "reflect"),
                                          ("replicate", "edge"), ("edge", "edge"),
                                          ("circular", "wrap"), ("symmetric", "symmetric")])
def test_pad_matches_numpy_in_both_spellings(mode, np_mode):
    x = eagerad.tensor(A)
    widths = ((0, 0), (2, 1), (1, 3))
    _same(ops.pad(x, pad_width=widths, mode=mode), np.pad(A, widths, np_mode))
    # PyTorch's flat tuple lists the last axis first
    _same(ops.pad(x, (1, 3, 2, 1), mode=mode), np.pad(A, widths, np_mode))
    _same(ops.pad(x, 1, mode=mode), np.pad(A, 1, np_mode))


def test_pad_constant_values_and_width_forms():
    x = eagerad.tensor([[1, 2]])
    assert ops.pad(x, (1, 1), value=9).tolist() == [[9, 1, 2, 9]]
    np.testing.assert_array_equal(ops.pad(x, pad_width=(1, 2), constant_values=5).numpy(),
                                  np.pad([[1, 2]], (1, 2), constant_values=5))
    np.testing.assert_array_equal(ops.pad(x, ((0, 1), (2, 0))).numpy(),
                                  np.pad([[1, 2]], ((0, 1), (2, 0))))
    assert ops.pad(eagerad.tensor(2.0), ()).tolist() == 2.0


def test_tile_and_repeat_match_numpy():
    x = eagerad.tensor(A)
    for reps in (2, (2, 1), (1, 2, 1, 3), (0, 1, 1)):
        _same(ops.tile(x, reps), np.tile(A, reps))
    _same(x.tile((2, 1, 1)), np.tile(A, (2, 1, 1)))
    for repeats, axis in ((2, None), (3, 1), ([1, 0, 2], 0), (np.array([2, 1]), 2), (0, 1)):
        _same(ops.repeat(x, repeats, axis), np.repeat(A, repeats, axis))
    _same(x.repeat_interleave(eagerad.tensor([1, 2, 0, 1]), dim=1), np.repeat(A, [1, 2, 0, 1], 1))
    _same(ops.repeat(eagerad.tensor(3.0), 2), np.repeat(3.0, 2))


def test_triangles_and_diagonals_match_numpy():
    m = RNG.normal(size=(2, 3, 4))
    x = eagerad.tensor(m)
    for k in (-2, 0, 1, 5):
        _same(ops.tril(x, k), np.tril(m, k))
        _same(ops.triu(x, k), np.triu(m, k))
    _same(x.tril(diagonal=1), np.tril(m, 1))
    for offset, a1, a2 in ((0, 0, 1), (1, 1, 2), (-1, 2, 1), (-2, -1, 0), (9, 1, 2)):
        _same(ops.diagonal(x, offset, a1, a2), np.diagonal(m, offset, a1, a2))
    _same(x.diagonal(1, dim1=1, dim2=2), np.diagonal(m, 1, 1, 2))
    v = RNG.normal(size=3)
    for k in (0, 2, -1):
        _same(ops.diag(eagerad.tensor(v), k), np.diag(v, k))
        _same(ops.diag(eagerad.tensor(m[0]), k), np.diag(m[0], k))
    emb = ops.diag_embed(eagerad.tensor(m[:, :, :2]), 1)       # (2, 3, 3, 3)
    want = np.zeros((2, 3, 3, 3))
    for i in range(2):
        for j in range(3):
            want[i, j] = np.diag(m[i, j, :2], 1)
    _same(emb, want)
    _same(ops.diag_embed(eagerad.tensor(m[0]), 0, 0, 2), np.moveaxis(
        np.stack([np.diag(r) for r in m[0]]), (1, 2), (0, 2)))


def test_moveaxis_atleast_stacking_append_match_numpy():
    x = eagerad.tensor(A)
    for src, dst in ((0, -1), ((0, 1), (2, 0)), (-1, 0)):
        _same(ops.moveaxis(x, src, dst), np.moveaxis(A, src, dst))
    _same(x.movedim(0, 2), np.moveaxis(A, 0, 2))
    assert eagerad.zeros(2, 3).t().shape == (3, 2)
    for arr in (np.float64(2.0), np.arange(3.0), np.ones((2, 3)), A):
        t = eagerad.tensor(arr)
        for ours, theirs in ((ops.atleast_1d, np.atleast_1d), (ops.atleast_2d, np.atleast_2d),
                             (ops.atleast_3d, np.atleast_3d)):
            _same(ours(t), theirs(arr))
    assert [t.shape for t in ops.atleast_2d(eagerad.zeros(2), eagerad.zeros(1, 1))] == [(1, 2), (1, 1)]
    a, b = np.arange(3.0), np.arange(3.0, 6.0)
    for ours, theirs in ((ops.vstack, np.vstack), (ops.hstack, np.hstack),
                         (ops.column_stack, np.column_stack), (ops.dstack, np.dstack)):
        _same(ours([eagerad.tensor(a), eagerad.tensor(b)]), theirs([a, b]))
        _same(ours((eagerad.tensor(A), eagerad.tensor(A))), theirs((A, A)))
    _same(ops.append(x, eagerad.tensor([1.0])), np.append(A, [1.0]))
    _same(ops.append(x, x, 1), np.append(A, A, 1))


def test_meshgrid_broadcast_arrays_and_diff_match_numpy():
    a, b, c = np.arange(2.0), np.arange(3.0), np.arange(4.0)
    ts = [eagerad.tensor(v) for v in (a, b, c)]
    for indexing in ("xy", "ij"):
        for sparse in (False, True):
            _same(ops.meshgrid(*ts, indexing=indexing, sparse=sparse),
                  np.meshgrid(a, b, c, indexing=indexing, sparse=sparse))
    _same(ops.meshgrid(ts[:2], indexing="ij"), np.meshgrid(a, b, indexing="ij"))
    _same(ops.broadcast_arrays(eagerad.tensor(A[:, :1]), eagerad.tensor(b[:1])),
          np.broadcast_arrays(A[:, :1], b[:1]))
    for n, axis in ((1, -1), (2, 1), (0, 0), (5, 0)):
        _same(ops.diff(eagerad.tensor(A), n, axis), np.diff(A, n, axis))
    _same(ops.diff(eagerad.tensor(c), prepend=eagerad.tensor(1.0), append=eagerad.tensor([9.0])),
          np.diff(c, prepend=1.0, append=[9.0]))

# ---------------------------------------------------------------- gradients


@pytest.mark.parametrize("name,fn,shape", [
    ("split", lambda a: ops.split(a, [1, 0, 2], 1), (2, 3)),
    ("array_split", lambda a: ops.array_split(a, 2, 0), (3, 2)),
    ("unbind", lambda a: ops.unbind(a, 1), (2, 2)),
    ("flip", lambda a: ops.flip(a, (0,)), (3, 2)),
    ("flip 0-d", lambda a: ops.flip(a), ()),
    ("rot90", lambda a: ops.rot90(a, 3), (2, 3)),
    ("roll", lambda a: ops.roll(a, (1, -2), (0, 1)), (2, 3)),
    ("pad constant", lambda a: ops.pad(a, (1, 2), value=0.5), (2, 3)),
    ("pad reflect", lambda a: ops.pad(a, pad_width=((2, 2), (0, 1)), mode="reflect"), (3, 2)),
    ("pad replicate", lambda a: ops.pad(a, (2, 1), mode="replicate"), (2, 2)),
    ("pad size 0", lambda a: ops.pad(a, (1, 1)), (0, 2)),
    ("tile", lambda a: ops.tile(a, (2, 1, 2)), (2, 3)),
    ("repeat int", lambda a: ops.repeat(a, 2, 1), (2, 3)),
    ("repeat counts", lambda a: ops.repeat_interleave(a, [2, 0, 3], dim=1), (2, 3)),
    ("repeat 0-d", lambda a: ops.repeat(a, 3), ()),
    ("tril", lambda a: ops.tril(a, -1), (3, 3)),
    ("triu", lambda a: ops.triu(a, 1), (2, 3, 3)),
    ("diagonal", lambda a: ops.diagonal(a, 1, 0, 2), (3, 2, 3)),
    ("diag 1-d", lambda a: ops.diag(a, -1), (3,)),
    ("diag_embed", lambda a: ops.diag_embed(a, 1), (2, 3)),
    ("moveaxis", lambda a: ops.moveaxis(a, 0, -1), (2, 3, 1)),
    ("atleast_3d", lambda a: ops.atleast_3d(a), ()),
    ("column_stack", lambda a: ops.column_stack([a, a * 2]), (3,)),
    ("dstack", lambda a: ops.dstack([a, a.exp()]), (2, 2)),
    ("append", lambda a: ops.append(a, a[0]), (2, 2)),
    ("meshgrid", lambda a: ops.meshgrid(a, a[:2] * 3), (3,)),
    ("diff", lambda a: ops.diff(a, 2, 0, prepend=a[:1]), (4, 2)),
    ("diff size 0", lambda a: ops.diff(a, 1, 1), (2, 0)),
])
def test_gradchecks_to_second_order(name, fn, shape):
    x = _x(*shape)
    _both_orders(lambda a: fn(a ** 2), x)       # squared: second derivatives are not all zero


def test_pad_reflect_gradient_adds_up_the_reflected_copies():
    x = eagerad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    ops.pad(x, pad_width=2, mode="reflect").sum().backward()      # [3 2 1 2 3 2 1]
    assert x.grad.tolist() == [2.0, 3.0, 2.0]

# ------------------------------------------------------------ batching rules


@pytest.mark.parametrize("bdim", [0, 1, 2])
def test_stanza_batching_rules_match_a_loop(bdim):
    xs = RNG.normal(size=(4, 3, 5))
    x = eagerad.tensor(np.moveaxis(xs, 0, bdim))
    for name, kw, fn in (("flip", dict(axes=(1,)), lambda t: ops.flip(t, 1)),
                         ("roll", dict(shifts=(2, -1), axes=(0, 1)), lambda t: ops.roll(t, (2, -1), (0, 1))),
                         ("pad", dict(widths=((1, 0), (0, 2)), value=0.5),
                          lambda t: ops.pad(t, (0, 2, 1, 0), value=0.5))):
        out, out_bdim = OPS[name].batch((x,), (bdim,), **kw)
        want = np.stack([fn(eagerad.tensor(xs[i])).numpy() for i in range(4)])
        np.testing.assert_array_equal(np.moveaxis(out.numpy(), out_bdim, 0), want)

# ------------------------------------------------------------------ errors


def test_bad_arguments_are_clear_errors():
    x = eagerad.zeros(2, 3)
    with pytest.raises(ValueError, match="pad: pad .* even length"):
        ops.pad(x, (1, 2, 3))
    with pytest.raises(ValueError, match="negative padding"):
        ops.pad(x, (-1, 0))
    with pytest.raises(ValueError, match="pad: mode must be"):
        ops.pad(x, (1, 1), mode="mirror")
    with pytest.raises(ValueError, match="cannot pad axis 0 of size 0"):
        ops.pad(eagerad.zeros(0), (1, 1), mode="reflect")
    with pytest.raises(ValueError, match="fliplr: needs at least 2"):
        ops.fliplr(eagerad.zeros(3))
    with pytest.raises(ValueError, match=r"axes=\(0, 0\) repeats an axis"):
        ops.rot90(x, 1, (0, 0))
    with pytest.raises(ValueError, match="roll: 2 shifts for 3 axes"):
        ops.roll(eagerad.zeros(2, 2, 2), (1, 2), (0, 1, 2))
    with pytest.raises(ValueError, match="tril: needs at least 2"):
        ops.tril(eagerad.zeros(3))
    with pytest.raises(ValueError, match="repeat: repeats of shape"):
        ops.repeat(x, [1, 2], 1)
    with pytest.raises(TypeError, match="repeat: repeats must be integers"):
        ops.repeat(x, 1.5)
    with pytest.raises(ValueError, match="t\(\) expects a tensor with at most 2"):
        ops.t(eagerad.zeros(1, 2, 3))
    with pytest.raises(ValueError, match="meshgrid: indexing"):
        ops.meshgrid(x, indexing="yx")
    with pytest.raises(TypeError, match="flip: axis and dims"):
        ops.flip(x, 0, dims=0)
    with pytest.raises(ValueError, match="axis=3 is out of range"):
        ops.flip(x, 3)


@pytest.mark.parametrize("fn", [lambda a: ops.pad(a, pad_width=((1, 2), (0, 1)), mode="symmetric"),
                                lambda a: ops.take(a, [[2, 2], [0, 1]], axis=0),
                                lambda a: ops.diagonal(ops.tile(a, (1, 2)), -1),
                                lambda a: ops.scatter_add(a, 1, eagerad.tensor([[1, 1]]), a[:1] ** 2)])
def test_forward_mode_through_the_compositions_matches_finite_differences(fn):
    x = RNG.normal(size=(3, 2))
    t = RNG.normal(size=(3, 2))
    _, tangent = eagerad.jvp(fn, eagerad.tensor(x), eagerad.tensor(t))
    eps = 1e-6
    numeric = (fn(eagerad.tensor(x + eps * t)).numpy() - fn(eagerad.tensor(x - eps * t)).numpy()) / (2 * eps)
    np.testing.assert_allclose(tangent.numpy(), numeric, rtol=1e-6, atol=1e-8)


def test_tensor_repeat_reads_the_face_from_the_call():
    x = eagerad.tensor(np.arange(6.0).reshape(2, 3))
    # PyTorch: sizes (ints, a tuple or a Size), at least x.ndim of them -> tiling
    np.testing.assert_array_equal(x.repeat(2, 3, 1).numpy(), np.tile(x.numpy(), (2, 3, 1)))
    np.testing.assert_array_equal(x.repeat((1, 2)).numpy(), np.tile(x.numpy(), (1, 2)))
    np.testing.assert_array_equal(x.repeat(eagerad.ones(3, 2).shape).numpy(), np.tile(x.numpy(), (3, 2)))
    # numpy/MindSpore: axis= given, or fewer sizes than dimensions -> per-entry repetition
    np.testing.assert_array_equal(x.repeat(2, axis=1).numpy(), x.numpy().repeat(2, axis=1))
    np.testing.assert_array_equal(x.repeat([1, 3], axis=0).numpy(), x.numpy().repeat([1, 3], 0))
    np.testing.assert_array_equal(x.repeat(2).numpy(), x.numpy().repeat(2))
    # both readings valid and different: refused, naming the way out
    for call in (lambda: x.repeat(2, 1), lambda: eagerad.tensor([1, 2]).repeat(2)):
        with pytest.raises(ValueError, match="tile.*repeat_interleave"):
            call()
    # both readings agree: no refusal
    assert eagerad.tensor([7.0]).repeat(3).tolist() == [7.0, 7.0, 7.0]
    assert eagerad.tensor([1, 2]).repeat(1).tolist() == [1, 2]
    with pytest.raises(TypeError, match="repeat"):
        x.repeat(1.5)


def test_tensor_repeat_gradient_sums_the_copies():
    x = eagerad.tensor([1.0, 2.0], requires_grad=True)
    (x.repeat(3, axis=0) * eagerad.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])).sum().backward()
    assert x.grad.tolist() == [6.0, 15.0]
    x.grad = None
    (x.repeat(2, 2) * eagerad.tensor(np.arange(8.0).reshape(2, 4))).sum().backward()
    assert x.grad.tolist() == [0 + 2 + 4 + 6, 1 + 3 + 5 + 7]
