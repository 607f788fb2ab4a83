"""Seed 002, "torch.no_grad": nothing is recorded inside the block.

Source: shared/seeds/002_*.txt.  Only the import line differs from the seed.
"""
import eagerad.torch as torch
print("=== torch.no_grad ===")
x = torch.tensor(1.0, requires_grad=True)
y = torch.tensor(2.0, requires_grad=True)
z = x**2+y
print("z.requires_grad", z.requires_grad)
with torch.no_grad():
    z = x**2+y
print("z.requires_grad", z.requires_grad)
