"""Sine-wave prediction as in pytorch/examples' ``time_sequence_prediction``: two
``LSTMCell``s unrolled step by step in float64 (``.double()``), ``input.split(1, dim=1)``,
``MSELoss``, the L-BFGS optimizer with a closure, then predicting the future under
``no_grad``; the training data saved with ``torch.save`` and read back with
``torch.load(weights_only=False)`` (it is a numpy array, a pickle payload).

Run: ``python tutorials/torch_time_sequence.py`` (compares with PyTorch if installed)
"""
import os
import tempfile

import numpy as np

from torch_same_weights import copy_weights, real_torch

T, L, N, HIDDEN, STEPS, FUTURE = 20, 30, 6, 12, 2, 10


def sine_waves(seed=2):
    """``N`` phase-shifted sine waves of length ``L`` (generate_sine_wave.py's recipe)."""
    rng = np.random.default_rng(seed)
    x = np.arange(L)[None, :] + rng.integers(-4 * T, 4 * T, N)[:, None]
    return np.sin(x / 1.0 / T).astype("float64")


def model_class(torch):
    """The ``Sequence`` model for the framework ``torch``."""
    nn = torch.nn

    class Sequence(nn.Module):
        """LSTMCell -> LSTMCell -> Linear, one time step at a time."""

        def __init__(self):
            super().__init__()
            self.lstm1 = nn.LSTMCell(1, HIDDEN)
            self.lstm2 = nn.LSTMCell(HIDDEN, HIDDEN)
            self.linear = nn.Linear(HIDDEN, 1)
            self.dummy_param = nn.Parameter(torch.empty(0))

        def forward(self, input, future=0):
            outputs = []
            device = self.dummy_param.device
            h_t = torch.zeros(input.size(0), HIDDEN, dtype=torch.double).to(device)
            c_t = torch.zeros(input.size(0), HIDDEN, dtype=torch.double).to(device)
            h_t2 = torch.zeros(input.size(0), HIDDEN, dtype=torch.double).to(device)
            c_t2 = torch.zeros(input.size(0), HIDDEN, dtype=torch.double).to(device)
            for input_t in input.split(1, dim=1):
                h_t, c_t = self.lstm1(input_t, (h_t, c_t))
                h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
                output = self.linear(h_t2)
                outputs += [output]
            for _ in range(future):
                h_t, c_t = self.lstm1(output, (h_t, c_t))
                h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
                output = self.linear(h_t2)
                outputs += [output]
            return torch.cat(outputs, dim=1)

    return Sequence


def run(torch, reference=None):
    """Train ``STEPS`` L-BFGS steps; (every closure's loss, each step's test loss)."""
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "traindata.pt")
        torch.save(sine_waves(), open(path, "wb"))
        data = torch.from_numpy(torch.load(path, weights_only=False)).to(torch.device("cpu"))
    input, target = data[3:, :-1], data[3:, 1:]
    test_input, test_target = data[:3, :-1], data[:3, 1:]
    seq = model_class(torch)().to("cpu").double()
    if reference is not None:
        copy_weights(reference, seq, torch)
    criterion = torch.nn.MSELoss()
    optimizer = torch.optim.LBFGS(seq.parameters(), lr=0.8)
    losses, test_losses = [], []
    for _ in range(STEPS):
        def closure():
            optimizer.zero_grad()
            loss = criterion(seq(input), target)
            losses.append(loss.item())
            loss.backward()
            return loss
        optimizer.step(closure)
        with torch.no_grad():
            pred = seq(test_input, future=FUTURE)
            test_losses.append(criterion(pred[:, :-FUTURE], test_target).item())
    return losses, test_losses


if __name__ == "__main__":
    import eagerad.torch as etorch
    pt = real_torch()
    reference = None
    if pt is not None:
        pt.manual_seed(0)
        reference = model_class(pt)().double()
    losses, test_losses = run(etorch, reference)
    print(f"eagerad: {len(losses)} closure calls, first/last loss {losses[0]:.6f} / "
          f"{losses[-1]:.6f}, test losses {[f'{v:.6f}' for v in test_losses]}")
    if pt is not None:
        losses, test_losses = run(pt, reference)
        print(f"PyTorch: {len(losses)} closure calls, first/last loss {losses[0]:.6f} / "
              f"{losses[-1]:.6f}, test losses {[f'{v:.6f}' for v in test_losses]}")
