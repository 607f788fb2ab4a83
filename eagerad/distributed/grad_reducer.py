"""MindSpore's ``nn.DistributedGradReducer``: a cell that all-reduces a tuple of
gradients across the ranks (averaged when ``mean``, else summed), in a few bucketed
messages.  In a MindSpore training step it sits between ``value_and_grad`` and the
optimizer: ``grads = reducer(grads)``.

>>> from eagerad.distributed import communication
>>> communication.init()
>>> reducer = DistributedGradReducer([eagerad.nn.Parameter(eagerad.zeros(2))], mean=True)
>>> reducer((eagerad.tensor([1.0, 3.0]),))[0].tolist()
[1.0, 3.0]
>>> communication.release()
"""
from .. import backend
from ..nn.cell import Cell
from ..tensor import Tensor
from . import process_group as pg
from .buckets import allreduce_arrays
from .collectives import agree, describe
from .parallel_context import ParallelMode, get_auto_parallel_context


class DistributedGradReducer(Cell):
    """All-reduce a tuple of gradients (one per entry of ``parameters``).

    ``mean=None`` reads ``gradients_mean`` from the auto-parallel context; ``degree``
    (default: the group size) is what a mean divides by; ``fusion_size`` (MB) caps each
    bucket.

    >>> from eagerad.distributed import communication
    >>> communication.init()
    >>> r = DistributedGradReducer([eagerad.nn.Parameter(eagerad.zeros(1))], mean=False)
    >>> r((eagerad.tensor([2.0]),))[0].tolist()
    [2.0]
    >>> communication.release()
    """

    def __init__(self, parameters, mean=None, degree=None, fusion_type=1, group=None,
                 fusion_size=25):
        super().__init__()
        self.__dict__["_auto_prefix"] = False
        g = pg.group()
        self.__dict__["_parameters"] = tuple(parameters)
        self.mean = get_auto_parallel_context("gradients_mean") if mean is None else bool(mean)
        self.degree = g["size"] if degree is None else degree
        if not isinstance(self.degree, int) or self.degree < 1:
            raise ValueError(f"DistributedGradReducer: degree must be a positive int, got {degree!r}")
        self.fusion_bytes = int(fusion_size * 2 ** 20)
        agree(g, "DistributedGradReducer",
              "; ".join(describe(p) for p in self._parameters))

    def construct(self, grads):
        """The gradients reduced across ranks (new tensors, same shapes and devices)."""
        grads = tuple(grads)
        if len(grads) != len(self._parameters):
            raise ValueError(f"DistributedGradReducer: got {len(grads)} gradients for "
                             f"{len(self._parameters)} parameters")
        for i, (grad, p) in enumerate(zip(grads, self._parameters)):
            if not isinstance(grad, Tensor) or grad.shape != p.shape:
                got = describe(grad) if isinstance(grad, Tensor) else type(grad).__name__
                raise ValueError(f"DistributedGradReducer: grads[{i}] is {got}, its parameter "
                                 f"has {describe(p)}")
        g = pg.group()
        hosts = [grad._data if grad.device.type == "cpu"
                 else backend.get(grad.device.type).to_numpy(grad._data) for grad in grads]
        reduced = allreduce_arrays(g, hosts, False, self.fusion_bytes, "DistributedGradReducer")
        out = []
        for grad, arr in zip(grads, reduced):
            if self.mean and arr.dtype.kind in "fc":
                arr /= self.degree
            data = arr if grad.device.type == "cpu" else backend.get(grad.device.type).from_numpy(arr)
            out.append(Tensor._make(data, grad.device, face=grad._face))
        return tuple(out)


def grad_reducer_for(parameters):
    """What a MindSpore training wrapper (``TrainOneStepCell``) applies to its gradients:
    a ``DistributedGradReducer`` over ``parameters`` when the auto-parallel context says
    ``DATA_PARALLEL``, else the identity.

    >>> grad_reducer_for([])((eagerad.ones(1),))[0].tolist()
    [1.0]
    """
    if get_auto_parallel_context("parallel_mode") == ParallelMode.DATA_PARALLEL:
        return DistributedGradReducer(parameters)
    return _identity


def _identity(grads):
    return grads
