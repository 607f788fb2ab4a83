"""Seed 002, "torch.autograd.grad": gradients returned as a tuple, ``.grad`` untouched.

Source: shared/seeds/002_*.txt.  Only the import line differs from the seed.
"""
import eagerad.torch as torch
print("=== torch.autograd.grad ===")
x = torch.tensor(1.0, requires_grad=True)
y = torch.tensor(2.0, requires_grad=True)
z = x**2+y
out = torch.autograd.grad(z, x)
out1 = torch.autograd.grad(z, y)
print("out", out)
print("out1", out1)
