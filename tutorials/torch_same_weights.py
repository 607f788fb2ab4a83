"""Helpers for the ``torch_*`` tutorials: run one program under two ``torch`` modules
(eagerad's PyTorch face and, where installed, PyTorch itself) from the same weights.

>>> import eagerad.torch as torch
>>> a, b = torch.nn.Linear(2, 1), torch.nn.Linear(2, 1)
>>> copy_weights(a, b, torch); bool((a.weight == b.weight).all())
True
"""
import numpy as np


def copy_weights(source, target, torch):
    """Load ``source``'s state dict (either framework) into ``target`` (a module of
    the framework ``torch``) by name, keeping ``target``'s dtypes."""
    mine = target.state_dict()
    target.load_state_dict({k: torch.tensor(np.array(v.detach().numpy())).to(mine[k].dtype)
                            for k, v in source.state_dict().items()})


def real_torch():
    """PyTorch if it is installed, else None.

    >>> real_torch() is None or real_torch().__name__ == 'torch'
    True
    """
    try:
        import torch
    except ImportError:
        return None
    return torch
