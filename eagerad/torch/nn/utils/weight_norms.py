"""``torch.nn.utils.weight_norm`` and ``spectral_norm`` (and their ``remove_``): a layer's
weight recomputed before every forward from other parameters, as PyTorch's hooks do.

Why: GANs and vocoders written for PyTorch wrap their layers in these; the names were
missing.  Weight norm splits the weight into a direction ``<name>_v`` and a magnitude
``<name>_g`` (the norm over every dimension but ``dim``); spectral norm divides
``<name>_orig`` by its largest singular value, estimated by power iteration on the
buffers ``<name>_u`` and ``<name>_v`` (one step per forward in training, none in eval).

>>> import eagerad.torch as torch
>>> m = weight_norm(torch.nn.Linear(3, 2))
>>> sorted(n for n, _ in m.named_parameters()), tuple(m.weight_g.shape)
(['bias', 'weight_g', 'weight_v'], (2, 1))
"""
from ....autograd import no_grad
from ....ops import dot, mv
from ....tensor import Parameter
from ..functional import normalize

_TRANSPOSED = ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d")


def _norm_except_dim(v, dim):
    """The 2-norm of ``v`` over every dimension but ``dim`` (kept, size 1); over all of
    ``v`` for ``dim`` -1 (PyTorch's ``None``), a 0-d tensor."""
    if dim == -1:
        return (v * v).sum() ** 0.5
    dims = tuple(d for d in range(v.ndim) if d != dim % v.ndim)
    return (v * v).sum(dims, keepdim=True) ** 0.5


def _hooks(module, kind):
    """The ``{name: hook handle}`` of ``module``'s ``kind`` of norm."""
    registry = module.__dict__.get("_weight_norm_hooks")
    if registry is None:
        registry = {}
        object.__setattr__(module, "_weight_norm_hooks", registry)
    return registry.setdefault(kind, {})


def weight_norm(module, name="weight", dim=0):
    """Reparametrise ``module.<name>`` as ``g * v / ||v||`` (norm over all dimensions but
    ``dim``; None: over all): parameters ``<name>_g`` and ``<name>_v`` replace it.

    >>> import eagerad.torch as torch
    >>> m = torch.nn.Linear(2, 1); w = m.weight.detach().clone()
    >>> bool((weight_norm(m).weight - w).abs().max() < 1e-6)
    True
    """
    dim = -1 if dim is None else dim
    hooks = _hooks(module, "weight_norm")
    if name in hooks:
        raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
    weight = getattr(module, name)
    delattr(module, name)
    with no_grad():
        g, v = _norm_except_dim(weight, dim).detach(), weight.detach().clone()
    module.register_parameter(name + "_g", Parameter(g))
    module.register_parameter(name + "_v", Parameter(v))

    def compute(mod, inputs=None):
        v = getattr(mod, name + "_v")
        setattr(mod, name, v * (getattr(mod, name + "_g") / _norm_except_dim(v, dim)))
    compute(module)
    hooks[name] = module.register_forward_pre_hook(compute)
    return module


def remove_weight_norm(module, name="weight"):
    """Fold ``<name>_g`` and ``<name>_v`` back into one parameter ``<name>``.

    >>> import eagerad.torch as torch
    >>> m = remove_weight_norm(weight_norm(torch.nn.Linear(2, 1)))
    >>> sorted(n for n, _ in m.named_parameters())
    ['bias', 'weight']
    """
    return _remove(module, name, "weight_norm", ("_g", "_v"))


def _remove(module, name, kind, suffixes):
    """Drop ``kind``'s hook on ``name`` and the attributes it made; the weight it computed
    last becomes the parameter ``name`` again."""
    hooks = _hooks(module, kind)
    if name not in hooks:
        raise ValueError(f"{kind} of '{name}' not found in {module}")
    hooks.pop(name).remove()
    weight = getattr(module, name).detach().clone()
    for suffix in suffixes + ("",):
        delattr(module, name + suffix)
    module.register_parameter(name, Parameter(weight))
    return module


def _matrix(weight, dim):
    """``weight`` as a matrix whose rows run along ``dim``."""
    if dim != 0:
        weight = weight.permute(dim, *[d for d in range(weight.ndim) if d != dim])
    return weight.reshape(weight.shape[0], -1)


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide ``module.<name>`` by its spectral norm before every forward: parameter
    ``<name>_orig``, power-iteration buffers ``<name>_u``/``<name>_v`` (updated in
    training).  ``dim`` (rows of the matrix): 1 for transposed convolutions, else 0.
    Until the first forward ``<name>`` is the weight as it was (as PyTorch's).

    >>> import eagerad.torch as torch
    >>> m = spectral_norm(torch.nn.Linear(4, 3), n_power_iterations=30); _ = m(torch.ones(1, 4))
    >>> s = float(torch.linalg.svdvals(m.weight.detach())[0]); abs(s - 1) < 1e-3
    True
    """
    if n_power_iterations <= 0:
        raise ValueError(f"Expected n_power_iterations to be positive, but got "
                         f"n_power_iterations={n_power_iterations}")
    hooks = _hooks(module, "spectral_norm")
    if name in hooks:
        raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
    dim = (1 if type(module).__name__ in _TRANSPOSED else 0) if dim is None else dim
    weight = getattr(module, name)
    with no_grad():
        rows, cols = _matrix(weight, dim).shape
        u = normalize(weight.new_empty(rows).normal_(0, 1), dim=0, eps=eps)
        v = normalize(weight.new_empty(cols).normal_(0, 1), dim=0, eps=eps)
    delattr(module, name)
    module.register_parameter(name + "_orig", weight)
    setattr(module, name, weight.detach().clone())
    module.register_buffer(name + "_u", u)
    module.register_buffer(name + "_v", v)

    def compute(mod, inputs=None):
        matrix = _matrix(getattr(mod, name + "_orig"), dim)
        u, v = getattr(mod, name + "_u"), getattr(mod, name + "_v")
        if mod.training:
            with no_grad():
                for _ in range(n_power_iterations):
                    v.copy_(normalize(mv(matrix.t(), u), dim=0, eps=eps))
                    u.copy_(normalize(mv(matrix, v), dim=0, eps=eps))
        sigma = dot(u.detach().clone(), mv(matrix, v.detach().clone()))
        setattr(mod, name, getattr(mod, name + "_orig") / sigma)
    hooks[name] = module.register_forward_pre_hook(compute)
    return module


def remove_spectral_norm(module, name="weight"):
    """Keep the normalised weight as a plain parameter ``<name>`` again.

    >>> import eagerad.torch as torch
    >>> m = remove_spectral_norm(spectral_norm(torch.nn.Linear(2, 2)))
    >>> sorted(n for n, _ in m.named_parameters())
    ['bias', 'weight']
    """
    return _remove(module, name, "spectral_norm", ("_orig", "_u", "_v"))
