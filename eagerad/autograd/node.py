"""Graph nodes.  A node is created by every recorded operation; it knows the
edges to the nodes (or leaf tensors) of its inputs and a ``backward_fn`` written
by the op layer.  Nodes hold their input tensors only until backward frees them.
"""
import itertools

from ..tensor import Tensor
from .anomaly import anomaly, creation_trace
from .forward_ad import kept_tangents

_sequence = itertools.count()


class Node:
    """One recorded operation.

    ``backward_fn(grads, inputs, outputs)`` gets one gradient per output (None
    where none flowed) and returns one gradient (or None) per entry of ``next``.
    ``saved`` are the input tensors whose values the rule reads; their versions
    are checked when backward unpacks them.  ``op`` and ``kwargs`` say which
    registry op (with which keywords) the node recorded.

    >>> x = eagerad.tensor(2.0, requires_grad=True)
    >>> node = (x * x).grad_fn; node.name, node.n_outputs, node.op.name
    ('MulBackward', 1, 'mul')
    """
    __slots__ = ("name", "op", "backward_fn", "next", "inputs", "saved_versions", "out_data",
                 "out_version", "seq", "released", "device", "lean", "__weakref__", "__dict__")
    # Rarely set fields, as class defaults (a node gets its own value only when one is
    # set), so that recording an op, once per op, skips them.
    pre_hooks = None        # output index -> gradient hooks
    retained = None         # output index -> weak reference to a tensor that retains grad
    trace = None            # creation stack under anomaly detection
    kwargs = {}             # the op's keywords (none: the usual call); never mutated
    n_outputs = 1
    out_tangents = None     # forward-mode tangents of saved outputs (``forward_ad``)
    # ``lean``: the node's backward on bare arrays made for its op and call shape by
    # ``eagerad.ops.lean`` (``lean(node, gd)`` -> input gradient arrays, or None where its
    # conditions do not hold and ``op.array_backward`` decides); None for other nodes.

    def __init__(self, name, backward_fn, next_edges, inputs, saved, outputs, save_outputs,
                 op=None, kwargs=None):
        self.name = name
        self.op = op            # the registry op recorded (None for a custom Function)
        if kwargs:
            self.kwargs = kwargs
        self.lean = None
        self.backward_fn = backward_fn
        self.next = next_edges
        self.inputs = inputs
        if saved:
            versions = []
            for t in saved:
                versions.append((t, t._version, t._version[0]))
            self.saved_versions = tuple(versions)
        else:
            self.saved_versions = ()
        if len(outputs) != 1:
            self.n_outputs = len(outputs)
        self.device = outputs[0]._device
        if save_outputs:
            data, versions = [], []
            for o in outputs:
                data.append(o._data)
                versions.append((o._version, o._version[0]))
            self.out_data, self.out_version = tuple(data), tuple(versions)
        else:
            self.out_data = self.out_version = None
        self.seq = next(_sequence)
        self.released = False
        if anomaly.enabled:
            self.trace = creation_trace()

    def __repr__(self):
        return f"<{self.torch_name} object at {id(self):#x}>"      # as PyTorch: AddBackward0

    @property
    def torch_name(self):
        """PyTorch's class name for this node (``MulBackward0``: built-in ops carry the
        overload suffix, custom Functions keep their own ``NameBackward``); what the
        PyTorch face prints in ``grad_fn=<...>``.

        >>> (eagerad.tensor(1.0, requires_grad=True) * 2).grad_fn.torch_name
        'MulBackward0'
        """
        return self.name + "0" if self.op is not None else self.name

    @property
    def next_functions(self):
        """``((node or AccumulateGrad or None, output index), ...)``, one per input, as
        PyTorch's: a leaf that requires grad appears as ``AccumulateGrad``, an input that
        does not as ``(None, 0)``.

        >>> x = eagerad.tensor(1.0, requires_grad=True)
        >>> [(type(f).__name__, i) for f, i in (x.exp() * x).grad_fn.next_functions]
        [('Node', 0), ('AccumulateGrad', 0)]
        """
        return tuple((None, 0) if e is None else
                     (AccumulateGrad(e[0]), 0) if isinstance(e[0], Tensor) else e
                     for e in self.next)

    def __call__(self, *args):
        raise TypeError(f"{self.name} is a graph node; call backward() on its output instead")

    def unpack(self):
        """Inputs and outputs for the rule, checking that none was changed in place.

        >>> x = eagerad.tensor(2.0, requires_grad=True)
        >>> inputs, outs = (x * x).grad_fn.unpack(); inputs[0] is x, outs
        (True, None)
        """
        if self.released:
            raise RuntimeError(
                f"Trying to backward through the graph a second time (node {self.name}): its saved "
                "tensors were freed by the first backward. Specify retain_graph=True on the first "
                "backward()/grad() call if you need to backward twice.")
        for t, ver, seen in self.saved_versions:
            if ver[0] != seen:
                raise RuntimeError(
                    f"one of the variables needed for gradient computation has been modified by an "
                    f"inplace operation: a tensor of shape {list(t.shape)} and dtype {t.dtype} saved "
                    f"by {self.name} is at version {ver[0]}; expected version {seen} instead. "
                    "Use an out-of-place op (or .clone()) before modifying it.")
        if self.out_data is None:
            return self.inputs, None
        outs = []
        for i, data in enumerate(self.out_data):
            ver, seen = self.out_version[i]
            if ver[0] != seen:
                raise RuntimeError(
                    f"one of the variables needed for gradient computation has been modified by an "
                    f"inplace operation: the output of {self.name} (shape {list(data.shape)}) is at "
                    f"version {ver[0]}; expected version {seen} instead.")
            t = Tensor._make(data, self.device, True, self, ver)
            if i:
                t._out_index = i      # (0 is the class default: no instance dict)
            if self.out_tangents is not None:     # held weakly: see forward_ad.keep_out_tangents
                t._tangents = kept_tangents(self.out_tangents[i])
            outs.append(t)
        return self.inputs, outs

    def release(self):
        """Drop saved values after a backward that does not retain the graph.

        A node that saved nothing (add, reshape, ...) keeps its inputs' metadata
        and may run again, as in PyTorch.  ``backward_fn`` goes too: a custom
        Function's context (and what it saved) lives in it.

        >>> x = eagerad.tensor(2.0, requires_grad=True); node = (x * x).grad_fn
        >>> node.release(); node.released
        True
        """
        if self.saved_versions or self.out_data is not None:
            self.released = True
            self.inputs = self.backward_fn = None
            self.saved_versions = ()
            self.out_data = self.out_version = None
            if self.out_tangents is not None:
                self.out_tangents = None


