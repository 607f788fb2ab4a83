"""PyTorch's own op database as the bar for the PyTorch face (issue 20).

For every OpInfo in ``torch.testing._internal.common_methods_invocations.op_db`` that
supports autograd on the CPU in float64, the first ``SAMPLES`` of its own sample inputs go
through every public spelling PyTorch has for it (``torch.f``, ``Tensor.f``,
``torch.nn.functional.f``, ``torch.linalg.f``, ``torch.special.f``, ``torch.fft.f``,
``torch.masked.f``) and through eagerad's spelling of the same name.  Values, first-order
gradients (a vjp with a fixed random cotangent) and second-order gradients (the gradient
of ``<vjp, w>`` for a fixed random ``w``) are compared in float64 at ``rtol=1e-6`` (the
second order only where PyTorch itself has one: ``cdist``, ``pdist``, ``hardsigmoid`` ...).

Every (op, spelling) gets one status: ``pass``, ``missing`` (eagerad has no such name),
``raises``, ``value`` (wrong value or structure), ``grad`` (wrong first-order gradient),
``grad2`` (wrong second-order gradient).  Ops whose PyTorch results depend on the random
seed (dropout, normal, ...) are compared on shapes and dtypes only.

The test passes while reporting: it asserts that the number of ops passing in every
spelling is at least ``FLOOR`` (raise it as ops get fixed).  Run with ``-s`` to print the
table; ``EAGERAD_OPDB_WRITE=1`` also writes ``tests/data/torch_opdb_status.json``;
``EAGERAD_OPDB_ONLY=sum,max`` checks only the named ops (the floor is then not asserted).
The module is skipped when torch or expecttest is not installed (as in CI, which installs
only the ``test`` extra) or when ``EAGERAD_SKIP_OPDB=1``; it takes about a minute of CPU
time (two cores, warm Numba caches; loading ``op_db`` alone is several seconds).
"""
import inspect
import json
import os
import signal
import time
import warnings
import zlib
from collections import Counter

import numpy as np
import pytest

if os.environ.get("EAGERAD_SKIP_OPDB"):
    pytest.skip("EAGERAD_SKIP_OPDB is set", allow_module_level=True)
torch = pytest.importorskip("torch")
pytest.importorskip("expecttest")

import eagerad

# Ops passing in every public spelling must not drop below this (raise it as ops get fixed).
FLOOR = 351
SAMPLES = 4               # sample inputs per op
RTOL, ATOL = 1e-6, 1e-7
CALL_SECONDS = 20         # one eagerad call (forward + both gradient orders) may take this long
STATUS_FILE = os.path.join(os.path.dirname(__file__), "data", "torch_opdb_status.json")
NAMESPACES = ("linalg", "special", "fft", "masked")


import eagerad.torch as ETORCH   # noqa: E402 - eagerad's spellings are resolved from its PyTorch face


# ----------------------------------------------------------------------------- spellings

def _torch_home(kind):
    if kind == "torch":
        return torch
    if kind == "Tensor":
        return torch.Tensor
    if kind == "F":
        return torch.nn.functional
    return getattr(torch, kind)


def _eagerad_home(kind):
    if kind == "torch":
        return ETORCH
    if kind == "F":
        return getattr(getattr(ETORCH, "nn", None), "functional", None)
    return getattr(ETORCH, kind, None)


def candidate_spellings(op):
    """(kind, name) pairs PyTorch may spell this op as, from its name and aliases."""
    out = []
    for full in [op.name] + [a.name for a in op.aliases]:
        parts = full.split(".")
        base = parts[-1]
        if base.startswith("_") and not base.startswith("__"):
            continue                          # private aten entry points
        if len(parts) == 1:
            kinds = ["Tensor"] if base.startswith("__") else ["torch", "Tensor", "F"]
        elif parts[:2] == ["nn", "functional"]:
            kinds = ["F", "torch", "Tensor"]
        elif len(parts) == 2 and parts[0] in NAMESPACES:
            kinds = [parts[0]]
        else:
            continue
        for kind in kinds:
            if hasattr(_torch_home(kind), base) and (kind, base) not in out:
                out.append((kind, base))
    return out


def call(home, kind, name, sample_input, args, kwargs):
    """Call spelling (kind, name) whose namespace is ``home`` (torch's or eagerad's)."""
    if kind == "Tensor":
        attr = getattr(sample_input, name)
        if not callable(attr):                # properties: x.T, x.mH, ...
            if args or kwargs:
                raise TypeError(f"{name} is a property")
            return attr
        return attr(*args, **kwargs)
    return getattr(home, name)(sample_input, *args, **kwargs)


