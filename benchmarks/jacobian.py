"""Cost of a 1000x1000 Jacobian of an elementwise function, in units of one
forward+backward (vector-Jacobian product) of the same function.

Run: python benchmarks/jacobian.py   (the ratio must stay under 20x)
"""
import time

import numpy as np

import eagerad

N = 1000


def f(t):
    return t.sin() * t + t.exp() * 0.5 - t.tanh()


def best_of(fn, repeat=7):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    x = eagerad.tensor(np.linspace(-1.0, 1.0, N), dtype=eagerad.float64)
    v = eagerad.ones(N, dtype=eagerad.float64)

    def forward_backward():
        leaf = x.detach().requires_grad_()
        f(leaf).backward(v)

    base = best_of(forward_backward)
    print(f"one forward+backward (n={N}): {base * 1e3:8.3f} ms")
    xs = x.numpy()
    exact = np.diag(np.sin(xs) + xs * np.cos(xs) + 0.5 * np.exp(xs) - (1 - np.tanh(xs) ** 2))
    for name, jac in (("jacrev", eagerad.jacrev), ("jacfwd", eagerad.jacfwd)):
        assert np.allclose(jac(f)(x).numpy(), exact), name
        seconds = best_of(lambda: jac(f)(x))
        print(f"{name} ({N}x{N}):            {seconds * 1e3:8.3f} ms  = {seconds / base:5.1f}x "
              f"one forward+backward (must be < 20x)")


if __name__ == "__main__":
    main()
