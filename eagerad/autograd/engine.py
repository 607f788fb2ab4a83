"""The backward engine: walks the graph in dependency order, without recursion.

Gradients are summed with the Tensor ``+`` operator, so with ``create_graph``
the walk itself is recorded and can be differentiated again.  Leaves are
reached last, after every path into them has delivered its part.
"""
import operator
import sys
from heapq import heapify, heappop, heappush

import numpy as np

from .. import backend
from ..tensor import Tensor, ones_like
from . import batching, forward_ad
from .grad_mode import state as grad_state
from .anomaly import anomaly
from .node import Node


def _edge_of(t):
    """Where a gradient for tensor ``t`` enters the graph: (node, output index) or (leaf, 0)."""
    if t.grad_fn is not None:
        return t.grad_fn, t._out_index
    return t, 0


def _check_seed(i, out, g):
    if g is None:
        data = out._data
        if type(data) is np.ndarray and data.size == 1 and data.dtype.kind != "c":
            # the usual seed: one real scalar's 1
            return Tensor._make(np.ones(data.shape, data.dtype), out._device, face=out._face)
        if out.size != 1:
            raise RuntimeError(
                f"grad can be implicitly created only for scalar outputs: output {i} has shape "
                f"{out.shape}; pass gradient=/grad_outputs= of that shape")
        if out.dtype.kind == "c":
            raise RuntimeError(f"grad can be implicitly created only for real scalar outputs: "
                               f"output {i} is {out.dtype}; differentiate a real loss (e.g. "
                               "z.abs() or z.real) or pass grad_outputs=")
        return ones_like(out)
    if not isinstance(g, Tensor):
        g = Tensor(g, dtype=out.dtype, device=out.device)
    if g.shape != out.shape:
        if g.size == out.size == 1:
            return g.reshape(out.shape)
        raise RuntimeError(f"gradient for output {i} has shape {g.shape}, but the output has "
                           f"shape {out.shape}")
    if g.device != out.device:
        raise RuntimeError(f"gradient for output {i} is on {g.device}, output is on {out.device}")
    if g.dtype != out.dtype and g.dtype.kind == out.dtype.kind == "f":
        g = g.astype(out.dtype)       # an output's gradient has its dtype (PyTorch casts too)
    return g


def _collect(roots):
    """Every node reachable from ``roots``, children first.

    A node's edges point at nodes recorded before it, so ascending creation order
    (``seq``) is a topological order: walking it backwards reaches each node after
    every node that feeds it a gradient, with no dependency counting."""
    seen = set(roots)
    stack = list(roots)
    see, push, pop = seen.add, stack.append, stack.pop     # bound once: this runs per node
    while stack:
        for edge in pop().next:
            if edge is not None:
                child = edge[0]
                if type(child) is Node and child not in seen:
                    see(child)
                    push(child)
    return sorted(seen, key=_seq)


_seq = operator.attrgetter("seq")


def _needed(order, capture):
    """Nodes on a path to a captured input (``order`` lists children first)."""
    return _plan(order, capture)[0]


def _plan(order, capture):
    """``(need, skips)``: the nodes on a path to a captured input (``order`` lists children
    first), and for each of them whose inputs do not all need a gradient a bit mask of
    those that need none (bit i: input i's edge leads to no captured input and nothing
    there observes a gradient -- no hook, no retained gradient), so that their rules need
    not run: PyTorch's ``needs_input_grad``."""
    need = set()
    skips = {}
    for node in order:
        needed = node in capture
        mask = 0
        bit = 1
        for edge in node.next:
            if edge is not None:
                target = edge[0]
                if target in need or target in capture:
                    needed = True
                elif type(target) is Node:
                    if target.pre_hooks is None and target.retained is None:
                        mask |= bit
                elif not target._hooks:
                    mask |= bit
            bit <<= 1
        if needed:
            need.add(node)
            if mask:
                skips[node] = mask
    return need, skips


_NO_SKIPS = {}     # (a walk without captured inputs runs every rule)

# References to a gradient held only in the engine's buffer: the list or dict slot,
# ``_add``'s parameter and ``sys.getrefcount``'s own argument.
_ONLY_IN_BUFFER = 3


