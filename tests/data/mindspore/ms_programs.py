"""Run the MindSpore tutorial programs (tutorials/ms_quick_start.py, ms_lenet.py,
ms_custom_loop.py) from fixed initial weights, under a framework.

The same functions serve real MindSpore (record_programs.py, which writes
program_answers.json) and eagerad (tests/test_mindspore_programs.py).  Under MindSpore
each tutorial file runs as written with only its import lines rewritten
(``eagerad.mindspore`` -> ``mindspore``): ``load(name, "mindspore")``.  The initial
weights are drawn here with numpy (every weight matrix / kernel and every bias; the
other parameters keep their constant defaults) and go into the network through
``load_param_into_net``, in both frameworks.

Needs only numpy besides the framework, so both venvs import it.
"""
import importlib
import os
import sys
import tempfile
import types

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
TUTORIALS = os.path.join(ROOT, "tutorials")
PROGRAMS = ("ms_quick_start", "ms_lenet", "ms_custom_loop")   # dependencies first


def _rewritten(line):
    """``line`` with eagerad's MindSpore face renamed to ``mindspore`` if it is an import."""
    if line.lstrip().startswith(("import ", "from ")):
        return line.replace("eagerad.mindspore", "mindspore")
    return line


def load(name, framework):
    """The tutorial module ``name``: imported as it is (``framework='eagerad'``), or its
    source run with the import lines pointed at real MindSpore (``'mindspore'``)."""
    if TUTORIALS not in sys.path:
        sys.path.insert(0, TUTORIALS)
    if framework == "eagerad":
        return importlib.import_module(name)
    if framework != "mindspore":
        raise ValueError(f"framework must be 'eagerad' or 'mindspore', got {framework!r}")
    for dependency in PROGRAMS[:PROGRAMS.index(name)]:
        if dependency not in sys.modules:
            load(dependency, framework)
    path = os.path.join(TUTORIALS, name + ".py")
    with open(path) as f:
        lines = f.read().splitlines(keepends=True)
    source = "".join(_rewritten(line) for line in lines)
    module = types.ModuleType(name)
    module.__file__ = path
    sys.modules[name] = module
    exec(compile(source, path, "exec"), module.__dict__)
    return module


def initial_weights(net, seed):
    """``{name: float32 array}`` for every weight (ndim >= 2: U(-b, b), b = sqrt(3 / fan_in))
    and bias (U(-0.05, 0.05)) of ``net``, drawn in name order from ``seed``."""
    rng = np.random.default_rng(seed)
    shapes = {name: tuple(p.shape) for name, p in net.parameters_and_names()}
    weights = {}
    for name in sorted(shapes):
        shape = shapes[name]
        if len(shape) >= 2:
            bound = np.sqrt(3.0 / np.prod(shape[1:]))
        elif name.endswith("bias"):
            bound = 0.05
        else:
            continue
        weights[name] = ((2 * rng.random(shape) - 1) * bound).astype(np.float32)
    return weights


def load_weights(mindspore, net, weights):
    """Put ``weights`` into ``net`` through ``load_param_into_net``."""
    params = {name: mindspore.Parameter(mindspore.Tensor(array), name=name)
              for name, array in weights.items()}
    mindspore.load_param_into_net(net, params)
    for name, p in net.parameters_and_names():
        if name in weights:
            assert np.array_equal(p.asnumpy(), weights[name]), f"{name} was not loaded"


def _digest(arrays):
    """Per-name (shape, sum, sum of squares): enough to tell two weight sets apart."""
    return {name: [list(a.shape), float(np.sum(a, dtype=np.float64)),
                   float(np.sum(np.square(a, dtype=np.float64)))] for name, a in arrays.items()}


def _first_batch(dataset):
    data, label = next(iter(dataset.create_tuple_iterator()))
    return _digest({"data": data.asnumpy(), "label": label.asnumpy().astype(np.float64)})


def quick_start(framework, mindspore):
    """The quick start's MLP, two epochs of SGD from fixed weights."""
    module = load("ms_quick_start", framework)
    net = module.Network()
    weights = initial_weights(net, seed=0)
    load_weights(mindspore, net, weights)
    losses, tests, _, test_dataset = module.run(net, epochs=2)
    return {"weights": _digest(weights), "data": _first_batch(test_dataset), "losses": losses,
            "tests": [list(t) for t in tests]}


def lenet(framework, mindspore):
    """LeNet5 through Model.train (losses from a callback) and Model.eval."""
    module = load("ms_lenet", framework)
    net = module.LeNet5()
    weights = initial_weights(net, seed=1)
    load_weights(mindspore, net, weights)
    with tempfile.TemporaryDirectory() as folder:
        losses, acc, _ = module.run(folder, net, epoch_size=2)
    data = _first_batch(module.create_dataset(64, seed=1, shuffle=False))
    return {"weights": _digest(weights), "data": data, "losses": losses, "eval": acc}


def custom_loop(framework, mindspore):
    """The custom training loop (value_and_grad, optimizer, Model.eval)."""
    module = load("ms_custom_loop", framework)
    net = module.make_network()
    weights = initial_weights(net, seed=2)
    load_weights(mindspore, net, weights)
    losses, metrics = module.run(net)
    return {"weights": _digest(weights), "losses": losses, "eval": metrics}


RUNNERS = {"quick_start": quick_start, "lenet": lenet, "custom_loop": custom_loop}
