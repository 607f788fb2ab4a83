"""Run one case of ms_cases.py under a framework, and encode/compare the results.

The same code drives real MindSpore (record.py, which writes answers.json) and eagerad's
MindSpore face (tests/test_mindspore_docs.py); a *backend* object supplies the framework:

    tensor(array) / parameter(array, name) / dtype(name)   make framework objects
    resolve(api)                 the function, class or None for "ops.x", "nn.X", "Tensor.m"
    is_tensor(obj) / to_numpy(t)
    grad(fn, n_inputs, weights)  (input grads, weight grads) of the scalar fn(*inputs)
    named_parameters(net) / set_parameter(p, array) / set_train(net, flag)
    trainable(net) / optimizer_step(opt, grads)

Needs only numpy besides the backend, so both venvs import it.
"""
import math

import numpy as np

from ms_cases import is_spec, make_array, param_value, weights_for


class CellBackend:
    """The parts of the backend contract MindSpore and eagerad's face spell alike: cells,
    parameters, optimizers and ``grad(fn, grad_position, weights)``.  Subclasses give
    ``tensor``, ``parameter``, ``dtype``, ``resolve``, ``is_tensor``, ``to_numpy`` and
    ``grad_function`` (the framework's ``grad``)."""

    def grad(self, fn, inputs, weights):
        positions = tuple(range(len(inputs))) if inputs else None
        g = self.grad_function(fn, grad_position=positions, weights=weights or None)(*inputs)
        return split_grads(g, len(inputs), len(weights))

    def named_parameters(self, net):
        return list(net.parameters_and_names())

    def set_parameter(self, param, array):
        param.set_data(self.tensor(array))

    def parameter_name(self, param):
        return param.name

    def set_train(self, net, flag):
        net.set_train(flag)

    def trainable(self, net):
        return list(net.trainable_params())

    def optimizer_step(self, opt, grads):
        opt(grads)


class MissingName(Exception):
    """The framework has no such function, method or class."""


# ------------------------------------------------------------------ building calls

def _leaves(value, path, out):
    """Collect (path, spec) of every float tensor spec inside value (lists, tuples, dicts)."""
    if is_spec(value):
        if "list" in value:
            for i, item in enumerate(value["list"]):
                _leaves(item, f"{path}.{i}", out)
        elif np.dtype(value["dtype"]).kind == "f":
            out.append((path, value))


def case_leaves(case):
    """The float tensor inputs differentiated, in a fixed order: positionals then kwargs."""
    out = []
    for i, value in enumerate(case["inputs"]):
        _leaves(value, f"in{i}", out)
    for key in sorted(case["kwargs"]):
        _leaves(case["kwargs"][key], f"kw.{key}", out)
    return out


def _build(value, path, case_id, backend, subst):
    """The framework object a spec (or plain value) stands for."""
    if isinstance(value, dict) and "dtype_obj" in value:
        return backend.dtype(value["dtype_obj"])
    if not is_spec(value):
        return value
    if "list" in value:
        items = [_build(item, f"{path}.{i}", case_id, backend, subst)
                 for i, item in enumerate(value["list"])]
        return tuple(items) if value.get("tuple") else items
    if path in subst:
        return subst[path]
    return backend.tensor(make_array(value, case_id, path))


def build_call(case, backend, subst):
    """(args, kwargs) of the case, with differentiated leaves taken from ``subst``."""
    args = [_build(v, f"in{i}", case["id"], backend, subst) for i, v in enumerate(case["inputs"])]
    kwargs = {k: _build(v, f"kw.{k}", case["id"], backend, subst)
              for k, v in case["kwargs"].items()}
    return args, kwargs


def _target(case, backend):
    target = backend.resolve(case["api"])
    if target is None:
        raise MissingName(case["api"])
    return target


def make_cell(case, backend):
    """The case's cell with every parameter set to its fixed value; (net, names)."""
    cls = _target(case, backend)
    net = cls(*case["init"], **case["init_kw"])
    backend.set_train(net, case.get("train", False))
    names = []
    for name, param in backend.named_parameters(net):
        shape = tuple(backend.to_numpy(param).shape)
        dtype = backend.to_numpy(param).dtype
        backend.set_parameter(param, param_value(case["id"], name, shape).astype(dtype))
        names.append(name)
    return net, names


def forward(case, backend, subst, net=None):
    """The case's output, computed once."""
    args, kwargs = build_call(case, backend, subst)
    kind = case["kind"]
    if kind == "func":
        return _target(case, backend)(*args, **kwargs)
    if kind == "method":
        method = getattr(args[0], case["api"].split(".", 1)[1], None)
        if method is None:
            raise MissingName(case["api"])
        return method(*args[1:], **kwargs)
    if kind == "property":
        name = case["api"].split(".", 1)[1]
        if not hasattr(args[0], name):
            raise MissingName(case["api"])
        return getattr(args[0], name)
    if kind == "cell":
        return net(*args, **kwargs)
    raise ValueError(f"unknown case kind {kind!r}")


