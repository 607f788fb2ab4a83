"""Data-parallel training on 2 ranks, PyTorch style: DistributedDataParallel +
DistributedSampler over MPI.

    python -m eagerad.distributed.run --nproc 2 tutorials/distributed_torch.py

(from the repository root; without installing, prefix ``PYTHONPATH=.``; needs
``pip install 'eagerad[distributed]'``).  Each rank trains a replica of an MLP on its own
half of every batch; backward averages the gradients across the ranks, overlapped with
the rest of backward.  After every step rank 0 prints two checks: the ranks' parameters
agree (bitwise), and they equal those of one process trained on the concatenated batch
(to float64 round-off), the promise of data parallelism.  Run as a plain ``python``
script it trains on one rank.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eagerad.torch as torch                                               # noqa: E402
import eagerad.torch.distributed as dist                                    # noqa: E402
from eagerad.torch import nn                                                # noqa: E402
from eagerad.torch.nn.parallel import DistributedDataParallel as DDP        # noqa: E402
from eagerad.torch.utils.data import DataLoader, TensorDataset              # noqa: E402
from eagerad.torch.utils.data.distributed import DistributedSampler         # noqa: E402
from checks import report                                                   # noqa: E402


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(4, 32, dtype=torch.float64), nn.Tanh(),
                                    nn.Linear(32, 32, dtype=torch.float64), nn.Tanh(),
                                    nn.Linear(32, 1, dtype=torch.float64))

    def forward(self, x):
        return self.layers(x)


def batches(dataset, rank, world, epoch, batch_size):
    sampler = DistributedSampler(dataset, num_replicas=world, rank=rank, shuffle=True, seed=0)
    sampler.set_epoch(epoch)
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler)


def main():
    dist.init_process_group(backend="mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 4))
    y = np.sin(x.sum(axis=1, keepdims=True))
    dataset = TensorDataset(x, y)

    torch.manual_seed(rank)                 # different starts: DDP takes rank 0's weights
    model = DDP(MLP())
    reference = MLP()                       # one process, the whole (concatenated) batch
    reference.load_state_dict(model.module.state_dict())
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    ref_opt = torch.optim.Adam(reference.parameters(), lr=1e-2)
    loss_fn = nn.MSELoss()

    step = 0
    for epoch in range(2):
        every_rank = [batches(dataset, r, world, epoch, 8) for r in range(world)]
        for parts in zip(*every_rank):
            xb, yb = parts[rank]
            opt.zero_grad()
            loss = loss_fn(model(torch.tensor(xb)), torch.tensor(yb))
            loss.backward()                 # gradients averaged across ranks here
            opt.step()

            whole_x = np.concatenate([p[0].numpy() for p in parts])
            whole_y = np.concatenate([p[1].numpy() for p in parts])
            ref_opt.zero_grad()
            loss_fn(reference(torch.tensor(whole_x)), torch.tensor(whole_y)).backward()
            ref_opt.step()

            mine = np.concatenate([p.numpy().ravel() for p in model.module.parameters()])
            every = [torch.zeros(mine.size, dtype=torch.float64) for _ in range(world)]
            dist.all_gather(every, torch.tensor(mine))
            if rank == 0:
                print(f"epoch {epoch} step {step}: loss on rank 0's half {loss.item():.5f}")
                report(f"step {step}: the {world} ranks' parameters agree",
                       np.stack([e.numpy() for e in every]), np.stack([mine] * world), 0.0)
                want = np.concatenate([p.numpy().ravel() for p in reference.parameters()])
                report(f"step {step}: equal to one process on the concatenated batch",
                       mine, want, 1e-12)
            step += 1
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