# ----------------------------------------------------------------------------- conversion

def flat(tree):
    """Tensors and scalars of a nested output, in order."""
    if isinstance(tree, (tuple, list)):
        return [leaf for item in tree for leaf in flat(item)]
    return [tree]


def to_eagerad(tree, memo):
    """torch sample arguments -> eagerad's (tensors keep identity, dtype, requires_grad)."""
    if isinstance(tree, torch.Tensor):
        if id(tree) not in memo:
            dtype = getattr(eagerad, str(tree.dtype).replace("torch.", ""), None)
            t = ETORCH.tensor(_resolved(tree.detach()).numpy().copy(), dtype=dtype)
            if tree.requires_grad:
                t.requires_grad_(True)
            memo[id(tree)] = t
        return memo[id(tree)]
    if isinstance(tree, torch.nn.Module):
        return _eagerad_module(tree)
    if callable(tree) and getattr(tree, "__module__", "").startswith("torch"):
        for kind in ("F", "torch"):                 # a torch function passed as an argument
            home = _eagerad_home(kind)
            if hasattr(home, getattr(tree, "__name__", "")):
                return getattr(home, tree.__name__)
        raise TypeError(f"no eagerad counterpart of {tree!r}")
    if isinstance(tree, torch.dtype):
        return getattr(eagerad, str(tree).replace("torch.", ""))
    if isinstance(tree, torch.Size):
        return tuple(tree)
    if isinstance(tree, torch.device):
        return str(tree)
    if isinstance(tree, tuple) and hasattr(tree, "_fields"):
        return type(tree)(*(to_eagerad(x, memo) for x in tree))
    if isinstance(tree, (tuple, list)):
        return type(tree)(to_eagerad(x, memo) for x in tree)
    if isinstance(tree, dict):
        return {k: to_eagerad(v, memo) for k, v in tree.items()}
    return tree


def _eagerad_module(module):
    """eagerad's layer of the torch module's class name, built from its constructor
    arguments read back from the attributes of the same names (PyTorch keeps ``p`` as
    ``norm``); only modules without parameters (a loss's ``distance_function``)."""
    cls = getattr(ETORCH.nn, type(module).__name__, None)
    if cls is None or any(True for _ in module.parameters()):
        raise TypeError(f"no eagerad counterpart of {module!r}")
    state = vars(module)
    kwargs = {}
    for name in list(inspect.signature(type(module).__init__).parameters)[1:]:
        attr = name if name in state else {"p": "norm"}.get(name)
        if attr in state:
            kwargs[name] = state[attr]
    return cls(**kwargs)


def _resolved(x):
    """A torch tensor with its lazy conjugate/negative bits applied (numpy refuses them)."""
    return x.resolve_conj().resolve_neg() if x.is_complex() else x


def as_numpy(x):
    if isinstance(x, torch.Tensor):
        x = _resolved(x.detach())
        if x._is_zerotensor():
            x = torch.zeros(x.shape, dtype=x.dtype)
        if x.layout != torch.strided:
            x = x.to_dense()
        if x.is_complex():
            return x.to(torch.complex128).numpy()
        return (x.double() if x.is_floating_point() else x).numpy()
    if isinstance(x, eagerad.Tensor):
        return np.asarray(x.detach().numpy())
    return np.asarray(x)


