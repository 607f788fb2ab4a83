"""``Cell`` (MindSpore) a.k.a. ``Module`` (PyTorch): a callable that owns Parameters
and sub-cells.

Attributes assigned in ``__init__`` are registered by type: a ``Parameter`` becomes a
parameter of the cell, a ``Cell`` a child.  Both stay ordinary instance attributes
(attribute access costs nothing extra); the cell only keeps the names in order.
When a child is attached as ``self.fc``, the names of its parameters gain the prefix
``fc.``, so a Dense weight prints as ``fc.weight`` as in MindSpore.

>>> import eagerad
>>> from eagerad import nn
>>> class Net(nn.Cell):
...     def __init__(self):
...         super().__init__()
...         self.fc = nn.Dense(3, 1)
...     def construct(self, x):
...         return self.fc(x)
>>> [p.name for p in Net().trainable_params()]
['fc.weight', 'fc.bias']
"""
from collections import OrderedDict

from ..device import as_device
from ..tensor import Parameter


class Cell:
    """Base class of layers, losses and whole networks.

    Subclasses write ``construct`` (MindSpore) or ``forward`` (PyTorch); calling the
    cell runs it.  ``training`` starts True (PyTorch's default), so Dropout is active
    until ``set_train(False)`` / ``eval()``.
    """

    def __init__(self, auto_prefix=True, flags=None):
        self._registry()
        self.__dict__["_auto_prefix"] = auto_prefix
        self.__dict__["training"] = True

    def _registry(self):
        """The ordered name lists, created on first use (also if ``__init__`` was skipped)."""
        d = self.__dict__
        if "_param_names" not in d:
            d["_param_names"] = []
            d["_cell_names"] = []
        return d["_param_names"], d["_cell_names"]

    # ----------------------------------------------------------- registration
    def __setattr__(self, name, value):
        params, cells = self._registry()
        for registry in (params, cells):
            if name in registry:
                registry.remove(name)
        if isinstance(value, Parameter):
            if value.name is None:
                value.name = name
            params.append(name)
        elif isinstance(value, Cell):
            if self.__dict__.get("_auto_prefix", True):
                for p in value.get_parameters():
                    p.name = f"{name}.{p.name}"
            cells.append(name)
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        params, cells = self._registry()
        for registry in (params, cells):
            if name in registry:
                registry.remove(name)
        object.__delattr__(self, name)

    def insert_param_to_cell(self, param_name, param):
        """Register ``param`` under ``param_name`` (MindSpore)."""
        if not isinstance(param, Parameter):
            raise TypeError(f"insert_param_to_cell: {param_name!r} must be a Parameter, "
                            f"got {type(param).__name__}")
        setattr(self, param_name, param)

    def register_parameter(self, name, param):
        """Register ``param`` under ``name`` (PyTorch); ``None`` is stored as a plain attribute."""
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"register_parameter: {name!r} must be a Parameter or None, "
                            f"got {type(param).__name__}")
        setattr(self, name, param)

    def insert_child_to_cell(self, child_name, child_cell):
        """Register ``child_cell`` under ``child_name`` (MindSpore)."""
        if not isinstance(child_cell, Cell):
            raise TypeError(f"insert_child_to_cell: {child_name!r} must be a Cell, "
                            f"got {type(child_cell).__name__}")
        setattr(self, child_name, child_cell)

    add_module = register_module = insert_child_to_cell

    # ---------------------------------------------------------------- calling
    def construct(self, *args, **kwargs):
        """The computation; defaults to ``forward`` for PyTorch-style subclasses."""
        if type(self).forward is Cell.forward:
            raise NotImplementedError(f"{type(self).__name__} must define construct() or forward()")
        return self.forward(*args, **kwargs)

    def forward(self, *args, **kwargs):
        """PyTorch's name for ``construct``."""
        if type(self).construct is Cell.construct:
            raise NotImplementedError(f"{type(self).__name__} must define construct() or forward()")
        return self.construct(*args, **kwargs)

    def __call__(self, *args, **kwargs):
        return self.construct(*args, **kwargs)

    # ------------------------------------------------------------- traversal
    def name_cells(self):
        """The direct children as an ordered ``{name: cell}``."""
        return OrderedDict((n, getattr(self, n)) for n in self._registry()[1])

    def cells(self):
        """The direct children."""
        return list(self.name_cells().values())

    children = cells

    def named_children(self):
        return iter(self.name_cells().items())

    def cells_and_names(self, cells=None, name_prefix=""):
        """Every cell of the tree, ``("", self)`` first, each once, with its path.

        >>> from eagerad import nn
        >>> [n for n, _ in nn.SequentialCell(nn.Dense(2, 2), nn.ReLU()).cells_and_names()]
        ['', '0', '1']
        """
        seen = set() if cells is None else cells
        if id(self) in seen:
            return
        seen.add(id(self))
        yield name_prefix, self
        for name, child in self.name_cells().items():
            path = f"{name_prefix}.{name}" if name_prefix else name
            yield from child.cells_and_names(seen, path)

    def named_modules(self):
        return self.cells_and_names()

    def modules(self):
        return (cell for _, cell in self.cells_and_names())

    def parameters_and_names(self, name_prefix="", expand=True):
        """``(path, Parameter)`` for every parameter of the tree, each once.

        >>> from eagerad import nn
        >>> [n for n, _ in nn.Dense(2, 1).parameters_and_names()]
        ['weight', 'bias']
        """
        seen = set()
        cells = self.cells_and_names(name_prefix=name_prefix) if expand else [(name_prefix, self)]
        for path, cell in cells:
            for name in cell._registry()[0]:
                p = getattr(cell, name)
                if id(p) not in seen:
                    seen.add(id(p))
                    yield (f"{path}.{name}" if path else name), p

    def named_parameters(self, prefix="", recurse=True):
        """PyTorch's spelling of ``parameters_and_names``."""
        return self.parameters_and_names(prefix, expand=recurse)

    def get_parameters(self, expand=True):
        """Iterator over all parameters (MindSpore)."""
        return (p for _, p in self.parameters_and_names(expand=expand))

    def parameters(self, recurse=True):
        """Iterator over all parameters (PyTorch)."""
        return self.get_parameters(expand=recurse)

    def trainable_params(self, recurse=True):
        """The parameters with ``requires_grad=True``, as a list.

        >>> from eagerad import nn
        >>> len(nn.Dense(3, 2, has_bias=False).trainable_params())
        1
        """
        return [p for p in self.get_parameters(expand=recurse) if p.requires_grad]

    def untrainable_params(self, recurse=True):
        return [p for p in self.get_parameters(expand=recurse) if not p.requires_grad]

    def parameters_dict(self, recurse=True):
        """Ordered ``{path: Parameter}`` (what ``save_checkpoint`` writes).

        >>> from eagerad import nn
        >>> list(nn.Dense(2, 1).parameters_dict())
        ['weight', 'bias']
        """
        return OrderedDict(self.parameters_and_names(expand=recurse))

    def state_dict(self):
        """``{path: Tensor}`` detached from the parameters (PyTorch); shares their memory."""
        return OrderedDict((n, p.detach()) for n, p in self.parameters_and_names())

    def load_state_dict(self, state_dict, strict=True):
        """Copy ``state_dict``'s values into the parameters (PyTorch); see ``load_param_into_net``."""
        from ..serialization import load_param_into_net
        return load_param_into_net(self, state_dict, strict_load=strict)

    # ------------------------------------------------------------- modes, grads
    def set_train(self, mode=True):
        """Training (True) or inference (False) mode for this cell and all sub-cells."""
        for _, cell in self.cells_and_names():
            cell.__dict__["training"] = bool(mode)
        return self

    def train(self, mode=True):
        """PyTorch's ``set_train``."""
        return self.set_train(mode)

    def eval(self):
        """Inference mode (Dropout off); same as ``set_train(False)``."""
        return self.set_train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.get_parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Forget the ``.grad`` accumulated by ``backward`` in every parameter."""
        for p in self.get_parameters():
            if p.grad is not None:
                p.grad = None if set_to_none else p.grad * 0

    def to(self, device):
        """Move every parameter's buffer to ``device`` in place (names and identity stay)."""
        dev = as_device(device)
        for p in self.get_parameters():
            if p.device != dev:
                moved = p.detach().to(dev)
                p._data, p._device, p._grad = moved._data, dev, None
                p._version[0] += 1
        return self

    def cpu(self):
        return self.to("cpu")

    def cuda(self, index=0):
        return self.to(f"cuda:{index}")

    # --------------------------------------------------------------- printing
    def extend_repr(self):
        """Extra text shown inside the parentheses of ``repr`` (layer settings)."""
        return ""

    def __repr__(self):
        head = f"{type(self).__name__}<{self.extend_repr()}"
        body = "".join(f"\n  ({name}): " + repr(child).replace("\n", "\n  ")
                       for name, child in self.name_cells().items())
        return head + (body + "\n  >" if body else ">")


Module = Cell
