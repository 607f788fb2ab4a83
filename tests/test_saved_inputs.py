"""A node keeps only what its rules read: the inputs in its op's ``saves`` (version-checked)
and its output when ``save_output``; of every other input only shape, dtype and device.
So a chain of ops keeps no intermediate alive that no rule needs, and an in-place change
of a tensor no rule reads does not break backward (PyTorch saves ``self`` for ``mul`` only
when the other operand requires grad)."""
import gc
import weakref

import numpy as np
import pytest

import eagerad
from eagerad import ops

needs_unsaved = pytest.mark.xfail(
    not hasattr(eagerad.ops.registry, "Unsaved"), strict=True,
    reason="needs the registry change of issue 13 step 4 (nodes keep only saved inputs)")


@needs_unsaved
def test_intermediate_no_rule_reads_dies_while_the_graph_lives():
    x = eagerad.tensor(np.linspace(0.1, 1.0, 6), requires_grad=True)
    h = x * 2.0            # mul by a constant: its rule reads only the constant
    tail = ops.exp(h + 1.0)   # add reads nothing; exp reads only its output
    alive = weakref.ref(h)
    del h
    gc.collect()
    assert alive() is None
    tail.sum().backward()  # the graph still works, with the right numbers
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp(2 * np.linspace(0.1, 1.0, 6) + 1),
                               rtol=1e-12)


def test_input_a_rule_reads_stays_alive():
    x = eagerad.tensor([0.5, 1.5], dtype=eagerad.float64, requires_grad=True)
    h = x * 1.0
    out = ops.sin(h)       # sin's rule reads its input
    alive = weakref.ref(h)
    del h
    gc.collect()
    assert alive() is not None
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos([0.5, 1.5]), rtol=1e-12)


@needs_unsaved
def test_inplace_change_of_an_input_mul_does_not_need():
    # PyTorch: h * 3 saves nothing of h, so h.add_(1) afterwards is fine
    x = eagerad.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1.0
    y = h * 3
    h.add_(1)
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_inplace_change_of_an_input_mul_needs_still_raises():
    x = eagerad.tensor([1.0, 2.0], requires_grad=True)
    w = eagerad.tensor([3.0, 4.0], requires_grad=True)
    h = x * 1.0
    y = h * w              # w's gradient reads h
    h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


@needs_unsaved
def test_div_keeps_the_numerator_only_for_the_denominators_gradient():
    x = eagerad.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1.0
    y = h / 4.0
    h.mul_(10)             # h's value is not read: its gradient is 1 / 4
    y.sum().backward()
    assert x.grad.tolist() == [0.25, 0.25]