def float_outputs(out, backend):
    """Every floating-point tensor in the output structure, in order."""
    if isinstance(out, (tuple, list)):
        return [t for item in out for t in float_outputs(item, backend)]
    if backend.is_tensor(out) and backend.to_numpy(out).dtype.kind == "f":
        return [out]
    return []


# ------------------------------------------------------------------ running a case

def run_case(case, backend):
    """``{'out': ..., 'grads': [...], 'param_grads': {...}, 'params': [...]}`` for one case,
    every value encoded by ``encode``."""
    kind = case["kind"]
    if kind == "repr":
        t = backend.tensor(make_array(case["inputs"][0], case["id"], "in0"))
        return {"out": {"py": repr(t)}, "str": str(t)}
    if kind == "optimizer":
        return _run_optimizer(case, backend)
    net, names = make_cell(case, backend) if kind == "cell" else (None, [])
    out = forward(case, backend, {}, net)
    result = {"out": encode(out, backend)}
    if net is not None:
        result["params"] = names
    if not case["grad"]:
        return result
    floats = float_outputs(out, backend)
    if not floats:
        return result
    weights = [weights_for(case["id"], k, backend.to_numpy(o).shape).astype(backend.to_numpy(o).dtype)
               for k, o in enumerate(floats)]
    leaves = case_leaves(case)
    inputs = [backend.tensor(make_array(spec, case["id"], path)) for path, spec in leaves]
    trainable = backend.trainable(net) if net is not None else []

    def loss(*values):
        got = float_outputs(forward(case, backend, dict(zip([p for p, _ in leaves], values)), net),
                            backend)
        total = None
        for o, w in zip(got, weights):
            term = (o * backend.tensor(w)).sum()
            total = term if total is None else total + term
        return total

    if not inputs and not trainable:
        return result
    g_inputs, g_weights = backend.grad(loss, inputs, trainable)
    result["grads"] = [encode(g, backend) for g in g_inputs]
    if trainable:
        result["param_grads"] = {backend.parameter_name(p): encode(g, backend)
                                 for p, g in zip(trainable, g_weights)}
    return result


def _run_optimizer(case, backend):
    cls = _target(case, backend)
    params = [backend.parameter(make_array(spec, case["id"], f"param.{name}"), name)
              for name, spec in case["params"].items()]
    opt = cls(params, **case["kwargs"])
    steps = []
    for k, step in enumerate(case["grads"]):
        grads = tuple(backend.tensor(make_array(step[name], case["id"], f"grad{k}.{name}"))
                      for name in case["params"])
        backend.optimizer_step(opt, grads)
        steps.append([encode(p, backend) for p in params])
    return {"out": {"seq": [{"seq": s} for s in steps]}}


def split_grads(g, n_inputs, n_weights):
    """(input grads, weight grads) from what ``grad(fn, grad_position, weights)`` returns:
    a pair when both are asked for, else one of them (a bare tensor for one input)."""
    if n_inputs and n_weights:
        g_in, g_w = g
    elif n_inputs:
        g_in, g_w = g, ()
    else:
        g_in, g_w = (), g
    if not isinstance(g_in, (tuple, list)):
        g_in = (g_in,)
    return tuple(g_in), tuple(g_w)


# ------------------------------------------------------------------ encoding and comparing

def _number(v):
    """A JSON-safe float: 9 significant digits (float32 round-trips), inf/nan as strings."""
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return float(f"{v:.9g}")


def _array_code(a, key):
    a = np.asarray(a)
    if a.dtype.kind == "f":
        values = [_number(v) for v in a.ravel()]
    elif a.dtype.kind == "c":
        values = [[_number(v.real), _number(v.imag)] for v in a.ravel()]
    else:
        values = a.ravel().tolist()
    return {key: str(a.dtype), "shape": list(a.shape), "v": values}


def encode(obj, backend):
    """A JSON-able description of an output: tensors, numpy arrays, sequences, numbers."""
    if backend.is_tensor(obj):
        return _array_code(backend.to_numpy(obj), "tensor")
    if isinstance(obj, np.ndarray):
        return _array_code(obj, "ndarray")
    if isinstance(obj, (tuple, list)):
        return {"seq": [encode(o, backend) for o in obj]}
    if isinstance(obj, (bool, np.bool_)):
        return {"py": bool(obj)}
    if isinstance(obj, (int, np.integer)):
        return {"py": int(obj)}
    if isinstance(obj, (float, np.floating)):
        return {"float": _number(obj)}
    if obj is None:
        return {"py": None}
    return {"py": str(obj)}


