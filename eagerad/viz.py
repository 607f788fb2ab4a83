"""Pictures of the recorded graph, as Graphviz DOT text.

``to_dot`` walks from a tensor's ``grad_fn`` along the nodes' edges: grey boxes
are backward nodes (``MulBackward``...), blue boxes leaves that require grad
(named from ``params`` or ``Parameter.name``), the green box the output.  Edge
labels give the shape and dtype of the input each edge carries a gradient to,
while the node still holds its inputs (before a backward frees them, or always
with ``retain_graph``).  A gradient computed with ``create_graph=True`` has a
graph of its own and is drawn the same way.

>>> import eagerad
>>> x = eagerad.tensor([1.0, 2.0], requires_grad=True)
>>> print(to_dot((x * x).sum(), params={"x": x}).splitlines()[0])
digraph eagerad {
"""
import shutil
import subprocess

from .autograd.node import Node
from .tensor import Tensor

_INSTALL = ("Graphviz's `dot` program is not on PATH. Install Graphviz "
            "(Debian/Ubuntu: apt-get install graphviz; macOS: brew install graphviz; conda: "
            "conda install graphviz), or paste the text of eagerad.viz.to_dot(...) into an online "
            "Graphviz viewer.")


def _describe(t):
    return f"{tuple(t.shape)} {t.dtype}"


def _quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _roots(tensors):
    tensors = list(tensors) if isinstance(tensors, (list, tuple)) else [tensors]
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"to_dot: tensor {i} is {type(t).__name__}, not a Tensor")
    return tensors


def to_dot(tensor, params=None):
    """DOT text of the graph that produced ``tensor`` (or a list of tensors).

    ``params`` maps names to tensors (``dict(model.parameters_and_names())`` style)
    and labels those leaves.

    >>> w = eagerad.tensor(2.0, requires_grad=True)
    >>> 'MulBackward' in to_dot(w * 3)
    True
    """
    names = {}
    for name, t in (params or {}).items():
        if not isinstance(t, Tensor):
            raise TypeError(f"to_dot: params[{name!r}] is {type(t).__name__}, not a Tensor")
        names[id(t)] = name
    ids = {}
    lines = ["digraph eagerad {", '  rankdir="BT";',
             '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];',
             '  edge [fontname="Helvetica", fontsize=9];']

    def ident(obj):
        if id(obj) not in ids:
            ids[id(obj)] = f"n{len(ids)}"
            if isinstance(obj, Node):
                lines.append(f"  {ids[id(obj)]} [label={_quote(obj.name)}, fillcolor=lightgrey];")
            else:
                name = names.get(id(obj)) or getattr(obj, "name", None) or "leaf"
                label = _quote(name + "\n" + _describe(obj))
                lines.append(f"  {ids[id(obj)]} [label={label}, fillcolor=lightblue];")
            pending.append(obj)
        return ids[id(obj)]

    pending = []
    for i, root in enumerate(_roots(tensor)):
        out = f"out{i}"
        kind = "" if root.grad_fn is not None else " (leaf)" if root.requires_grad \
            else " (no graph)"
        label = f"output {i}{kind}\n{_describe(root)}"
        lines.append(f"  {out} [label={_quote(label)}, fillcolor=darkseagreen1];")
        if root.grad_fn is not None:
            lines.append(f"  {ident(root.grad_fn)} -> {out};")
        elif root.requires_grad:
            lines.append(f"  {ident(root)} -> {out};")
    while pending:
        obj = pending.pop()
        if not isinstance(obj, Node):
            continue
        inputs = obj.inputs or ()
        for k, edge in enumerate(obj.next):
            if edge is None:
                continue
            target, index = edge
            # a saved input is a Tensor; an unsaved one keeps its shape and dtype
            attrs = [f"label={_quote(_describe(inputs[k]))}"] if k < len(inputs) and \
                hasattr(inputs[k], "shape") and hasattr(inputs[k], "dtype") else []
            if isinstance(target, Node) and target.n_outputs > 1:
                attrs.append(f"taillabel={_quote(str(index))}")
            lines.append(f"  {ident(target)} -> {ident(obj)}"
                         + (f" [{', '.join(attrs)}]" if attrs else "") + ";")
    lines.append("}")
    return "\n".join(lines) + "\n"


def render(tensor, path, params=None):
    """Write the graph of ``tensor`` as SVG to ``path`` with Graphviz's ``dot``.

    Raises ``RuntimeError`` saying how to install Graphviz when ``dot`` is missing.

    >>> render(eagerad.tensor(1.0, requires_grad=True) * 2, "graph.svg")  # doctest: +SKIP
    """
    dot = shutil.which("dot")
    if dot is None:
        raise RuntimeError(_INSTALL)
    result = subprocess.run([dot, "-Tsvg", "-o", str(path)], input=to_dot(tensor, params),
                            text=True, capture_output=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"dot failed (exit {result.returncode}): {result.stderr.strip()}")
    return str(path)
