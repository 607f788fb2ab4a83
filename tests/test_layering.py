"""Layers import only downwards (issue 13, step 5).

Every module's imports (top-level and inside functions) are parsed with ``ast``; each
``eagerad.X`` import is an edge between the top-level units X.  The units sit in layers:

    _upcalls (the one table of calls from a lower layer up into a higher one)
    backend (arrays only)
    dtype, device, context (configuration: what a tensor is made of, where it lives)
    tensor
    autograd
    ops
    reverse, transforms, functional, vectorize, func, autograd_functional, tree, checkpoint, custom
    nn, amp, optim, data (+ sampling), serialization (+ safe_format, atomic, file_kinds,
    protowire, event_file), viz, linalg
    (namespace), cuda (namespace), distributed
    eagerad/__init__ (the engine's own API)
    torch, mindspore (the faces: they may import everything, nothing imports them)

An edge may stay in its layer or go down, never up, and the units' graph has no cycle.
``ALLOWED_FOR_NOW`` lists today's exceptions in files owned elsewhere, each with its owner;
remove an entry when its import goes, and the test fails if an entry is no longer needed.

A lower module that needs something from above calls ``eagerad._upcalls.get(hook)``; the
upper module registers it there (``_upcalls.register``), and ``_upcalls.TABLE`` lists every
hook with the module that registers it.  No module assigns into another eagerad module's
attributes (``batching.map_samples = ...``) or items of its objects (``UPPER["ops"] = ...``).
"""
import ast
import pathlib

import eagerad

ROOT = pathlib.Path(eagerad.__file__).parent

LAYERS = [
    {"_upcalls"},
    {"backend"},
    {"dtype", "device", "context", "printing", "face"},
    {"tensor"},
    {"autograd"},
    {"ops"},
    {"transforms", "functional", "vectorize", "func", "autograd_functional", "tree", "checkpoint",
     "reverse",
     "custom"},
    {"nn", "amp", "optim", "data", "dataset", "ckpt_format", "serialization", "viz", "linalg",
     "cuda", "accelerator", "utils", "train", "safe_format", "atomic", "file_kinds", "distributed",
     "samplers", "loader_workers", "dataset_ops", "sampling", "protowire", "event_file", "distributions", "distribution_families",
     "torch_checkpoint", "jit"},
    {"__init__"},
    {"torch", "mindspore"},     # the faces: they may import everything, nothing imports them
]
RANK = {unit: i for i, layer in enumerate(LAYERS) for unit in layer}

# (importing unit, imported unit): why an exception is still there and who removes it (none
# today: upper layers that a lower one calls back register in eagerad._upcalls)
ALLOWED_FOR_NOW = {}


# (module, what it assigns into): the public namespace wiring left in eagerad/__init__.py,
# which the faces (issue 19, the lead) replace; the test fails when one is no longer needed
ASSIGNMENTS_FOR_NOW = {
    ("eagerad", "eagerad.autograd.functional"): "torch.autograd.functional's path (lead: faces)",
    ("eagerad", "eagerad.ops.GradOperation"): "MindSpore's ops.GradOperation (lead: faces)",
}


