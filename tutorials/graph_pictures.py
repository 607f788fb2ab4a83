"""Draw recorded graphs: a small MLP's loss, and a second derivative.

``eagerad.viz.to_dot`` turns the graph behind a tensor into Graphviz DOT text;
``eagerad.viz.render`` writes it as SVG when Graphviz's ``dot`` is installed.
Grey boxes are backward nodes, blue boxes the leaves that require grad (named
from the model's parameters), the green box the output; edge labels give the
shape and dtype flowing along each edge.

Run: python tutorials/graph_pictures.py [outdir]  (default: tutorials/pictures/, the
pictures README.md shows)
"""
import os
import shutil
import sys

import numpy as np

import eagerad.mindspore as ms
import eagerad.torch as torch
from eagerad import viz


class MLP(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.hidden = ms.nn.Dense(3, 4)
        self.out = ms.nn.Dense(4, 1)

    def construct(self, x):
        return self.out(self.hidden(x).tanh())


def mlp_graph():
    ms.set_seed(0)
    net = MLP()
    x = ms.Tensor(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3))
    y = ms.Tensor([[0.5], [-0.5]])
    loss = ((net(x) - y) ** 2).mean()
    return loss, dict(net.parameters_and_names())


def second_derivative_graph():
    """d2/dx2 of x * sin(x): the first gradient's graph is recorded, then differentiated."""
    x = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(x * x.sin(), x, create_graph=True)        # sin x + x cos x
    (gg,) = torch.autograd.grad(g, x, create_graph=True)                  # 2 cos x - x sin x
    expected = 2 * np.cos(1.5) - 1.5 * np.sin(1.5)
    print(f"d2/dx2 x sin x at 1.5 = {gg.item():.6f} (closed form {expected:.6f})")
    return gg, {"x": x}


def main(outdir):
    pictures = {"mlp_loss": mlp_graph(), "second_derivative": second_derivative_graph()}
    have_dot = shutil.which("dot") is not None
    for name, (tensor, params) in pictures.items():
        print(f"--- {name} ---")
        print(viz.to_dot(tensor, params))
        if have_dot:
            path = viz.render(tensor, os.path.join(outdir, f"{name}.svg"), params)
            print(f"wrote {path}")
    if not have_dot:
        print("Graphviz's `dot` is not installed, so no SVG was written; "
              "`apt-get install graphviz` (or brew/conda) and run again.")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "pictures"))
