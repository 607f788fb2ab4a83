"""The cotangent given to ``grad``/``backward`` takes its output's dtype, as PyTorch casts it
(``Tensor.half`` in PyTorch's op database): a float64 cotangent of a float16 output is
rounded to float16 before the rule casts it back."""
import numpy as np

import eagerad
import eagerad.torch as et


def test_seed_is_cast_to_the_output_dtype():
    x = et.tensor([0.1234567, 0.7654321], dtype=et.float64, requires_grad=True)
    v = et.tensor([0.1234567, 0.7654321], dtype=et.float64)
    (g,) = et.autograd.grad(x.half(), x, v)
    assert g.dtype == et.float64
    np.testing.assert_array_equal(g.numpy(), v.numpy().astype(np.float16).astype(np.float64))
    y = eagerad.tensor([1.0, 2.0], requires_grad=True)                  # float32
    (h,) = eagerad.autograd.grad(y * 3, y, eagerad.tensor([1.0, 1.0], dtype=eagerad.float64))
    assert h.dtype == eagerad.float32 and h.tolist() == [3.0, 3.0]