def _decode_values(code):
    dtype = np.dtype(code.get("tensor") or code.get("ndarray"))
    if dtype.kind == "c":
        flat = [complex(_f(r), _f(i)) for r, i in code["v"]]
    elif dtype.kind == "f":
        flat = [_f(v) for v in code["v"]]
    else:
        flat = code["v"]
    return np.array(flat, dtype=dtype).reshape(code["shape"])


def _f(v):
    return float(v) if isinstance(v, str) else v


def tolerance(dtype, gradient=False):
    """(rtol, atol): float32 values to rtol 1e-5; gradients (other summation orders) 1e-4."""
    if dtype == np.float16:
        return 2e-3, 2e-3
    if dtype == np.float64:
        return (1e-7, 1e-9) if not gradient else (1e-6, 1e-8)
    return (1e-5, 1e-6) if not gradient else (1e-4, 1e-5)


def compare(expected, actual, gradient=False, where="out"):
    """None when ``actual`` (an encoded output) matches ``expected``, else what differs."""
    if "seq" in expected:
        if "seq" not in actual:
            return f"{where}: MindSpore returns a sequence of {len(expected['seq'])}, got {_kind(actual)}"
        if len(expected["seq"]) != len(actual["seq"]):
            return f"{where}: MindSpore returns {len(expected['seq'])} items, got {len(actual['seq'])}"
        for i, (e, a) in enumerate(zip(expected["seq"], actual["seq"])):
            problem = compare(e, a, gradient, f"{where}[{i}]")
            if problem:
                return problem
        return None
    for key in ("tensor", "ndarray"):
        if key in expected:
            if key not in actual:
                return f"{where}: MindSpore returns a {key}, got {_kind(actual)}"
            if expected[key] != actual[key]:
                return f"{where}: dtype {actual[key]}, MindSpore gives {expected[key]}"
            if expected["shape"] != actual["shape"]:
                return f"{where}: shape {actual['shape']}, MindSpore gives {expected['shape']}"
            e, a = _decode_values(expected), _decode_values(actual)
            if e.dtype.kind in "fc":
                rtol, atol = tolerance(e.dtype, gradient)
                if not np.allclose(a, e, rtol=rtol, atol=atol, equal_nan=True):
                    bad = np.argmax(~np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=True).ravel())
                    return (f"{where}: values differ (first at flat index {bad}: got "
                            f"{a.ravel()[bad]!r}, MindSpore {e.ravel()[bad]!r})")
            elif not np.array_equal(a, e):
                return f"{where}: values {a.ravel().tolist()[:8]}, MindSpore {e.ravel().tolist()[:8]}"
            return None
    if "float" in expected:
        if "float" not in actual and not ("py" in actual and isinstance(actual["py"], (int, float))):
            return f"{where}: MindSpore returns a float, got {_kind(actual)}"
        got = _f(actual.get("float", actual.get("py")))
        if not math.isclose(got, _f(expected["float"]), rel_tol=1e-6, abs_tol=1e-7):
            return f"{where}: {got!r}, MindSpore {expected['float']!r}"
        return None
    if expected != actual:
        return f"{where}: {actual!r}, MindSpore {expected!r}"
    return None


def _kind(code):
    for key in ("seq", "tensor", "ndarray", "float", "py"):
        if key in code:
            return key if key != "py" else f"{code['py']!r}"
    return "?"


def compare_result(expected, actual):
    """None when a run_case result matches the recorded answer, else the first difference."""
    want, got = expected.get("params"), actual.get("params")
    if want is not None and want != got:
        if sorted(want) == sorted(got or []):
            return f"parameter order {got}, MindSpore {want}"
        return f"parameter names {got}, MindSpore {want}"
    problem = compare(expected["out"], actual["out"])
    if problem:
        return problem
    if "str" in expected and expected["str"] != actual.get("str"):
        return f"str: {actual.get('str')!r}, MindSpore {expected['str']!r}"
    for i, e in enumerate(expected.get("grads", [])):
        got = actual.get("grads", [])
        if i >= len(got):
            return f"no gradient for input {i}"
        problem = compare(e, got[i], True, f"grad[{i}]")
        if problem:
            return problem
    for name, e in expected.get("param_grads", {}).items():
        got = actual.get("param_grads", {}).get(name)
        if got is None:
            return f"no gradient for parameter {name}"
        problem = compare(e, got, True, f"grad[{name}]")
        if problem:
            return problem
    return None
