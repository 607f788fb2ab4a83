"""``torch.utils.checkpoint``: activation checkpointing (recompute in the backward).

>>> import eagerad.torch as torch
>>> w = torch.tensor(2.0, requires_grad=True)
>>> checkpoint(lambda v: v ** 3, w, use_reentrant=False).backward(); w.grad
tensor(12.)
"""
from ...checkpoint import checkpoint


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run ``functions`` (a ``Sequential`` or a list of modules) in ``segments`` chunks,
    each checkpointed except the last, as ``torch.utils.checkpoint.checkpoint_sequential``.

    >>> import eagerad.torch as torch
    >>> net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Tanh(), torch.nn.Linear(2, 1))
    >>> x = torch.ones(3, 2)
    >>> bool((checkpoint_sequential(net, 2, x) == net(x)).all())
    True
    """
    layers = list(functions.children()) if hasattr(functions, "children") else list(functions)
    if not 1 <= segments <= max(len(layers), 1):
        raise ValueError(f"checkpoint_sequential: segments must lie in [1, {len(layers)}], got "
                         f"{segments}")
    size = -(-len(layers) // segments)
    chunks = [layers[i:i + size] for i in range(0, len(layers), size)]

    def run(chunk):
        def forward(x):
            for layer in chunk:
                x = layer(x)
            return x
        return forward
    for chunk in chunks[:-1]:
        input = checkpoint(run(chunk), input, use_reentrant=use_reentrant)
    return run(chunks[-1])(input)