def _add(a, b, device=None):
    """``a + b`` for gradient accumulation; in place into ``a`` when nothing else can see it
    (``device`` is unused: Tensors know theirs; it is ``_send``'s common signature).

    Without a recorded backward, a partial sum that only the engine's buffer
    references (a fresh array owning its memory, same shape and dtype as ``b``)
    is updated in place, which saves allocating (and page-faulting) one buffer
    per extra path into a node; the result is the same ``a + b`` bit for bit.
    Only numpy arrays qualify: a numpy view holds a reference to its base, so the
    count proves nothing else sees the memory.  A numba-cuda device array's
    ``reshape`` shares the memory without referencing the original, so the count
    cannot rule out an alias there (and device arrays have no ``base``).
    """
    if a is None:
        return b
    if b is None:
        return a
    if not grad_state.enabled and sys.getrefcount(a) == _ONLY_IN_BUFFER and a is not b \
            and type(a) is Tensor and type(b) is Tensor \
            and a._tangents is None and b._tangents is None:
        arr = a._data
        # the array: ``a``'s slot, ``arr`` and getrefcount's argument
        if type(arr) is np.ndarray and arr.base is None and sys.getrefcount(arr) == 3 \
                and arr.shape == b.shape and arr.dtype == b.dtype and a._device == b._device and arr.flags.writeable:
            backend.get(a._device.type).inplace("add", arr, b._data)
            return a
    return a + b


def backward(outputs, grad_outputs, retain_graph=None, create_graph=False, inputs=None,
             allow_unused=False, accumulate=False):
    """Core of ``Tensor.backward``, ``autograd.grad`` and every transform.

    Without ``inputs`` gradients accumulate into the leaves' ``.grad``; with
    ``inputs`` they are returned (one per input, None where unused) and no
    ``.grad`` is touched, unless ``accumulate``: then they are added to the
    ``.grad`` of those tensors only (PyTorch's ``backward(inputs=...)``).

    >>> x = eagerad.tensor([1.0, 2.0], requires_grad=True)
    >>> backward([(x * x).sum()], [None], inputs=[x])
    (tensor([2., 4.]),)
    """
    if retain_graph is None:
        retain_graph = create_graph
    outputs = list(outputs)
    for i, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            raise TypeError(f"outputs[{i}] must be a Tensor, got {type(out).__name__}")
        if not out._requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a "
                               "grad_fn (was it computed under no_grad, or from tensors that do not "
                               "require grad?)")
    seeds = [_check_seed(i, out, g) for i, (out, g) in enumerate(zip(outputs, grad_outputs))]

    capture = None
    if inputs is not None:
        capture = {}
        for i, t in enumerate(inputs):
            if not isinstance(t, Tensor):
                raise TypeError(f"inputs[{i}] must be a Tensor, got {type(t).__name__}")
            if not t._requires_grad:
                raise RuntimeError(f"inputs[{i}] (shape {t.shape}) does not require grad")
            node, idx = _edge_of(t)
            capture.setdefault(node, set()).add(idx)

    prev = grad_state.enabled
    grad_state.enabled = bool(create_graph)
    try:
        captured = _run(outputs, seeds, retain_graph, create_graph, capture)
    finally:
        grad_state.enabled = prev
    if inputs is None:
        return None
    if accumulate:
        for t in inputs:
            g = captured.get(_edge_of(t))
            if g is not None:
                g = g if create_graph or not g._requires_grad else g.detach()
                g._face = t._face       # a leaf's gradient speaks the leaf's face
                t._grad = g if t._grad is None else t._grad + g
        return None
    result = []
    for i, t in enumerate(inputs):
        g = captured.get(_edge_of(t))
        if g is None and not allow_unused:
            raise RuntimeError(f"inputs[{i}] (shape {t.shape}) was not used to compute the outputs; "
                               "pass allow_unused=True to get None for it")
        if g is not None:
            g._face = t._face   # a gradient speaks its input's face
        result.append(g)
    return tuple(result)


