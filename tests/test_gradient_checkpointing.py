"""Gradient checkpointing: the same first and second derivatives as the plain function,
pytree arguments and outputs, and a lower memory peak on a deep MLP."""
import tracemalloc

import numpy as np
import pytest

import eagerad
from eagerad.checkpoint import checkpoint


def mlp(x, weights):
    for w in weights:
        x = (x @ w).tanh()
    return x


def test_gradients_match_plain_function_first_and_second_order():
    rng = np.random.default_rng(0)
    ws = [eagerad.tensor(rng.normal(size=(4, 4)) * 0.5, requires_grad=True) for _ in range(3)]
    x = eagerad.tensor(rng.normal(size=(2, 4)), requires_grad=True)

    def loss(use_checkpoint):
        h = x
        for w in ws:
            h = checkpoint(lambda a, b: (a @ b).tanh(), h, w) if use_checkpoint else (h @ w).tanh()
        return (h ** 2).sum()

    plain = eagerad.autograd.grad(loss(False), [x] + ws, create_graph=True)
    ckpt = eagerad.autograd.grad(loss(True), [x] + ws, create_graph=True)
    for a, b in zip(plain, ckpt):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)
    # second order: d/dx of sum(dL/dW0)
    (h_plain,) = eagerad.autograd.grad(plain[1].sum(), x)
    (h_ckpt,) = eagerad.autograd.grad(ckpt[1].sum(), x)
    np.testing.assert_allclose(h_plain.numpy(), h_ckpt.numpy(), rtol=1e-12)


def test_pytree_arguments_outputs_and_kwargs():
    a = eagerad.tensor([1.0, 2.0], requires_grad=True)
    b = eagerad.tensor(3.0, requires_grad=True)
    out = checkpoint(lambda p, scale=1.0: {"s": (p["a"] * p["b"]).sum() * scale, "n": p["b"] * 0},
                     {"a": a, "b": b}, scale=2.0)
    assert set(out) == {"s", "n"} and out["s"].item() == 18.0
    out["s"].backward()
    assert a.grad.tolist() == [6.0, 6.0] and b.grad.item() == 6.0


def test_without_grad_it_is_a_plain_call():
    x = eagerad.tensor([1.0])
    assert checkpoint(lambda t: t * 2, x).grad_fn is None
    with pytest.raises(TypeError, match="output leaf 0"):
        checkpoint(lambda t: 3, eagerad.tensor([1.0], requires_grad=True))


def _memory(use_checkpoint, depth=24, width=128, batch=256):
    """(bytes the graph holds after the forward pass, peak bytes over forward and backward).
    Activations of 256 KB stay below the CPU buffer pool's size class, so every one of
    them is a fresh (traced) allocation."""
    rng = np.random.default_rng(1)
    ws = [eagerad.tensor(rng.normal(size=(width, width)) / width ** 0.5, requires_grad=True)
          for _ in range(depth)]
    x = eagerad.tensor(rng.normal(size=(batch, width)))
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    h = x
    for i in range(0, depth, 6):
        segment = ws[i:i + 6]
        h = checkpoint(mlp, h, segment) if use_checkpoint else mlp(h, segment)
    loss = (h ** 2).sum()
    held = tracemalloc.get_traced_memory()[0] - base
    loss.backward()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return held, peak, [w.grad.numpy() for w in ws]


def test_checkpointing_lowers_the_memory_of_a_deep_mlp():
    plain_held, plain_peak, plain_grads = _memory(False)
    ckpt_held, ckpt_peak, ckpt_grads = _memory(True)
    for a, b in zip(plain_grads, ckpt_grads):
        np.testing.assert_allclose(a, b, rtol=1e-10)
    # plain: 24 matmul and 24 tanh outputs of 256 KB kept for backward; checkpointed: the
    # 4 segment outputs
    assert ckpt_held < 0.25 * plain_held, (ckpt_held, plain_held)
    assert ckpt_peak < 0.8 * plain_peak, (ckpt_peak, plain_peak)
