"""eagerad.viz: DOT text of recorded graphs, and render()'s Graphviz handling."""
import re
import shutil

import pytest

import eagerad
from eagerad import autograd, viz


def _edges(dot):
    labels = dict(re.findall(r'^\s+(n\d+|out\d+) \[label="([^"]*)"', dot, re.M))
    return {(labels[a].split("\\n")[0], labels[b].split("\\n")[0])
            for a, b in re.findall(r"^\s+(n\d+|out\d+) -> (n\d+|out\d+)", dot, re.M)}


def _mlp():
    x = eagerad.ones(4, 3)
    w = eagerad.Parameter(eagerad.ones(3, 2) * 0.1, name="dense.weight")
    b = eagerad.tensor([0.0, 0.0], requires_grad=True)
    return x, w, b, ((x @ w + b).tanh() ** 2).sum()


def test_mlp_graph_nodes_edges_and_labels():
    x, w, b, loss = _mlp()
    dot = viz.to_dot(loss, params={"bias": b})
    assert dot.startswith("digraph eagerad {") and dot.rstrip().endswith("}")
    assert _edges(dot) == {
        ("SumBackward", "output 0"), ("PowBackward", "SumBackward"),
        ("TanhBackward", "PowBackward"), ("AddBackward", "TanhBackward"),
        ("MatmulBackward", "AddBackward"), ("bias", "AddBackward"),
        ("dense.weight", "MatmulBackward")}
    assert 'label="dense.weight\\n(3, 2) float32", fillcolor=lightblue' in dot
    assert '"output 0\\n() float32"' in dot
    assert 'label="(4, 2) float32"' in dot           # the input of TanhBackward
    assert "ones" not in dot and dot.count("lightblue") == 2   # the constant x is no leaf


def test_second_derivative_graph_is_drawable():
    x = eagerad.tensor(1.5, requires_grad=True)
    y = x.sin() * x
    (g,) = autograd.grad(y, x, create_graph=True)
    dot = viz.to_dot(g, params={"x": x})
    names = {a for a, _ in _edges(dot)} | {b for _, b in _edges(dot)}
    # d(sin x)/dx = cos x, recorded as one op (g * sin(x + pi/2), ops/math.py)
    assert "SinDerivativeBackward" in names and "x" in names
    (gg,) = autograd.grad(g, x, create_graph=True)
    assert "SinDerivativeBackward" in viz.to_dot(gg)   # -sin x: the same op, shifted


def test_several_outputs_leaf_output_and_no_graph():
    a = eagerad.tensor([1.0], requires_grad=True)
    dot = viz.to_dot([a * 2, a, eagerad.ones(1)], params={"a": a})
    assert ("MulBackward", "output 0") in _edges(dot) and ("a", "output 1 (leaf)") in _edges(dot)
    assert "output 2 (no graph)" in dot
    assert dot.count('label="a\\n') == 1                # one box per leaf


def test_graph_after_backward_still_drawn_without_shapes():
    x, w, b, loss = _mlp()
    weight_edge = 'label="(3, 2) float32"'        # w's edge into MatmulBackward
    assert weight_edge in viz.to_dot(loss)
    loss.backward()                                # matmul's saved inputs are freed
    dot = viz.to_dot(loss)
    assert "TanhBackward" in dot and "MatmulBackward" in dot and weight_edge not in dot


def test_bad_arguments():
    with pytest.raises(TypeError, match="tensor 0"):
        viz.to_dot([1.0])
    with pytest.raises(TypeError, match=r"params\['w'\]"):
        viz.to_dot(eagerad.ones(1), params={"w": 3})


def test_render_writes_svg_or_says_how_to_get_graphviz(tmp_path, monkeypatch):
    _, _, _, loss = _mlp()
    if shutil.which("dot"):
        path = viz.render(loss, tmp_path / "g.svg")
        assert "<svg" in open(path).read()
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(RuntimeError, match="apt-get install graphviz"):
        viz.render(loss, tmp_path / "h.svg")
