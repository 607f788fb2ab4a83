"""vmap of every op in the op table (issue 13): each gradcheck case, batched along axis 0
and along the last axis of every float argument, equals the Python loop over samples."""
import numpy as np
import pytest

import eagerad as E
from eagerad.vectorize import vmap
from eagerad.ops import OPS
from eagerad.ops.registry import U

N = 3
CASES = [(name, k) for name, op in sorted(OPS.items()) for k in range(len(op.cases))
         if any(isinstance(a, U) for a in op.cases[k].args)]


def _draw(case, rng):
    return [np.asarray(a.draw(rng)) if isinstance(a, U) else a for a in case.args]


def _tensor(a):
    return E.tensor(a, dtype=E.float64) if isinstance(a, np.ndarray) and a.dtype.kind == "f" \
        else (E.tensor(a) if isinstance(a, np.ndarray) else a)


@pytest.mark.parametrize("where", ["first", "last"])
@pytest.mark.parametrize("name,k", CASES)
def test_vmap_equals_loop(name, k, where):
    op = OPS[name]
    case = op.cases[k]
    rng = np.random.default_rng(k)
    samples = [_draw(case, rng) for _ in range(N)]
    batched = [i for i, a in enumerate(case.args) if isinstance(a, U)]
    axes = []
    stacked = []
    for i, a in enumerate(case.args):
        if i not in batched:
            axes.append(None)
            stacked.append(_tensor(samples[0][i]))
            continue
        ax = 0 if where == "first" else len(a.shape)
        axes.append(ax)
        stacked.append(E.tensor(np.stack([s[i] for s in samples], axis=ax), dtype=E.float64))
    out = vmap(lambda *xs: op(*xs, **case.kwargs), in_axes=tuple(axes))(*stacked)
    loop = [op(*[_tensor(s[i]) if i in batched else stacked[i] for i in range(len(s))],
               **case.kwargs) for s in samples]
    if op.n_outputs == 1:
        out, loop = (out,), [(r,) for r in loop]
    for j, o in enumerate(out):
        expected = np.stack([r[j].numpy() for r in loop])
        assert o.shape == expected.shape, (name, case, o.shape, expected.shape)
        np.testing.assert_allclose(o.numpy(), expected, rtol=1e-12, atol=1e-12)


def test_reduction_and_matmul_rules_directly():
    x = E.tensor(np.arange(24.0).reshape(2, 3, 4))
    out, bdim = OPS["sum"].batch([x], [1], axes=(0,), keepdims=False)   # batch on axis 1
    assert bdim == 0
    np.testing.assert_allclose(out.numpy(), np.stack([x.numpy()[:, i].sum(0) for i in range(3)]))
    a, b = E.tensor(np.ones((5, 2, 3))), E.tensor(np.arange(3.0))
    out, bdim = OPS["matmul"].batch([a, b], [0, None])
    assert bdim == 0 and out.shape == (5, 2)
    np.testing.assert_allclose(out.numpy(), np.full((5, 2), 3.0))
