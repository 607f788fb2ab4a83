"""``torch.jit``: ``script`` and ``trace`` hand back what they are given -- eagerad runs
it eagerly with the same numbers (its own compile step is separate) -- and the
decorators (``ignore``, ``unused``, ``export``) are identities; saving a TorchScript
archive is not supported and says so.

>>> import eagerad.torch as torch
>>> f = torch.jit.script(lambda x: x * 2); f(torch.tensor([1.0]))
tensor([2.])
"""


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """The function or module itself (it runs eagerly)."""
    return obj


def trace(func, example_inputs=None, *args, **kwargs):
    """The function or module itself (it runs eagerly, so control flow stays dynamic)."""
    return func


def ignore(drop=False, **kwargs):
    """Identity decorator (``@torch.jit.ignore`` or ``@torch.jit.ignore(drop=True)``)."""
    return drop if callable(drop) else (lambda fn: fn)


def unused(fn):
    """Identity decorator."""
    return fn


def export(fn):
    """Identity decorator."""
    return fn


def is_scripting():
    """False: nothing runs as TorchScript here."""
    return False


is_tracing = is_scripting


def save(m, f, _extra_files=None):
    """Not supported: eagerad writes no TorchScript archives (use ``torch.save`` of the
    state dict)."""
    raise NotImplementedError("torch.jit.save: eagerad has no TorchScript; save the "
                              "state_dict with torch.save instead")


def load(f, map_location=None, _extra_files=None):
    """Not supported: eagerad reads no TorchScript archives."""
    raise NotImplementedError("torch.jit.load: eagerad cannot load TorchScript archives; load "
                              "a state_dict with torch.load instead")