def _run(outputs, seeds, retain_graph, create_graph, capture):
    if not create_graph and not anomaly.enabled and not forward_ad.levels and not batching.levels:
        for g in seeds:
            if type(g) is not Tensor:
                break
        else:
            return _run_arrays(outputs, seeds, retain_graph, capture)
    # node -> list of gradient per output; leaf tensor -> summed gradient
    buffers, leaf_grads, root_nodes = _seed(outputs, seeds, _add, False)

    order = _collect(root_nodes)
    need, skips = _plan(order, capture) if capture is not None else (None, _NO_SKIPS)
    captured = {}
    for node in reversed(order):
        grads = buffers.pop(node, None)
        if grads is None:       # every path into this node carried no gradient
            continue
        if node.pre_hooks is not None or node.retained is not None:
            grads = _node_hooks(node, grads, create_graph)
        if capture is not None and node in capture:
            for idx in capture[node]:
                captured[(node, idx)] = grads[idx]
        if need is not None and node not in need:
            continue
        keeps = node.saved_versions or node.out_data is not None
        if keeps or node.released:
            inputs, outs = node.unpack()
        else:                   # nothing saved to check or rebuild: unpack's answer, inlined
            inputs, outs = node.inputs, None
        op = node.op
        skip = skips.get(node) if op is not None else None
        if op is not None and create_graph and outs is None and node.n_outputs == 1 \
                and _constant_node(node, grads[0]):
            # nothing the rules read carries a graph, so neither would their result: the
            # array rules (what an unrecorded backward runs: the same numbers), unwrapped
            device = node.device
            in_grads = [None if a is None else Tensor._make(a, device) for a in
                        (op.array_backward(node, grads[0]._data, skip) if skip else
                         op.array_backward(node, grads[0]._data))]
        else:
            in_grads = node.backward_fn(grads, inputs, outs, skip) if skip else \
                node.backward_fn(grads, inputs, outs)
        if anomaly.enabled:
            anomaly.check(node, in_grads)
        if keeps and not retain_graph:
            node.release()      # (a node that keeps nothing stays as it is)
        _send(node, in_grads, buffers, leaf_grads, _add)

    return _finish_leaves(leaf_grads, capture, captured, create_graph)


def _constant_node(node, g):
    """Whether a node's rules, run on the output gradient ``g``, would record nothing: ``g``
    carries no graph and no tangent (no forward-mode or vmap level is open), and none of
    the saved inputs requires grad (the caller checks that no output is saved)."""
    if type(g) is not Tensor or g._requires_grad or forward_ad.levels or batching.levels:
        return False
    for t, _, _ in node.saved_versions:
        if t._requires_grad:
            return False
    return True


def _add_arrays(a, b, device):
    """``a + b`` of two gradient arrays on ``device`` (the backend's add, as the Tensor
    ``+``), in place into ``a`` when only the engine's buffer references it (``_add``'s
    test, on arrays)."""
    if a is None:
        return b
    if type(a) is np.ndarray and a.base is None and sys.getrefcount(a) == _ONLY_IN_BUFFER \
            and a is not b and type(b) is np.ndarray and a.shape == b.shape \
            and a.dtype == b.dtype and a.flags.writeable:
        return backend.get(device.type).inplace("add", a, b)
    return backend.get(device.type).binary("add", a, b)


def _seed(outputs, seeds, add, arrays):
    """The gradient buffers of the nodes (and sums of the leaves) that the outputs' seeds
    enter, and those nodes; ``arrays``: keep the seeds' bare arrays."""
    buffers, leaf_grads, root_nodes = {}, {}, []
    for out, g in zip(outputs, seeds):
        target, idx = _edge_of(out)
        device = g._device
        if arrays:
            g = g._data
        if type(target) is Node:
            buf = buffers.get(target)
            if buf is None:
                buf = buffers[target] = [None] * target.n_outputs
                root_nodes.append(target)
            buf[idx] = add(buf[idx], g, device)
        else:
            leaf_grads[target] = add(leaf_grads.get(target), g, device)
    return buffers, leaf_grads, root_nodes