def _unit(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _modules():
    """``(module name, its package, parsed tree)`` for every eagerad module."""
    for path in sorted(ROOT.rglob("*.py")):
        if path.name == "conftest.py":
            continue
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        module = ".".join(parts[:-1] if is_pkg else parts)
        package = module if is_pkg else module.rsplit(".", 1)[0]
        yield module, package, ast.parse(path.read_text(), str(path))


def _imports(package, tree):
    """``(import node, [(local name or None, full dotted target)])`` for each import."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield node, [(a.asname or (a.name if "." not in a.name else None), a.name)
                         for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level:
            base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1])
            if node.module:
                yield node, [(a.asname or a.name, f"{base}.{node.module}.{a.name}")
                             for a in node.names]
            else:
                yield node, [(a.asname or a.name, f"{base}.{a.name}") for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node, [(a.asname or a.name, f"{node.module}.{a.name}") for a in node.names]


def _edges():
    """``{(from unit, to unit): [modules making that import]}`` over every eagerad module."""
    edges = {}
    for module, package, tree in _modules():
        for node, names in _imports(package, tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                base = names[0][1].rsplit(".", 1)[0]
                targets = [base]
            else:
                targets = [target for _, target in names]
            for target in targets:
                if target == "eagerad" or target.startswith("eagerad."):
                    a, b = _unit(module), _unit(target)
                    if a != b:
                        edges.setdefault((a, b), []).append(module)
    return edges


def _foreign_assignments():
    """``{(module, target)}``: each statement of a module that assigns an attribute of an
    eagerad module of a lower layer (``batching.x = ...``) or an item of an object imported
    from one (``UPPER["ops"] = ...``); ``target`` is the dotted name assigned into."""
    found = set()
    for module, package, tree in _modules():
        bound = {local: target for _, names in _imports(package, tree) for local, target in names
                 if local and (target == "eagerad" or target.startswith("eagerad."))}
        for node in ast.walk(tree):
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
            for t in targets:
                for sub in ast.walk(t):
                    if not isinstance(sub, (ast.Attribute, ast.Subscript)) or \
                            not isinstance(sub.value, ast.Name) or sub.value.id not in bound:
                        continue
                    into = bound[sub.value.id]
                    if RANK.get(_unit(into), 0) >= RANK.get(_unit(module), 0):
                        continue          # its own layer (configuration state) or above
                    if isinstance(sub, ast.Attribute) and _is_module(into):
                        found.add((module, f"{into}.{sub.attr}"))
                    elif isinstance(sub, ast.Subscript):
                        found.add((module, f"{into}[...]"))
    return found


def _is_module(dotted):
    """Whether ``eagerad.a.b`` names a module or package of eagerad (not a class or function)."""
    rel = pathlib.Path(*dotted.split(".")[1:]) if dotted != "eagerad" else pathlib.Path()
    return (ROOT / rel).with_suffix(".py").is_file() or (ROOT / rel / "__init__.py").is_file()


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
    assert ("autograd", "ops") not in _edges()     # forward mode calls its view op up


def test_no_module_assigns_into_another():
    found = _foreign_assignments()
    unexpected = found - set(ASSIGNMENTS_FOR_NOW)
    assert not unexpected, "register an upcall in eagerad._upcalls instead of: " + "; ".join(
        f"{m} assigns {t}" for m, t in sorted(unexpected))
    stale = set(ASSIGNMENTS_FOR_NOW) - found
    assert not stale, f"remove from ASSIGNMENTS_FOR_NOW: {sorted(stale)}"


def test_the_assignment_check_sees_an_injection(tmp_path, monkeypatch):
    pkg = tmp_path / "eagerad"
    (pkg / "autograd").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "autograd" / "__init__.py").write_text("")
    (pkg / "autograd" / "batching.py").write_text("levels = {}\n")
    (pkg / "vectorize.py").write_text("from .autograd import batching\nfrom .autograd.batching "
                                      "import levels\nbatching.f = len\nlevels[1] = 2\n")
    monkeypatch.setattr(__import__(__name__), "ROOT", pkg)
    assert _foreign_assignments() == {("eagerad.vectorize", "eagerad.autograd.batching.f"),
                                      ("eagerad.vectorize", "eagerad.autograd.batching.levels[...]")}


def test_every_upcall_is_registered_where_the_table_says():
    from eagerad import _upcalls
    registered = {}
    for module, _, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr == "register" and isinstance(node.func.value, ast.Name) and \
                    node.func.value.id == "_upcalls" and node.args and \
                    isinstance(node.args[0], ast.Constant):
                registered.setdefault(node.args[0].value, []).append(module)
    assert registered == {name: [by] for name, (by, _) in _upcalls.TABLE.items()}
    for name in _upcalls.TABLE:
        assert _upcalls.get(name) is not None      # import eagerad registered every hook


def test_the_core_never_imports_a_face():
    faces = {"torch", "mindspore"}
    into_faces = {edge for edge in _edges() if edge[1] in faces and edge[0] not in faces}
    assert not into_faces, f"the core imports a face: {sorted(into_faces)}"


def test_make_dual_outside_the_op_layer_still_records_a_view():
    from eagerad.autograd import forward_ad
    x = eagerad.tensor([1.0, 2.0], requires_grad=True)
    with forward_ad.dual_level():
        d = forward_ad.make_dual(x, eagerad.tensor([1.0, 0.0]))
        assert d is not x and d.grad_fn.name == "AliasBackward"
        assert forward_ad.unpack_dual(d * d).tangent.tolist() == [2.0, 0.0]
