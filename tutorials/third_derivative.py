"""Beyond the seeds: derivatives of any order by nesting ``grad``.

Each ``grad`` returns an ordinary function, so ``grad(grad(grad(f)))`` is the third
derivative.  Checked against closed forms: sin''' = -cos, and for
f(x) = x**4 * exp(x) the third derivative is exp(x) * (x**4 + 12 x**3 + 36 x**2 + 24 x).

Run from the repository root: ``PYTHONPATH=. python tutorials/third_derivative.py``.
"""
import numpy as np

import eagerad.mindspore as ms
from eagerad.mindspore import ops

x = ms.Tensor(np.array([0.0, 0.5, 1.0, 2.0]), dtype=ms.float64)

d3_sin = ms.grad(ms.grad(ms.grad(ops.sin)))
print("sin'''(x)          ", d3_sin(x))
print("closed form -cos(x)", -np.cos(x.asnumpy()))


def f(x):
    return x ** 4 * ops.exp(x)


d3_f = ms.grad(ms.grad(ms.grad(f)))
xs = x.asnumpy()
print("f'''(x)            ", d3_f(x))
print("closed form        ", np.exp(xs) * (xs ** 4 + 12 * xs ** 3 + 36 * xs ** 2 + 24 * xs))

# value_and_grad nests too: value = f'(x) and gradient = f''(x) from one call
value, second = ms.value_and_grad(ms.grad(f))(x)
print("f'(x), f''(x)      ", value, second)
print("closed forms       ", np.exp(xs) * (xs ** 4 + 4 * xs ** 3),
      np.exp(xs) * (xs ** 4 + 8 * xs ** 3 + 12 * xs ** 2))