def _send(node, in_grads, buffers, leaf_grads, add):
    """Deliver a node's input gradients along its edges: into the buffer of the node
    that made each input, or the sum of a leaf; ``add(a, b, device)`` sums two."""
    for edge, g in zip(node.next, in_grads):
        if g is None or edge is None:
            continue
        target, idx = edge
        if type(target) is Node:
            buf = buffers.get(target)
            if buf is None:
                if target.n_outputs == 1:
                    buffers[target] = [g]
                else:
                    buf = buffers[target] = [None] * target.n_outputs
                    buf[idx] = g
            else:
                buf[idx] = add(buf[idx], g, target.device)
        else:
            leaf_grads[target] = add(leaf_grads.get(target), g, target._device)


def _wrap(arrays, device, face):
    return [None if a is None else Tensor._make(a, device, face=face) for a in arrays]


def _run_arrays(outputs, seeds, retain_graph, capture):
    """``_run`` when nothing of the backward is recorded (no ``create_graph``, forward-mode
    level, vmap level or anomaly mode): gradients travel between nodes as bare backend
    arrays, and a node of a registry op runs its array-level backward (``op.array_backward``:
    the op's array rules, or its Tensor rules on wrapped arrays).  Gradients become Tensors
    only where someone sees them: hooks, retained and captured gradients, custom Functions'
    backward, and the leaves.  The same backend calls as ``_run``, so the same numbers."""
    face = seeds[0]._face
    # node -> list of gradient arrays per output; leaf tensor -> summed gradient array
    buffers, leaf_grads, root_nodes = _seed(outputs, seeds, _add_arrays, True)

    if capture is None:
        _walk_arrays(root_nodes, buffers, leaf_grads, retain_graph, face)
        return _finish_leaves({leaf: Tensor._make(g, leaf._device, face=leaf._face)
                               for leaf, g in leaf_grads.items()}, None, {}, False)
    order = _collect(root_nodes)
    need, skips = _plan(order, capture)
    unused = []         # (the lean steps' queue of nodes: this walk follows ``order``)
    captured = {}
    pop = buffers.pop
    for node in reversed(order):
        grads = pop(node, None)
        if grads is None:       # every path into this node carried no gradient
            continue
        if node.pre_hooks is not None or node.retained is not None:
            grads = [None if g is None else g._data
                     for g in _node_hooks(node, _wrap(grads, node.device, face), False)]
        if node in capture:
            for idx in capture[node]:
                g = grads[idx]
                captured[(node, idx)] = None if g is None else Tensor._make(g, node.device,
                                                                            face=face)
        if node not in need:
            continue
        op = node.op
        if op is not None and node.n_outputs == 1:
            if node in skips:
                in_grads = op.array_backward(node, grads[0], skips[node])
            else:
                lean = node.lean
                if lean is not None and lean(node, grads[0], not retain_graph, buffers,
                                             leaf_grads, unused):
                    continue
                in_grads = op.array_backward(node, grads[0])
        else:                   # a custom Function or a node of several outputs: on Tensors
            inputs, outs = node.unpack()
            in_grads = [g._data if isinstance(g, Tensor) else None for g in
                        node.backward_fn(_wrap(grads, node.device, face), inputs, outs)]
        if not retain_graph and (node.saved_versions or node.out_data is not None):
            node.release()      # (a node that keeps nothing stays as it is)
        _send(node, in_grads, buffers, leaf_grads, _add_arrays)

    return _finish_leaves({leaf: Tensor._make(g, leaf._device, face=leaf._face)
                           for leaf, g in leaf_grads.items()}, capture, captured, False)


