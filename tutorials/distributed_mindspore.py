"""Data-parallel training on 2 ranks, MindSpore style: ``communication.init()``,
``set_auto_parallel_context(parallel_mode=ParallelMode.DATA_PARALLEL,
gradients_mean=True)``, a sharded dataset and ``nn.DistributedGradReducer``.

    python -m eagerad.distributed.run --nproc 2 tutorials/distributed_mindspore.py

(from the repository root; without installing, prefix ``PYTHONPATH=.``; needs
``pip install 'eagerad[distributed]'``).  Each rank reads its shard of the data set
(MindSpore's ``num_shards``/``shard_id`` on the dataset), computes gradients with
``value_and_grad``, averages them across ranks with the reducer and updates.  After every
step rank 0 prints two checks: the ranks' parameters agree (bitwise), and they equal one
process trained on the concatenated batch (to float64 round-off).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eagerad.mindspore as ms                                              # noqa: E402
from eagerad.mindspore import nn                                            # noqa: E402
from eagerad.mindspore.communication import get_group_size, get_rank, init, release  # noqa: E402
from eagerad.distributed import collectives                                 # noqa: E402
from checks import report                                                   # noqa: E402


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.body = nn.SequentialCell(nn.Dense(4, 32, dtype=ms.float64), nn.Tanh(),
                                      nn.Dense(32, 1, dtype=ms.float64))

    def construct(self, x):
        return self.body(x)


def shard(x, y, num_shards, shard_id):
    return ms.dataset.NumpySlicesDataset((x, y), ["x", "y"], shuffle=False, num_shards=num_shards,
                                         shard_id=shard_id).batch(8)


def main():
    init()
    rank, size = get_rank(), get_group_size()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True,
                                 device_num=size)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((64, 4))
    y = np.cos(x).sum(axis=1, keepdims=True) / 4

    ms.set_seed(0)                          # the same start on every rank
    net, reference = MLP(), MLP()
    for p, q in zip(reference.trainable_params(), net.trainable_params()):
        p.set_data(q.copy())
    loss_fn = nn.MSELoss()
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    ref_optimizer = nn.Momentum(reference.trainable_params(), learning_rate=0.01, momentum=0.9)
    grad_reducer = nn.DistributedGradReducer(optimizer.parameters)   # mean from the context

    def forward(model):
        return lambda data, label: loss_fn(model(data), label)
    grad_fn = ms.value_and_grad(forward(net), None, optimizer.parameters)
    ref_grad_fn = ms.value_and_grad(forward(reference), None, ref_optimizer.parameters)

    shards = [shard(x, y, size, k) for k in range(size)]
    every_step = (parts for _ in range(3)           # 3 epochs
                  for parts in zip(*(s.create_tuple_iterator() for s in shards)))
    for step, parts in enumerate(every_step):
        data, label = parts[rank]
        loss, grads = grad_fn(data, label)
        optimizer(grad_reducer(grads))

        whole = [ms.Tensor(np.concatenate([p[i].asnumpy() for p in parts])) for i in (0, 1)]
        ref_optimizer(ref_grad_fn(*whole)[1])

        mine = np.concatenate([p.asnumpy().ravel() for p in net.trainable_params()])
        every = ms.Tensor(np.zeros(size * mine.size))
        collectives.all_gather_into_tensor(every, ms.Tensor(mine))
        if rank == 0:
            print(f"step {step}: loss on rank 0's shard {float(loss.asnumpy()):.5f}")
            report(f"step {step}: the {size} ranks' parameters agree",
                   every.asnumpy().reshape(size, -1), np.stack([mine] * size), 0.0)
            want = np.concatenate([p.asnumpy().ravel() for p in reference.trainable_params()])
            report(f"step {step}: equal to one process on the concatenated batch", mine, want,
                   1e-12)
    release()


if __name__ == "__main__":
    main()
