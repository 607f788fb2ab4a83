"""One backend contract (``eagerad/backend/api.py``): both backends define every function of
it, and every op's forward and array-level rules call nothing else of the backend ``B``.

The ops are checked with a recording proxy in place of the CPU backend: each op runs its
forward on its gradcheck cases (ops without cases on arrays made from their forward's
parameter names), and its first-order backward, where the array-level ``fast`` rules run.
The CUDA backend is imported under Numba's CUDA simulator in a subprocess."""
import importlib
import inspect
import zlib

import numpy as np
import pytest

import eagerad
from eagerad import backend
from eagerad.backend import api
from eagerad.ops import OPS, registry
from eagerad.ops.registry import U
from simulator_run import run_on_simulator


def _family_names(device):
    return {name for family in api.FAMILIES for name in
            importlib.import_module(f"eagerad.backend.{device}.{family}").__all__}


ALLOWED = set(api.FUNCTIONS) | _family_names("cpu")


def _missing(B):
    return sorted(n for n in ALLOWED if not callable(getattr(B, n, None)))


def test_every_function_of_the_contract_has_a_one_line_doc():
    assert all(doc.startswith(name + "(") and "\n" not in doc
               for name, doc in api.FUNCTIONS.items())


def test_cpu_backend_defines_the_contract():
    assert _missing(backend.get("cpu")) == []


def test_cuda_backend_defines_the_contract_on_the_simulator():
    script = (f"import importlib, json\n"
              f"from eagerad import backend\n"
              f"B = backend.get('cuda')\n"
              f"families = {{n for f in {api.FAMILIES!r} for n in\n"
              f"    importlib.import_module('eagerad.backend.cuda.' + f).__all__}}\n"
              f"print('CONTRACT', json.dumps([sorted(n for n in {sorted(ALLOWED)!r}\n"
              f"    if not callable(getattr(B, n, None))), sorted(families)]))\n")
    missing, families = run_on_simulator(script, "CONTRACT")
    assert missing == [] and set(families) == _family_names("cpu")


class Recorder:
    """The CPU backend, noting each attribute an op asks for (and which op asked)."""

    def __init__(self, cpu):
        self._cpu, self.op, self.used = cpu, None, {}

    def __getattr__(self, name):
        self.used.setdefault(name, set()).add(self.op)
        return getattr(self._cpu, name)


# values for the parameters of a case-less op's forward, by parameter name
_PARAMS = {"axes": (0,), "axis": 0, "keepdims": False, "descending": False}


def _caseless_args(op, rng):
    params = list(inspect.signature(op.forward).parameters)[1:]
    return [_PARAMS[p] if p in _PARAMS else rng.uniform(0.5, 1.0, (3, 3)) for p in params]


@pytest.fixture(scope="module")
def recorded():
    rec = Recorder(backend.get("cpu"))
    saved = dict(registry._backends)
    registry._backends["cpu"] = rec
    try:
        for name, op in OPS.items():
            rec.op = name
            rng = np.random.default_rng(zlib.crc32(name.encode()))
            if not op.cases:
                op.forward(rec, *_caseless_args(op, rng))
            for case in op.cases:
                args = [eagerad.tensor(a.draw(rng), dtype=eagerad.float64, requires_grad=True)
                        if isinstance(a, U) else eagerad.Tensor(a) if isinstance(a, np.ndarray)
                        else a for a in case.args]
                out = op(*args, **case.kwargs)
                outs = out if isinstance(out, tuple) else (out,)
                inputs = [a for a in args if isinstance(a, eagerad.Tensor) and a.requires_grad]
                if any(o.requires_grad for o in outs):
                    eagerad.autograd.grad([o for o in outs if o.requires_grad], inputs,
                                          [eagerad.ones_like(o) for o in outs if o.requires_grad],
                                          allow_unused=True)
    finally:
        registry._backends.clear()
        registry._backends.update(saved)
    return rec.used


def test_ops_call_only_functions_of_the_contract(recorded):
    outside = {name: sorted(ops) for name, ops in recorded.items() if name not in ALLOWED}
    assert outside == {}


def test_recording_sees_forwards_and_fast_rules(recorded):
    # the check above is only as good as what it saw: forwards of every kind and the
    # array-level backward rules (fused tanh gradient, sin's fused derivative)
    seen = {"matmul", "unary", "special_unary", "reduce", "fused_grad", "fused_deriv"}
    assert seen <= set(recorded)
    assert "tanh" in recorded["fused_grad"] and "argsort" in recorded["argsort"]