def _walk_arrays(roots, buffers, leaf_grads, retain_graph, face):
    """``_run_arrays``'s walk when no input is captured (``backward()``), from the nodes
    ``roots`` that the seeds enter.

    Nodes run in descending creation order (``seq``), as in ``_collect``'s order, but
    taken from a heap of the nodes that a gradient has reached so far: a node's
    consumers were all recorded after it and are reached first (each by a chain of nodes
    recorded after it), so the heap gives the same order, and the same sums, without a
    walk of the graph beforehand.  A node is pushed when its gradient buffer is made.
    A node of a registry op runs through its lean step (``node.lean``, made for its op and
    call shape by ``eagerad.ops.lean``: rules, freeing and delivery in one generated
    function) where it has one and it applies, else through ``op.array_backward``;
    freeing and delivering are inlined here too (once per node)."""
    heap = [(-node.seq, node) for node in roots]
    heapify(heap)
    pop = buffers.pop
    get = buffers.get
    free = not retain_graph
    while heap:
        node = heappop(heap)[1]
        grads = pop(node)
        if node.pre_hooks is not None or node.retained is not None:
            grads = [None if g is None else g._data
                     for g in _node_hooks(node, _wrap(grads, node.device, face), False)]
        lean = node.lean
        if lean is not None and node.op is not None:   # (op None: ``backward_fn`` decides)
            if lean(node, grads[0], free, buffers, leaf_grads, heap):
                continue        # run, freed and delivered
            in_grads = node.op.array_backward(node, grads[0])
        elif node.op is not None and node.n_outputs == 1:
            in_grads = node.op.array_backward(node, grads[0])
        else:                   # a custom Function or a node of several outputs: on Tensors
            inputs, outs = node.unpack()
            in_grads = [g._data if isinstance(g, Tensor) else None for g in
                        node.backward_fn(_wrap(grads, node.device, face), inputs, outs)]
        if free and (node.saved_versions or node.out_data is not None):
            node.released = True       # ``node.release()``, inlined
            node.inputs = node.backward_fn = None
            node.saved_versions = ()
            node.out_data = node.out_version = None
            if node.out_tangents is not None:
                node.out_tangents = None
        for edge, g in zip(node.next, in_grads):      # ``_send``, inlined
            if g is None or edge is None:
                continue
            target = edge[0]
            if type(target) is Node:
                buf = get(target)
                if buf is None:
                    heappush(heap, (-target.seq, target))
                    if target.n_outputs == 1:
                        buffers[target] = [g]
                    else:
                        buf = buffers[target] = [None] * target.n_outputs
                        buf[edge[1]] = g
                else:
                    idx = edge[1]
                    buf[idx] = _add_arrays(buf[idx], g, target.device)
            else:
                leaf_grads[target] = _add_arrays(leaf_grads.get(target), g, target._device)


def _finish_leaves(leaf_grads, capture, captured, create_graph):
    """The leaves' summed gradients through their hooks, into ``captured`` (with
    ``inputs``) or accumulated into ``.grad``; returns ``captured``."""
    for leaf, g in leaf_grads.items():
        if leaf._hooks:
            g = _apply_hooks(leaf._hooks, g)
        if capture is not None:
            if leaf in capture:
                captured[(leaf, 0)] = g
            continue
        if not create_graph:
            g = g.detach() if g._requires_grad else g
        g._face = leaf._face    # a leaf's gradient speaks the leaf's face
        leaf._grad = g if leaf._grad is None else leaf._grad + g
        if leaf._post_accumulate_hooks:     # register_post_accumulate_grad_hook
            for hook in list(leaf._post_accumulate_hooks.values()):
                hook(leaf)
    return captured


def reaches_foreign(outs, own):
    """True when the graph below ``outs`` holds a leaf that requires grad and whose id is
    not in ``own``: someone outside a transform can still differentiate its result, so the
    transform's backward must be recorded.

    >>> x = eagerad.tensor(1.0, requires_grad=True)
    >>> reaches_foreign([x * 2], set()), reaches_foreign([x * 2], {id(x)})
    (True, False)
    """
    stack = [o.grad_fn if o.grad_fn is not None else o for o in outs]
    seen = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if type(node) is not Node:
            if node._requires_grad and id(node) not in own:
                return True
            continue
        stack.extend(edge[0] for edge in node.next if edge is not None)
    return False


def _apply_hooks(hooks, g):
    for hook in list(hooks.values()):
        new = hook(g)
        if new is not None:
            g = new
    return g


def _node_hooks(node, grads, create_graph):
    grads = list(grads)
    for idx in range(node.n_outputs):
        if grads[idx] is None:
            continue
        if node.pre_hooks is not None and node.pre_hooks.get(idx):
            grads[idx] = _apply_hooks(node.pre_hooks[idx], grads[idx])
        if node.retained is not None and idx in node.retained:
            t = node.retained[idx]()
            if t is not None:
                g = grads[idx] if create_graph else grads[idx].detach()
                t._grad = g if t._grad is None else t._grad + g
    return grads
