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

import numpy as np

from .. import backend, dtype as dt
from ..device import Device, as_device
from ..face import ambiguous
from ..tensor import Parameter, Tensor
from .inplace import assign
from .hooks import KINDS, add_hook, call_with_hooks


class Cell:
    """Base class of layers, losses and whole networks.

    Subclasses write ``construct`` (MindSpore) or ``forward`` (PyTorch); calling the
    cell runs it.  The spelling also sets the starting mode, as in each framework: a
    class that writes ``construct`` starts in inference mode (``training`` False, as
    MindSpore's Cells: call ``set_train()``), one that writes ``forward`` in training
    mode (PyTorch's Modules); eagerad's own layers start in training mode, and a
    child attached to a ``construct``-spelled cell takes that cell's mode.

    >>> class Twice(Cell):
    ...     def construct(self, x):
    ...         return x * 2
    >>> Twice()(eagerad.ones(2)).tolist()
    [2.0, 2.0]
    """

    # What a face's base class sets (``eagerad.torch.nn.Module``, ``eagerad.mindspore.nn.Cell``);
    # None: decided by the user's spelling, ``construct`` (MindSpore) or ``forward`` (PyTorch).
    _face = None                # the face the cell's parameters are stamped with
    _starts_training = None     # PyTorch's Modules start training, MindSpore's Cells not
    _raw_grad_output = None     # MindSpore's backward hooks see construct's own output grads
    _signature = None           # "torch"/"mindspore": whose signature a two-faced layer binds

    def __init__(self, auto_prefix=True, flags=None):
        self._registry()
        self.__dict__["_auto_prefix"] = auto_prefix
        starts = type(self)._starts_training
        self.__dict__["training"] = _spelling(type(self)) != "construct" if starts is None \
            else starts

    def _registry(self):
        """The ordered name lists, created on first use (also if ``__init__`` was skipped)."""
        d = self.__dict__
        if "_param_names" not in d:
            d["_param_names"] = []
            d["_cell_names"] = []
        return d["_param_names"], d["_cell_names"]

    def _buffer_registry(self):
        """``{name: persistent}`` of the buffers (PyTorch's ``register_buffer``), in order."""
        return self.__dict__.setdefault("_buffer_names", {})

    # ----------------------------------------------------------- registration
    def __setattr__(self, name, value):
        params, cells = self._registry()
        for registry in (params, cells):
            if name in registry:
                registry.remove(name)
        face = type(self)._face
        buffers = self.__dict__.get("_buffer_names")
        if buffers and name in buffers and not isinstance(value, (Parameter, Cell)):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign {type(value).__name__} to buffer {name!r} "
                                "(a Tensor or None is expected)")
            if value is not None and face is not None:
                value._face = face
            object.__setattr__(self, name, value)
            return
        if buffers and name in buffers:
            del buffers[name]
        if isinstance(value, Parameter):
            if value.name is None:
                value.name = name
            if face is not None:
                value._face = face
            params.append(name)
        elif isinstance(value, Cell):
            if face is not None:
                value._adopt_face(face)
            if self.__dict__.get("_auto_prefix", True):
                for p in value.get_parameters():
                    p.name = f"{name}.{p.name}"
            if _spelling(type(self)) == "construct":
                value.set_train(self.__dict__.get("training", False))
            cells.append(name)
        object.__setattr__(self, name, value)

    def _adopt_face(self, face):
        """Stamp the parameters and buffers of a child cell made by eagerad's own layers
        (which have no face of their own) with the face of the cell it is attached to."""
        if type(self)._face is None:
            for p in self.get_parameters():
                p._face = face
            for _, b in self.named_buffers():     # (both walks cover the sub-cells)
                b._face = face

    def framework_default(self, argument, torch_value, mindspore_value):
        """The default of ``argument`` where PyTorch's and MindSpore's differ: the face's
        layer class says which (``_signature``); the engine's own layer raises.

        >>> class Slope(Cell):
        ...     _signature = "mindspore"
        >>> Slope().framework_default("alpha", 0.01, 0.2)
        0.2
        """
        face = type(self)._signature
        if face is None:
            raise ambiguous(f"nn.{type(self).__name__}() without {argument}=",
                            f"{argument}={torch_value!r}", f"{argument}={mindspore_value!r}",
                            f"pass {argument}=")
        return torch_value if face == "torch" else mindspore_value

    def raw_grad_output(self):
        """Whether backward hooks see the gradient of ``construct``'s own output
        (MindSpore) rather than of the output after forward hooks (PyTorch)."""
        raw = type(self)._raw_grad_output
        return _spelling(type(self)) == "construct" if raw is None else raw

    def __delattr__(self, name):
        params, cells = self._registry()
        for registry in (params, cells):
            if name in registry:
                registry.remove(name)
        object.__delattr__(self, name)

    def insert_param_to_cell(self, param_name, param):
        """Register ``param`` under ``param_name`` (MindSpore).

        >>> c = Cell()
        >>> c.insert_param_to_cell('w', Parameter(eagerad.zeros(2)))
        >>> [p.name for p in c.get_parameters()]
        ['w']
        """
        if not isinstance(param, Parameter):
            raise TypeError(f"insert_param_to_cell: {param_name!r} must be a Parameter, "
                            f"got {type(param).__name__}")
        setattr(self, param_name, param)

    def register_buffer(self, name, tensor, persistent=True):
        """Keep ``tensor`` as state that is not a parameter (PyTorch): it is in
        ``state_dict()`` (when ``persistent``), ``buffers()`` and moves with ``to()``, but
        not in ``parameters()``, so no optimizer updates it (running statistics, masks).

        >>> c = Cell(); c.register_buffer('mask', eagerad.ones(2))
        >>> list(c.state_dict()), list(c.parameters())
        (['mask'], [])
        """
        if not isinstance(name, str) or not name or "." in name:
            raise KeyError(f"register_buffer: name must be a non-empty string without '.', got {name!r}")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"register_buffer: {name!r} must be a Tensor or None, got "
                            f"{type(tensor).__name__}")
        if name in self._registry()[0] or name in self._registry()[1]:
            raise KeyError(f"register_buffer: {name!r} is already a parameter or sub-module")
        self._buffer_registry()[name] = bool(persistent)
        self.__setattr__(name, tensor)

    def named_buffers(self, prefix="", recurse=True):
        """``(path, tensor)`` for every buffer of the tree (or of this cell), each once.

        >>> c = Cell(); c.register_buffer('count', eagerad.zeros(1))
        >>> [n for n, _ in c.named_buffers()]
        ['count']
        """
        seen = set()
        for path, cell in (self.cells_and_names(name_prefix=prefix) if recurse else [(prefix, self)]):
            for name in cell._buffer_registry():
                b = getattr(cell, name)
                if b is not None and id(b) not in seen:
                    seen.add(id(b))
                    yield (f"{path}.{name}" if path else name), b

    def buffers(self, recurse=True):
        """The buffers' tensors (PyTorch).

        >>> c = Cell(); c.register_buffer('count', eagerad.zeros(1)); len(list(c.buffers()))
        1
        """
        return (b for _, b in self.named_buffers(recurse=recurse))

    def apply(self, fn):
        """Call ``fn`` on every sub-cell, then on this cell (PyTorch's ``Module.apply``, as
        used to initialise weights by layer type); returns the cell.

        >>> seen = []; _ = eagerad.nn.SequentialCell(eagerad.nn.ReLU()).apply(lambda c: seen.append(type(c).__name__))
        >>> seen
        ['ReLU', 'SequentialCell']
        """
        for child in self.cells():
            child.apply(fn)
        fn(self)
        return self

    def register_parameter(self, name, param):
        """Register ``param`` under ``name`` (PyTorch); ``None`` is stored as a plain attribute.

        >>> c = Cell()
        >>> c.register_parameter('bias', None)
        >>> c.bias is None, list(c.parameters())
        (True, [])
        """
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"register_parameter: {name!r} must be a Parameter or None, "
                            f"got {type(param).__name__}")
        setattr(self, name, param)

    def insert_child_to_cell(self, child_name, child_cell):
        """Register ``child_cell`` under ``child_name`` (MindSpore).

        >>> c = Cell()
        >>> c.insert_child_to_cell('act', eagerad.nn.ReLU())
        >>> list(c.name_cells())
        ['act']
        """
        if not isinstance(child_cell, Cell):
            raise TypeError(f"insert_child_to_cell: {child_name!r} must be a Cell, "
                            f"got {type(child_cell).__name__}")
        setattr(self, child_name, child_cell)

    add_module = register_module = insert_child_to_cell

    # ---------------------------------------------------------------- calling
    def construct(self, *args, **kwargs):
        """The computation; defaults to ``forward`` for PyTorch-style subclasses.

        >>> class Half(Cell):
        ...     def forward(self, x):
        ...         return x / 2
        >>> Half().construct(eagerad.ones(1)).tolist()
        [0.5]
        """
        if type(self).forward is Cell.forward:
            raise NotImplementedError(f"{type(self).__name__} must define construct() or forward()")
        return self.forward(*args, **kwargs)

    def forward(self, *args, **kwargs):
        """PyTorch's name for ``construct``.

        >>> eagerad.nn.ReLU().forward(eagerad.tensor([-1.0, 2.0])).tolist()
        [0.0, 2.0]
        """
        if type(self).construct is Cell.construct:
            raise NotImplementedError(f"{type(self).__name__} must define construct() or forward()")
        return self.construct(*args, **kwargs)

    def __call__(self, *args, **kwargs):
        d = self.__dict__
        if d.get("_forward_pre_hooks") or d.get("_forward_hooks") or d.get("_recompute") or \
                d.get("_backward_pre_hooks") or d.get("_backward_hooks"):
            return call_with_hooks(self, args, kwargs)
        return self.construct(*args, **kwargs)

    # ------------------------------------------------------------------ hooks
    def _hooks(self, kind):
        return self.__dict__.setdefault(kind, OrderedDict())

    def register_forward_pre_hook(self, hook_fn):
        """Call ``hook_fn(cell, inputs)`` before each forward; a non-None result replaces
        the inputs.  Returns a handle: ``handle.remove()`` unregisters it.

        >>> d = eagerad.nn.Dense(1, 1, has_bias=False, weight_init='ones')
        >>> h = d.register_forward_pre_hook(lambda cell, inputs: (inputs[0] * 10,))
        >>> d(eagerad.ones(1, 1)).item()
        10.0
        """
        return add_hook(self._hooks(KINDS[0]), hook_fn)

    def register_forward_hook(self, hook_fn):
        """Call ``hook_fn(cell, inputs, output)`` after each forward; a non-None result
        replaces the output.  Returns a removable handle.

        >>> d = eagerad.nn.Dense(1, 1, has_bias=False, weight_init='ones')
        >>> h = d.register_forward_hook(lambda cell, inputs, out: out + 1)
        >>> d(eagerad.ones(1, 1)).item()
        2.0
        """
        return add_hook(self._hooks(KINDS[1]), hook_fn)

    def register_backward_pre_hook(self, hook_fn):
        """Call ``hook_fn(cell, grad_output)`` when the gradient with respect to the
        cell's output arrives; a non-None result replaces it.  Returns a removable handle.

        >>> x = eagerad.tensor([2.0], requires_grad=True)
        >>> h = eagerad.nn.ReLU().register_backward_pre_hook(lambda c, g: (g[0] * 3,))
        """
        return add_hook(self._hooks(KINDS[2]), hook_fn)

    def register_backward_hook(self, hook_fn):
        """Call ``hook_fn(cell, grad_input, grad_output)`` once the gradients with respect
        to the cell's inputs are known (tuples of tensors); a non-None result replaces
        ``grad_input``.  Returns a removable handle.

        >>> relu, seen = eagerad.nn.ReLU(), []
        >>> h = relu.register_backward_hook(lambda c, gi, go: seen.append(gi[0].tolist()))
        >>> x = eagerad.tensor([-1.0, 2.0], requires_grad=True)
        >>> relu(x).sum().backward(); seen
        [[0.0, 1.0]]
        """
        return add_hook(self._hooks(KINDS[3]), hook_fn)

    register_full_backward_hook = register_backward_hook
    register_full_backward_pre_hook = register_backward_pre_hook

    def recompute(self, **kwargs):
        """MindSpore's ``Cell.recompute()``: keep only this cell's inputs during forward
        and recompute its activations in backward (``eagerad.checkpoint``), trading time
        for memory.  Returns the cell.

        >>> net = eagerad.nn.SequentialCell(eagerad.nn.Dense(2, 2), eagerad.nn.Tanh()).recompute()
        >>> x = eagerad.ones(1, 2, requires_grad=True); net(x).sum().backward(); x.grad.shape
        (1, 2)
        """
        self.__dict__["_recompute"] = True
        return self

    # ------------------------------------------------------------- traversal
    def name_cells(self):
        """The direct children as an ordered ``{name: cell}``.

        >>> list(eagerad.nn.SequentialCell(eagerad.nn.ReLU(), eagerad.nn.Tanh()).name_cells())
        ['0', '1']
        """
        return OrderedDict((n, getattr(self, n)) for n in self._registry()[1])

    def cells(self):
        """The direct children.

        >>> eagerad.nn.SequentialCell(eagerad.nn.ReLU()).cells()
        [ReLU<>]
        """
        return list(self.name_cells().values())

    children = cells

    def named_children(self):
        """``(name, cell)`` for each direct child (PyTorch's spelling of ``name_cells``).

        >>> [n for n, _ in eagerad.nn.SequentialCell(eagerad.nn.ReLU()).named_children()]
        ['0']
        """
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
        """``(path, cell)`` for the whole tree, self first (PyTorch's ``cells_and_names``).

        >>> [n for n, _ in eagerad.nn.SequentialCell(eagerad.nn.ReLU()).named_modules()]
        ['', '0']
        """
        return self.cells_and_names()

    def modules(self):
        """Every cell of the tree, self first, each once (PyTorch), e.g. to find layers by type.

        >>> [type(c).__name__ for c in eagerad.nn.SequentialCell(eagerad.nn.ReLU()).modules()]
        ['SequentialCell', 'ReLU']
        """
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
        """PyTorch's spelling of ``parameters_and_names``.

        >>> [n for n, _ in eagerad.nn.Linear(2, 1).named_parameters()]
        ['weight', 'bias']
        """
        return self.parameters_and_names(prefix, expand=recurse)

    def get_parameters(self, expand=True):
        """Iterator over all parameters (MindSpore), in ``parameters_and_names``'s order.

        >>> len(list(eagerad.nn.Dense(2, 1).get_parameters()))
        2
        """
        if not expand:
            return (p for _, p in self.parameters_and_names(expand=False))
        found = []
        _collect_parameters(self, found, set(), set())
        return iter(found)

    def parameters(self, recurse=True):
        """Iterator over all parameters (PyTorch).

        >>> [p.shape for p in eagerad.nn.Linear(3, 2).parameters()]
        [(2, 3), (2,)]
        """
        return self.get_parameters(expand=recurse)

    def trainable_params(self, recurse=True):
        """The parameters with ``requires_grad=True``, as a list.

        >>> from eagerad import nn
        >>> len(nn.Dense(3, 2, has_bias=False).trainable_params())
        1
        """
        return [p for p in self.get_parameters(expand=recurse) if p.requires_grad]

    def untrainable_params(self, recurse=True):
        """The frozen parameters (``requires_grad=False``), as a list: what optimizers leave alone.

        >>> d = eagerad.nn.Dense(2, 1)
        >>> _ = d.bias.requires_grad_(False)
        >>> [p.name for p in d.untrainable_params()]
        ['bias']
        """
        return [p for p in self.get_parameters(expand=recurse) if not p.requires_grad]

    def parameters_dict(self, recurse=True):
        """Ordered ``{path: Parameter}`` (what ``save_checkpoint`` writes).

        >>> from eagerad import nn
        >>> list(nn.Dense(2, 1).parameters_dict())
        ['weight', 'bias']
        """
        return OrderedDict(self.parameters_and_names(expand=recurse))

    def state_dict(self):
        """``{path: Tensor}`` of the parameters and persistent buffers, cell by cell as
        PyTorch orders them, detached (sharing their memory).

        >>> sd = eagerad.nn.Dense(2, 1).state_dict()
        >>> list(sd), sd['weight'].requires_grad
        (['weight', 'bias'], False)
        """
        out = OrderedDict()
        for path, cell in self.cells_and_names():
            prefix = f"{path}." if path else ""
            for name in cell._registry()[0]:
                out.setdefault(prefix + name, getattr(cell, name).detach())
            for name, persistent in cell._buffer_registry().items():
                b = getattr(cell, name)
                if persistent and b is not None:
                    out.setdefault(prefix + name, b.detach())
        return out

    def load_state_dict(self, state_dict, strict=True):
        """Copy ``state_dict``'s values into the parameters and buffers (PyTorch); see
        ``load_param_into_net``.

        >>> a, b = eagerad.nn.Dense(2, 1), eagerad.nn.Dense(2, 1)
        >>> _ = b.load_state_dict(a.state_dict())
        >>> a.weight.tolist() == b.weight.tolist()
        True
        """
        buffers = dict(self.named_buffers())
        params = {k: v for k, v in state_dict.items() if k not in buffers}
        missing, unexpected = load_param_into_net(self, params, strict_load=False)
        missing = [k for k in missing if k not in buffers]
        for name, b in buffers.items():
            if name not in state_dict:
                missing.append(name)
                continue
            value = state_dict[name]
            value = value.numpy() if isinstance(value, Tensor) else np.asarray(value)
            if tuple(value.shape) != tuple(b.shape):
                raise ValueError(f"load_state_dict: buffer {name!r} has shape {tuple(b.shape)}, "
                                 f"the state dict's value {tuple(value.shape)}")
            b._data[...] = backend.get(b.device.type).from_numpy(value.astype(b.dtype)) \
                if b.device.type != "cpu" else value.astype(b.dtype)
            b._version[0] += 1
        if strict and (missing or unexpected):
            raise RuntimeError(f"load_state_dict: missing keys {missing}, unexpected keys "
                               f"{unexpected}")
        return missing, unexpected

    # ------------------------------------------------------------- modes, grads
    def set_train(self, mode=True):
        """Training (True) or inference (False) mode for this cell and all sub-cells.

        >>> net = eagerad.nn.SequentialCell(eagerad.nn.Dropout())
        >>> net.set_train(False)[0].training
        False
        """
        for _, cell in self.cells_and_names():
            cell.__dict__["training"] = bool(mode)
        return self

    def train(self, mode=True):
        """PyTorch's ``set_train``.

        >>> eagerad.nn.Dropout().train(False).training
        False
        """
        return self.set_train(mode)

    def eval(self):
        """Inference mode (Dropout off); same as ``set_train(False)``.

        >>> eagerad.nn.Dropout().eval().training
        False
        """
        return self.set_train(False)

    def requires_grad_(self, requires_grad=True):
        """Freeze (False) or unfreeze every parameter of the tree, e.g. a pretrained backbone
        while fine-tuning a head; returns the cell.

        >>> eagerad.nn.Dense(2, 1).requires_grad_(False).trainable_params()
        []
        """
        for p in self.get_parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Forget the ``.grad`` accumulated by ``backward`` in every parameter.

        >>> d = eagerad.nn.Dense(1, 1)
        >>> d(eagerad.ones(1, 1)).sum().backward()
        >>> d.zero_grad(); d.weight.grad is None
        True
        """
        for p in self.get_parameters():
            if p.grad is not None:
                p.grad = None if set_to_none else p.grad * 0

    def to(self, *args, **kwargs):
        """Move every parameter and buffer to a device and/or cast the floating ones to a
        dtype, in place (names and identity stay): ``to('cpu')``, ``to(float64)``,
        ``to('cpu', float64)``, ``to(device=..., dtype=...)``.

        >>> d = eagerad.nn.Dense(1, 1)
        >>> d.to('cpu') is d, d.weight.device, d.to(eagerad.float64).weight.dtype
        (True, device(type='cpu'), dtype('float64'))
        """
        device, dtype = kwargs.pop("device", None), kwargs.pop("dtype", None)
        kwargs.pop("non_blocking", None)
        if kwargs:
            raise TypeError(f"to() got unexpected keywords {sorted(kwargs)}")
        for a in args:
            if isinstance(a, Device) or isinstance(a, str) and a.split(":")[0] in ("cpu", "cuda"):
                device = a
            else:
                dtype = a
        dev = as_device(device) if device is not None else None
        dtype = dt.as_dtype(dtype)
        tensors = list(self.get_parameters()) + list(self.buffers())
        for p in tensors:
            target = dtype if dtype is not None and p.dtype.kind == "f" else p.dtype
            if (dev is None or p.device == dev) and target == p.dtype:
                continue
            moved = p.detach()
            if dev is not None and p.device != dev:
                moved = moved.to(dev)
            if target != p.dtype:
                moved = moved.astype(target)
            p._data, p._device = moved._data, moved._device
            p._grad = None
            p._version[0] += 1
        return self

    def double(self):
        """Floating parameters and buffers cast to float64 in place (PyTorch).

        >>> eagerad.nn.Dense(1, 1).double().weight.dtype
        dtype('float64')
        """
        return self.to(dt.float64)

    def float(self):
        """Floating parameters and buffers cast to float32 in place (PyTorch).

        >>> eagerad.nn.Dense(1, 1).double().float().weight.dtype
        dtype('float32')
        """
        return self.to(dt.float32)

    def half(self):
        """Floating parameters and buffers cast to float16 in place (PyTorch).

        >>> eagerad.nn.Dense(1, 1).half().weight.dtype
        dtype('float16')
        """
        return self.to(dt.float16)

    def cpu(self):
        """Every parameter moved to host memory (``to('cpu')``), e.g. before saving.

        >>> d = eagerad.nn.Dense(1, 1)
        >>> d.cpu() is d, d.weight.device
        (True, device(type='cpu'))
        """
        return self.to("cpu")

    def cuda(self, index=0):
        """Every parameter moved to GPU ``index`` (``to('cuda:<index>')``); needs numba-cuda and a GPU.

        >>> eagerad.nn.Dense(1, 1).cuda().weight.device   # doctest: +SKIP
        device(type='cuda', index=0)
        """
        return self.to(f"cuda:{index}")

    # --------------------------------------------------------------- printing
    def extend_repr(self):
        """Extra text shown inside the parentheses of ``repr`` (layer settings).

        >>> class Scale(Cell):
        ...     def extend_repr(self):
        ...         return "k=2"
        >>> Scale()
        Scale<k=2>
        """
        return ""

    def __repr__(self):
        head = f"{type(self).__name__}<{self.extend_repr()}"
        body = "".join(f"\n  ({name}): " + repr(child).replace("\n", "\n  ")
                       for name, child in self.name_cells().items())
        return head + (body + "\n  >" if body else ">")


Module = Cell


def _collect_parameters(cell, found, seen_cells, seen_params):
    """Append the parameters of the tree under ``cell`` to ``found``, each once, in the
    order of ``parameters_and_names`` (cells depth first, self first), without building
    the names it yields: ``parameters()`` is called at every training step (gradient
    clipping, optimizers made per step)."""
    seen_cells.add(id(cell))
    params, cells = cell._registry()
    for name in params:
        p = getattr(cell, name)
        if id(p) not in seen_params:
            seen_params.add(id(p))
            found.append(p)
    for name in cells:
        child = getattr(cell, name)
        if id(child) not in seen_cells:
            _collect_parameters(child, found, seen_cells, seen_params)


def _spelling(cls):
    """``'construct'`` or ``'forward'``: which method the nearest class written outside
    eagerad defines (None for eagerad's own layers)."""
    for klass in cls.__mro__:
        if klass.__module__.startswith("eagerad."):
            continue
        for method in ("construct", "forward"):
            if method in klass.__dict__:
                return method
    return None


def load_param_into_net(net, parameter_dict, strict_load=False):
    """Copy ``parameter_dict``'s values into ``net``'s parameters in place, by name.

    Returns ``(param_not_load, ckpt_not_load)``: the net's parameter names missing from
    the dict and the dict's names the net has no parameter for.  A shape mismatch
    raises ValueError naming the parameter and both shapes; with ``strict_load=True``
    any missing or unexpected name raises too.

    >>> net = eagerad.nn.Dense(1, 1); w = {'weight': eagerad.Tensor([[5.0]]), 'extra': eagerad.Tensor([0.0])}
    >>> load_param_into_net(net, w), net.weight.tolist()
    ((['bias'], ['extra']), [[5.0]])
    """
    if not isinstance(parameter_dict, dict):
        raise TypeError(f"load_param_into_net: parameter_dict must be a dict, "
                        f"got {type(parameter_dict).__name__}")
    own = net.parameters_dict()
    for name, param in own.items():
        if name not in parameter_dict:
            continue
        value = parameter_dict[name]
        value = value if isinstance(value, Tensor) else Tensor(np.asarray(value))
        if value.shape != param.shape:
            raise ValueError(f"load_param_into_net: parameter {name!r} has shape {param.shape} in "
                             f"the net but {value.shape} in the checkpoint")
    param_not_load = [n for n in own if n not in parameter_dict]
    ckpt_not_load = [n for n in parameter_dict if n not in own]
    if strict_load and (param_not_load or ckpt_not_load):
        raise ValueError(f"load_param_into_net: missing from the checkpoint: {param_not_load}; "
                         f"not in the net: {ckpt_not_load}")
    for name, param in own.items():
        if name in parameter_dict:
            value = parameter_dict[name]
            assign(param, value if isinstance(value, Tensor) else Tensor(np.asarray(value)))
    return param_not_load, ckpt_not_load