def close(a, b):
    a, b = as_numpy(a), as_numpy(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "biu" and b.dtype.kind in "biu":
        return np.array_equal(a, b)
    as_float = np.complex128 if "c" in (a.dtype.kind, b.dtype.kind) else np.float64
    return np.allclose(a.astype(as_float), b.astype(as_float), rtol=RTOL, atol=ATOL,
                       equal_nan=True)


def all_close(xs, ys):
    return len(xs) == len(ys) and all(close(x, y) for x, y in zip(xs, ys))


# ----------------------------------------------------------------------------- derivatives

def leaves_of(tree):
    return [t for t in flat_dict(tree) if isinstance(t, torch.Tensor) and t.requires_grad]


def flat_dict(tree):
    if isinstance(tree, dict):
        return [leaf for v in tree.values() for leaf in flat_dict(v)]
    if isinstance(tree, (tuple, list)):
        return [leaf for item in tree for leaf in flat_dict(item)]
    return [tree]


def _derivatives(lib, outs, leaves, cotangents, weights):
    """vjp of ``outs`` with ``cotangents``, then the gradient of ``<vjp, weights>``."""
    pairs = [(o, v) for o, v in zip(outs, cotangents) if v is not None and o.requires_grad]
    zeros = [lib.zeros_like(x) for x in leaves]
    if not pairs or not leaves:
        return zeros, zeros
    g1 = lib.autograd.grad([o for o, _ in pairs], leaves, [v for _, v in pairs],
                           create_graph=True, allow_unused=True)
    g1 = [z if g is None else g for g, z in zip(g1, zeros)]
    terms = [_inner(g, w) for g, w in zip(g1, weights) if g.requires_grad]
    if not terms:
        return g1, zeros
    total = terms[0]
    for t in terms[1:]:
        total = total + t
    try:
        g2 = lib.autograd.grad(total, leaves, allow_unused=True)
    except (NotImplementedError, RuntimeError):
        if lib is not torch:
            raise
        return g1, None                     # torch itself has no second order here
    return g1, [z if g is None else g for g, z in zip(g2, zeros)]


def _inner(g, w):
    """The real inner product <g, w>: ``sum(g * w)``, for complex tensors
    ``sum(Re g Re w + Im g Im w)`` (a real number that second-order gradients start from)."""
    if g.is_complex():
        return (g.real * w.real + g.imag * w.imag).sum()
    return (g * w).sum()


def _random_like(x, rng):
    if x.is_complex():          # (drawn after the real part: real ops draw as they always did)
        return rng.standard_normal(tuple(x.shape)) + 1j * rng.standard_normal(tuple(x.shape))
    return rng.standard_normal(tuple(x.shape))


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout(f"took over {CALL_SECONDS} s")


# ----------------------------------------------------------------------------- one op

def _torch_run(fn, sample):
    torch.manual_seed(0)
    return fn(sample.input, *sample.args, **sample.kwargs)


def is_random(op, sample):
    torch.manual_seed(1)
    a = flat(op.op(sample.input, *sample.args, **sample.kwargs))
    torch.manual_seed(2)
    b = flat(op.op(sample.input, *sample.args, **sample.kwargs))
    return not all_close(a, b)


def check_sample(kind, name, sample, reference, random_op, key):
    """Status of eagerad's spelling (kind, name) on one sample: 'pass' or a failure kind."""
    home = _eagerad_home(kind)
    if kind != "Tensor" and (home is None or not hasattr(home, name)):
        return "missing", ""
    memo = {}
    try:
        e_input = to_eagerad(sample.input, memo)
        e_args = to_eagerad(sample.args, memo)
        e_kwargs = to_eagerad(sample.kwargs, memo)
    except Exception as exc:                   # noqa: BLE001 - recorded, not hidden
        return "raises", f"converting the sample: {type(exc).__name__}: {exc}"[:200]
    if kind == "Tensor" and not hasattr(e_input, name):
        return "missing", ""
    t_leaves = leaves_of((sample.input, sample.args, sample.kwargs))
    e_leaves = [memo[id(t)] for t in t_leaves]
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(CALL_SECONDS)
    try:
        eagerad.manual_seed(0)
        e_out = flat(call(home, kind, name, e_input, e_args, e_kwargs))
        t_out = flat(reference)
        if random_op:
            shapes = lambda xs: [tuple(getattr(x, "shape", ())) for x in xs]   # noqa: E731
            return ("pass", "random: shapes only") if shapes(e_out) == shapes(t_out) else \
                ("value", f"shapes {shapes(e_out)} vs torch {shapes(t_out)}")
        if not all_close(e_out, t_out):
            return "value", _mismatch(e_out, t_out)
        rng = np.random.default_rng(zlib.crc32(key.encode()))
        t_diff = [o if isinstance(o, torch.Tensor) and o.requires_grad else None for o in t_out]
        v = [None if o is None else _random_like(o, rng) for o in t_diff]
        w = [_random_like(x, rng) for x in t_leaves]
        t_g1, t_g2 = _derivatives(torch, [o for o in t_out], t_leaves,
                                  [None if a is None else torch.tensor(a) for a in v],
                                  [torch.tensor(a) for a in w])
        e_diff = [o if isinstance(o, eagerad.Tensor) else None for o in e_out]
        e_g1, e_g2 = _derivatives(ETORCH, [o for o in e_diff if o is not None], e_leaves,
                                  [None if a is None else ETORCH.tensor(a)
                                   for o, a in zip(e_diff, v) if o is not None],
                                  [ETORCH.tensor(a) for a in w])
        if not all_close(e_g1, t_g1):
            return "grad", _mismatch(e_g1, t_g1)
        if t_g2 is not None and not all_close(e_g2, t_g2):
            return "grad2", _mismatch(e_g2, t_g2)
        return "pass", ""
    except Exception as exc:                   # noqa: BLE001 - recorded, not hidden
        return "raises", f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _mismatch(es, ts):
    if len(es) != len(ts):
        return f"{len(es)} outputs vs torch {len(ts)}"
    for i, (e, t) in enumerate(zip(es, ts)):
        e, t = as_numpy(e), as_numpy(t)
        if e.shape != t.shape:
            return f"output {i}: shape {e.shape} vs torch {t.shape}"
        if not close(e, t):
            as_float = np.complex128 if "c" in (e.dtype.kind, t.dtype.kind) else np.float64
            with np.errstate(all="ignore"):
                err = np.nanmax(np.abs(e.astype(as_float) - t.astype(as_float)))
            return f"output {i}: max abs error {err:.3g}"
    return ""


def check_op(op):
    """{'spelling': (status, detail)} for one OpInfo (empty: no public spelling)."""
    samples = []
    for s in op.sample_inputs("cpu", torch.float64, requires_grad=True):
        samples.append(s)
        if len(samples) == SAMPLES:
            break
    spellings = candidate_spellings(op)
    results = {}
    valid = {sp: True for sp in spellings}
    refs = []
    for s in samples:
        try:
            expected = flat(_torch_run(op.op, s))
        except Exception:                      # noqa: BLE001 - torch rejects its own sample
            refs.append(None)
            continue
        per = {}
        for sp in spellings:                   # a spelling counts when torch agrees with op.op
            try:
                torch.manual_seed(0)
                got = call(_torch_home(sp[0]), sp[0], sp[1], s.input, s.args, s.kwargs)
                valid[sp] = valid[sp] and all_close(flat(got), expected)
            except Exception:                  # noqa: BLE001
                valid[sp] = False
                continue
            per[sp] = got
        refs.append(per)
    spellings = [sp for sp in spellings if valid[sp]]
    for sp in spellings:
        label = f"{sp[0]}.{sp[1]}"
        status = ("pass", "")
        for i, (s, per) in enumerate(zip(samples, refs)):
            if per is None:
                continue
            random_op = is_random(op, s)
            status = check_sample(sp[0], sp[1], s, per[sp], random_op,
                                  f"{op.name}.{op.variant_test_name}.{i}")
            if status[0] != "pass":
                break
        results[label] = status
    return results


SECONDS = {}      # op -> seconds its check took (reported with -s)


def run_all():
    from torch.testing._internal.common_methods_invocations import op_db
    only = set(filter(None, os.environ.get("EAGERAD_OPDB_ONLY", "").split(",")))
    table = {}
    for op in op_db:
        if only and op.name not in only:
            continue
        if not op.supports_autograd or torch.float64 not in op.supported_dtypes("cpu"):
            continue
        key = op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            start = time.perf_counter()
            table[key] = check_op(op)
            SECONDS[key] = time.perf_counter() - start
    return table


def summarize(table):
    counted = {k: v for k, v in table.items() if v}
    passing = sorted(k for k, v in counted.items() if all(s == "pass" for s, _ in v.values()))
    kinds = Counter(s for v in counted.values() for s, _ in v.values())
    return {"ops": len(table), "ops_with_public_spelling": len(counted),
            "ops_passing_every_spelling": len(passing),
            "spellings": sum(len(v) for v in counted.values()), "spelling_status": dict(kinds),
            "no_public_spelling": sorted(k for k, v in table.items() if not v)}


def test_torch_op_database():
    table = run_all()
    summary = summarize(table)
    lines = [f"{k:45s} {sp:32s} {st:8s} {detail}" for k, v in sorted(table.items())
             for sp, (st, detail) in v.items()]
    print("\n".join(lines))
    print("slowest:", sorted(SECONDS.items(), key=lambda kv: -kv[1])[:15])
    print(json.dumps({k: v for k, v in summary.items() if k != "no_public_spelling"}, indent=1))
    if os.environ.get("EAGERAD_OPDB_WRITE"):
        os.makedirs(os.path.dirname(STATUS_FILE), exist_ok=True)
        with open(STATUS_FILE, "w") as f:
            json.dump({"summary": summary,
                       "ops": {k: {sp: list(r) for sp, r in v.items()}
                               for k, v in sorted(table.items())}}, f, indent=1)
    if not os.environ.get("EAGERAD_OPDB_ONLY"):
        assert summary["ops_passing_every_spelling"] >= FLOOR, summary