_new = object.__new__


def lean_node(name, op, backward_fn, next_edges, inputs, saved_versions, out, save_output,
              lean=None):
    """A ``Node`` of a one-output registry op called without keywords, built field by field
    (the per-op recording path): ``saved_versions`` come made, ``out`` is the output Tensor.

    >>> x = eagerad.tensor(2.0, requires_grad=True); y = x * x
    >>> node = lean_node("MulBackward", y.grad_fn.op, None, ((x, 0), (x, 0)), (x, x), (), y, False)
    >>> node.n_outputs, node.kwargs, node.out_data
    (1, {}, None)
    """
    node = _new(Node)
    node.name = name
    node.op = op
    node.backward_fn = backward_fn
    node.next = next_edges
    node.inputs = inputs
    node.saved_versions = saved_versions
    node.lean = lean
    node.device = out._device
    if save_output:
        version = out._version
        node.out_data = (out._data,)
        node.out_version = ((version, version[0]),)
    else:
        node.out_data = node.out_version = None
    node.seq = next(_sequence)
    node.released = False
    if anomaly.enabled:
        node.trace = creation_trace()
    return node


class AccumulateGrad:
    """PyTorch's face of a leaf in ``grad_fn.next_functions``: where gradients accumulate
    into ``variable.grad``.

    >>> x = eagerad.tensor(1.0, requires_grad=True)
    >>> acc, idx = (x * 2).grad_fn.next_functions[0]; acc.variable is x, idx, acc
    (True, 0, <AccumulateGrad>)
    """
    __slots__ = ("variable",)
    name = torch_name = "AccumulateGrad"
    next_functions = ()

    def __init__(self, variable):
        self.variable = variable

    def __eq__(self, other):
        return isinstance(other, AccumulateGrad) and other.variable is self.variable

    def __hash__(self):
        return id(self.variable)

    def __repr__(self):
        return "<AccumulateGrad>"
