"""Layers import only downwards (issue 13, step 5).

Every module's imports (top-level and inside functions) are parsed with ``ast``; each
``eagerad.X`` import is an edge between the top-level units X.  The units sit in layers:

    backend (arrays only)
    dtype, device, context (configuration: what a tensor is made of, where it lives)
    tensor
    autograd
    ops
    transforms, functional, vectorize, func, autograd_functional, tree, checkpoint, custom
    nn, amp, optim, data, serialization (+ safe_format, atomic, file_kinds), viz, linalg
    (namespace), cuda (namespace)
    eagerad/__init__ (the public face)

An edge may stay in its layer or go down, never up, and the units' graph has no cycle.
``ALLOWED_FOR_NOW`` lists today's exceptions in files owned elsewhere, each with its owner;
remove an entry when its import goes, and the test fails if an entry is no longer needed.
"""
import ast
import pathlib

import eagerad

ROOT = pathlib.Path(eagerad.__file__).parent

LAYERS = [
    {"backend"},
    {"dtype", "device", "context", "printing", "face"},
    {"tensor"},
    {"autograd"},
    {"ops"},
    {"transforms", "functional", "vectorize", "func", "autograd_functional", "tree", "checkpoint",
     "custom"},
    {"nn", "amp", "optim", "data", "serialization", "viz", "linalg", "cuda", "accelerator",
     "utils", "train", "safe_format", "atomic", "file_kinds",
     "samplers", "loader_workers", "dataset_ops", "distributed"},
    {"__init__"},
    {"torch", "mindspore"},     # the faces: they may import everything, nothing imports them
]
RANK = {unit: i for i, layer in enumerate(LAYERS) for unit in layer}

# (importing unit, imported unit): why an exception is still there and who removes it (none
# today: upper layers that a lower one calls back register themselves, see tensor.UPPER)
ALLOWED_FOR_NOW = {}


def _unit(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _edges():
    """``{(from unit, to unit): [modules making that import]}`` over every eagerad module."""
    edges = {}
    for path in sorted(ROOT.rglob("*.py")):
        if path.name == "conftest.py":
            continue
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        module = ".".join(parts[:-1] if is_pkg else parts)
        package = module if is_pkg else module.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1])
                targets = [f"{base}.{node.module}"] if node.module else \
                    [f"{base}.{a.name}" for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                targets = [node.module]
            else:
                continue
            for target in targets:
                if target == "eagerad" or target.startswith("eagerad."):
                    a, b = _unit(module), _unit(target)
                    if a != b:
                        edges.setdefault((a, b), []).append(module)
    return edges


def test_every_unit_has_a_layer():
    units = {u for edge in _edges() for u in edge}
    assert units <= set(RANK), f"place these in LAYERS: {sorted(units - set(RANK))}"


def test_no_upward_import():
    upward = {edge: mods for edge, mods in _edges().items()
              if RANK[edge[1]] > RANK[edge[0]] and edge not in ALLOWED_FOR_NOW}
    assert not upward, "upward imports: " + "; ".join(
        f"{a} -> {b} in {sorted(set(m))}" for (a, b), m in sorted(upward.items()))


def test_allowed_exceptions_are_still_needed():
    stale = set(ALLOWED_FOR_NOW) - set(_edges())
    assert not stale, f"remove from ALLOWED_FOR_NOW: {sorted(stale)}"


def test_no_cycle_between_units():
    graph = {}
    for a, b in _edges():
        if (a, b) not in ALLOWED_FOR_NOW:
            graph.setdefault(a, set()).add(b)
    state = {}

    def visit(u, path):
        state[u] = "open"
        for v in sorted(graph.get(u, ())):
            if state.get(v) == "open":
                raise AssertionError("import cycle: " + " -> ".join(path[path.index(v):] + [v]))
            if v not in state:
                visit(v, path + [v])
        state[u] = "done"
    for u in sorted(graph):
        if u not in state:
            visit(u, [u])


def test_the_transform_layer_owns_grad_operation():
    from eagerad import ops, transforms
    assert ops.GradOperation is transforms.GradOperation
    assert ("autograd", "ops") not in _edges()     # forward mode gets its view op injected


def test_make_dual_outside_the_op_layer_still_records_a_view():
    from eagerad.autograd import forward_ad
    x = eagerad.tensor([1.0, 2.0], requires_grad=True)
    with forward_ad.dual_level():
        d = forward_ad.make_dual(x, eagerad.tensor([1.0, 0.0]))
        assert d is not x and d.grad_fn.name == "AliasBackward"
        assert forward_ad.unpack_dual(d * d).tangent.tolist() == [2.0, 0.0]
