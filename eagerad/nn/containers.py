"""PyTorch's keyed containers: ``ModuleDict``, ``ParameterList``, ``ParameterDict``.

Each entry is registered as an attribute of the container, so parameter paths are
``container.key.weight`` as in PyTorch and optimizers see every parameter.

>>> import eagerad
>>> from eagerad import nn
>>> d = ModuleDict({"fc": nn.Dense(2, 1)}); [n for n, _ in d.named_parameters()]
['fc.weight', 'fc.bias']
"""
from ..tensor import Parameter
from .cell import Cell


def _check_key(key, what):
    if not isinstance(key, str) or not key or "." in key:
        raise KeyError(f"{what}: keys must be non-empty strings without '.', got {key!r}")


class _Keyed:
    """The read side of a dict whose entries are a cell's registered attributes
    (``_keys()``: their names, in order)."""

    def __getitem__(self, key):
        if key not in self._keys():
            raise KeyError(key)
        return getattr(self, key)

    def __len__(self):
        return len(self._keys())

    def __iter__(self):
        return iter(list(self._keys()))

    def __contains__(self, key):
        return key in self._keys()

    def keys(self):
        """The keys in order."""
        return list(self)

    def items(self):
        """``(key, entry)`` pairs in order."""
        return [(k, self[k]) for k in self]

    def values(self):
        """The entries in order."""
        return [self[k] for k in self]


class ModuleDict(_Keyed, Cell):
    """Sub-cells held under string keys, in insertion order.

    >>> from eagerad import nn
    >>> d = ModuleDict(dict(a=nn.ReLU())); d["b"] = nn.Tanh(); list(d), "a" in d, len(d)
    (['a', 'b'], True, 2)
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def _keys(self):
        return self._registry()[1]

    def __setitem__(self, key, module):
        _check_key(key, "ModuleDict")
        if not isinstance(module, Cell):
            raise TypeError(f"ModuleDict[{key!r}] must be a Module/Cell, got {type(module).__name__}")
        setattr(self, key, module)

    def __delitem__(self, key):
        delattr(self, key)

    def update(self, modules):
        """Add or replace entries from a mapping or an iterable of pairs."""
        for key, module in (modules.items() if hasattr(modules, "items") else modules):
            self[key] = module

    def pop(self, key):
        """Remove ``key`` and return its module."""
        module = self[key]
        del self[key]
        return module


class ParameterList(Cell):
    """Parameters held in a list (registered as ``'0'``, ``'1'``, ...).

    >>> import eagerad
    >>> pl = ParameterList([Parameter(eagerad.ones(2)) for _ in range(2)]); len(pl), len(list(pl.parameters()))
    (2, 2)
    """

    def __init__(self, values=None):
        super().__init__()
        for v in values or ():
            self.append(v)

    def _as_parameter(self, value):
        return value if isinstance(value, Parameter) else Parameter(value)

    def __getitem__(self, index):
        return getattr(self, self._registry()[0][index])

    def __setitem__(self, index, value):
        setattr(self, self._registry()[0][index], self._as_parameter(value))

    def __len__(self):
        return len(self._registry()[0])

    def __iter__(self):
        return (getattr(self, n) for n in list(self._registry()[0]))

    def append(self, value):
        """Add a parameter (a tensor becomes one) at the end."""
        setattr(self, str(len(self)), self._as_parameter(value))
        return self

    def extend(self, values):
        """Append each of ``values``."""
        for v in values:
            self.append(v)
        return self


class ParameterDict(_Keyed, Cell):
    """Parameters held under string keys, in insertion order.

    >>> import eagerad
    >>> pd = ParameterDict({"w": Parameter(eagerad.ones(2))}); list(pd), pd["w"].shape
    (['w'], (2,))
    """

    def __init__(self, parameters=None):
        super().__init__()
        for key, value in (parameters.items() if hasattr(parameters, "items") else parameters or ()):
            self[key] = value

    def _keys(self):
        return self._registry()[0]

    def __setitem__(self, key, value):
        _check_key(key, "ParameterDict")
        setattr(self, key, value if isinstance(value, Parameter) else Parameter(value))
