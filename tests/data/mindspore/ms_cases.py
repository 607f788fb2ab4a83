"""MindSpore's documented examples as data: what each differentiable CPU API is called with.

Each case names one API of MindSpore 2.x (an ``ops`` function, a ``Tensor`` method, an
``nn`` cell, an ``nn`` optimizer step, or the printed form of a tensor) and the inputs its
documentation's ``Examples`` feed it (same shapes and kinds of values, same keyword
arguments, defaults left as defaults).  ``record.py`` runs every case under real MindSpore
and stores outputs and gradients in ``answers.json``; ``tests/test_mindspore_docs.py``
replays them under eagerad's MindSpore face.

A tensor input is a spec dict (``A``: literal values, ``U``: seeded uniform values); any
other value (int, float, str, tuple, list of numbers, None) is passed as written; ``L``
passes a Python list of tensors.  The numbers come from numpy's frozen legacy
``RandomState`` stream seeded by the case id, so both sides build the same arrays.
The gradient checked is that of ``sum(output * W)`` (``W`` fixed random weights of each
float output's shape) with respect to every float tensor input (and a cell's parameters).
This module needs only numpy: it is imported both under MindSpore's venv and eagerad's.
"""
import zlib

import numpy as np

CASES = []
_COUNT = {}

# Cases where MindSpore 2.10's own CPU answer is wrong (checked against float64 closed
# forms): the replay leaves them out rather than ask eagerad to copy the error.
MINDSPORE_WRONG = {
    "ops.selu#0": "MindSpore's CPU SeLU gradient is wrong for x < 0 (e.g. -0.53 at x=-1.94, "
                  "where d/dx scale*alpha*(exp(x)-1) = 0.25)",
    "nn.SeLU#0": "the same wrong CPU SeLU gradient as ops.selu",
    "ops.log_softmax#1": "MindSpore's float32 log_softmax over axis 0 is off by 3e-6 "
                         "(float64 reference -0.0639369475, MindSpore -0.063934006)",
}


# ------------------------------------------------------------------ specs

def A(data, dtype="float32"):
    """A tensor of literal values."""
    return {"a": data, "dtype": dtype}


def U(shape, lo=-2.0, hi=2.0, dtype="float32"):
    """A tensor of seeded uniform values in [lo, hi)."""
    return {"u": [lo, hi], "shape": list(shape), "dtype": dtype}


def L(*specs):
    """A Python list of tensors (``ops.cat([a, b])``)."""
    return {"list": list(specs)}


def T(*specs):
    """A Python tuple of tensors (``LSTMCell(x, (h, c))``)."""
    return {"list": list(specs), "tuple": True}


def I(data, dtype="int32"):
    """An integer tensor of literal values."""
    return {"a": data, "dtype": dtype}


def D(name):
    """A framework dtype object (``mindspore.float16``), by numpy name."""
    return {"dtype_obj": name}


def seed_of(*parts):
    """A stable 32-bit seed from strings (zlib.crc32; the same in every Python)."""
    return zlib.crc32("/".join(str(p) for p in parts).encode())


def make_array(spec, case_id, path):
    """The numpy array a tensor spec stands for (``path`` tells inputs of a case apart)."""
    dtype = np.dtype(spec["dtype"])
    if "a" in spec:
        return np.array(spec["a"], dtype=dtype)
    lo, hi = spec["u"]
    rng = np.random.RandomState(seed_of(case_id, path))
    return rng.uniform(lo, hi, size=tuple(spec["shape"])).astype(dtype)


def weights_for(case_id, k, shape):
    """The fixed weights W of the k-th float output in the gradient's sum(output * W)."""
    rng = np.random.RandomState(seed_of(case_id, "w", k))
    return rng.uniform(-1.0, 1.0, size=tuple(shape))


def param_value(case_id, name, shape):
    """A cell parameter's fixed value (positive for variances, as BatchNorm needs)."""
    rng = np.random.RandomState(seed_of(case_id, "param", name))
    if "variance" in name or name.endswith("var"):
        return rng.uniform(0.5, 1.5, size=tuple(shape))
    return rng.uniform(-0.5, 0.5, size=tuple(shape))


def is_spec(value):
    return isinstance(value, dict) and ("a" in value or "u" in value or "list" in value)


def _add(kind, api, inputs, kwargs, grad=True, **extra):
    n = _COUNT.get(api, 0)
    _COUNT[api] = n + 1
    case = {"id": f"{api}#{n}", "kind": kind, "api": api, "inputs": list(inputs),
            "kwargs": dict(kwargs), "grad": grad}
    case.update(extra)
    CASES.append(case)


def F(name, *inputs, grad=True, **kwargs):
    """``ops.<name>(*inputs, **kwargs)``."""
    _add("func", f"ops.{name}", inputs, kwargs, grad)


def M(name, self, *inputs, grad=True, **kwargs):
    """``Tensor(self).<name>(*inputs, **kwargs)``."""
    _add("method", f"Tensor.{name}", (self,) + inputs, kwargs, grad)


def P(name, self, grad=True):
    """The property ``Tensor(self).<name>`` (``.T``, ``.shape``...)."""
    _add("property", f"Tensor.{name}", (self,), {}, grad)


def C(name, init=(), init_kw=None, inputs=(), grad=True, train=False, **kwargs):
    """``nn.<name>(*init, **init_kw)`` with every parameter set to fixed values (by name),
    then called on ``inputs``; gradients also w.r.t. the trainable parameters."""
    _add("cell", f"nn.{name}", inputs, kwargs, grad, init=list(init), init_kw=dict(init_kw or {}),
         train=train)


def O(name, params, grads, **kwargs):
    """``nn.<name>(params, **kwargs)`` stepped once per entry of ``grads``."""
    _add("optimizer", f"nn.{name}", [], kwargs, False, params=params, grads=grads)


def R(spec):
    """``repr`` and ``str`` of a tensor (MindSpore's printing)."""
    _add("repr", "repr", [spec], {}, False)


# ------------------------------------------------------------------ ops: elementwise

x23 = U((2, 3))
pos = U((2, 3), 0.2, 2.0)
unit = U((2, 3), -0.9, 0.9)

for name in ["abs", "absolute", "neg", "negative", "exp", "expm1", "sin", "cos", "tanh", "sinh",
             "cosh", "atan", "arctan", "asinh", "arcsinh", "sigmoid", "erf", "erfc", "square",
             "relu", "relu6", "silu", "mish", "selu", "elu", "celu", "softsign", "logsigmoid",
             "hardsigmoid", "hardswish", "hardtanh", "tanhshrink", "softplus", "gelu", "sinc",
             "deg2rad", "rad2deg", "exp2", "frac", "sign", "ceil", "floor", "round", "trunc",
             "sgn", "positive", "i0", "hardshrink", "softshrink", "soft_shrink", "conj", "inv"]:
    F(name, U((2, 3), -3.0, 3.0))
F("tan", U((2, 3), -1.2, 1.2))
for name in ["log", "log2", "log10", "sqrt", "rsqrt", "reciprocal", "lgamma", "digamma", "inv"]:
    F(name, pos)
F("log1p", U((2, 3), -0.5, 2.0))
for name in ["asin", "acos", "atanh", "arcsin", "arccos", "arctanh", "erfinv"]:
    F(name, unit)
F("acosh", U((2, 3), 1.1, 3.0))
F("arccosh", U((4,), 1.1, 3.0))
F("logit", U((2, 3), 0.1, 0.9))
F("logit", U((2, 3), 0.0, 1.0), eps=1e-5)
F("abs", A([-1.0, 0.0, 2.5]))
F("relu", A([-1.0, 0.0, 2.0]))
F("relu6", A([-1.0, 0.0, 3.0, 6.0, 7.0]))
F("gelu", U((2, 3)), approximate="tanh")
F("celu", U((2, 3)), alpha=2.0)
F("leaky_relu", A([[-1.0, 4.0, -8.0], [2.0, -5.0, 9.0]]))
F("leaky_relu", U((2, 3)), alpha=0.1)
F("softplus", U((2, 3), -30, 30), beta=2, threshold=10)
F("hardshrink", A([[0.5, 1.0, 2.0], [0.0533, 0.0776, -2.1233]]), lambd=1.0)
F("softshrink", A([[0.5297, 0.7871, 1.1754], [0.7836, 0.6218, -1.1542]]))
F("hardtanh", A([-2.0, -1.0, -0.5, 0.0, 1.0, 1.5]))
F("hardtanh", A([-2.0, -1.0, -0.5, 0.0, 1.0, 1.5]), min_val=-0.5, max_val=1.0)
F("threshold", A([[0.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), 3.0, 20.0)
F("prelu", U((1, 2, 3)), A([0.25, 0.5]))
F("glu", U((2, 4)))
F("glu", U((4, 2)), axis=0)
F("sign", A([-2.0, 0.0, 3.0]))
F("round", A([0.8, 1.5, 2.3, 2.5, -4.5]))
F("trunc", A([3.4742, 0.5466, -0.8008, -3.9079]))
F("nan_to_num", A([float("nan"), float("inf"), -float("inf"), 5.0]), nan=1.0, posinf=2.0, neginf=3.0)
F("nan_to_num", A([float("nan"), float("inf"), -float("inf"), 5.0]))
F("rsqrt", A([0.25, 1.0, 4.0]))
F("isfinite", A([float("nan"), float("inf"), 1.0]), grad=False)
F("isinf", A([float("nan"), float("inf"), -float("inf"), 1.0]), grad=False)
F("isnan", A([float("nan"), float("inf"), 1.0]), grad=False)
F("signbit", A([-0.0, 0.0, -1.0, 2.0]), grad=False)

# binary
y23 = U((2, 3))
for name in ["add", "sub", "mul", "maximum", "minimum", "atan2", "arctan2", "hypot",
             "logaddexp", "logaddexp2", "fmax", "copysign", "subtract", "multiply"]:
    F(name, U((2, 3)), U((2, 3)))
for name in ["div", "divide", "true_divide", "xdivy", "fmod", "remainder", "floor_divide",
             "floor_mod"]:
    F(name, U((2, 3), -3, 3), U((2, 3), 0.5, 2.0))
F("xlogy", U((2, 3), 0.0, 2.0), U((2, 3), 0.2, 2.0))
F("xlogy", A([0.0, 1.0, 2.0]), A([0.0, 2.0, 3.0]))
F("pow", U((2, 3), 0.2, 2.0), U((2, 3), -1.5, 1.5))
F("pow", A([1.0, 2.0, 4.0]), 3.0)
F("pow", A([1.0, 2.0, 4.0]), A([2.0, 4.0, 3.0]))
F("float_power", A([1.5, 2.0, 3.0]), 2)
F("add", U((2, 3)), U((3,)))
F("add", U((2, 1)), U((1, 3)))
F("add", U((2, 3)), 1.5)
F("add", A([1, 2, 3], "int32"), A([4.0, 5.0, 6.0]))
F("mul", U((2, 3)), U((3,)))
F("mul", A([1.0, 2.0, 3.0]), 2)
F("sub", U((2, 3)), U((2, 1)))
F("div", A([1.0, 2.0, 3.0]), A([4.0, 5.0, 6.0]))
F("div", A([-4.0, 5.0, 6.0]), A([3.0, 2.0, 4.0]), rounding_mode="floor")
F("div", A([-4.0, 5.0, 6.0]), A([3.0, 2.0, 4.0]), rounding_mode="trunc")
F("div", A([1, 2, 3], "int32"), A([2, 2, 2], "int32"), grad=False)
F("maximum", A([1.0, 2.0, 3.0]), A([3.0, 2.0, 1.0]))
F("minimum", A([1.0, 2.0, 3.0]), A([3.0, 2.0, 1.0]))
F("fmod", A([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0]), 1.5)
F("remainder", A([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0]), 1.5)
F("lerp", U((2, 3)), U((2, 3)), 0.5)
F("lerp", U((2, 3)), U((2, 3)), U((2, 3), 0, 1))
F("addcdiv", U((2, 3)), U((2, 3)), U((2, 3), 0.5, 2.0), value=0.5)
F("addcmul", U((2, 3)), U((2, 3)), U((2, 3)), value=2.0)
F("ldexp", A([1.0, 2.0, 3.0]), A([1, 2, 3], "int32"))
F("heaviside", A([-1.5, 0.0, 2.0]), A([0.5, 0.5, 0.5]), grad=False)
F("clamp", U((2, 3), -3, 3), -1.0, 1.0)
F("clamp", U((2, 3), -3, 3), min=0.0)
F("clamp", U((2, 3), -3, 3), A([-1.0, -0.5, 0.0]), A([1.0, 0.5, 2.0]))
F("clip", U((2, 3), -3, 3), -1.0, 1.0)
F("clip_by_value", A([[1.0, 25.0, 5.0, 7.0], [4.0, 11.0, 6.0, 21.0]]), 5.0, 20.0)
F("clip_by_value", A([-2.0, -1.0, 0.0, 1.0, 2.0]), A([-1.0, -1.0, -1.0, -1.0, -1.0]), A([1.0, 1.0, 1.0, 1.0, 1.0]))
F("clip_by_value", A([-1.0, 1.0]), -1.0, 1.0)

# comparisons and logic (no gradient)
for name in ["equal", "ne", "greater", "greater_equal", "less", "less_equal", "gt", "ge", "lt",
             "le", "eq", "not_equal"]:
    F(name, A([1.0, 2.0, 3.0]), A([1.0, 1.0, 4.0]), grad=False)
F("isclose", A([1.3, 2.1, 3.2, 4.1, 5.1]), A([1.3, 3.3, 2.3, 3.1, 5.1]), grad=False)
F("isclose", A([float("inf"), -float("inf"), float("inf"), float("nan")]),
  A([float("inf"), float("inf"), -float("inf"), float("nan")]), grad=False)
F("isclose", A([float("nan"), 1.0]), A([float("nan"), 1.0]), equal_nan=True, grad=False)
F("logical_and", A([True, False, True], "bool"), A([True, True, False], "bool"), grad=False)
F("logical_or", A([True, False, True], "bool"), A([True, True, False], "bool"), grad=False)
F("logical_xor", A([True, False, True], "bool"), A([True, True, False], "bool"), grad=False)
F("logical_not", A([True, False, True], "bool"), grad=False)
F("bitwise_and", A([0, 0, 1, -1, 1, 1, 1], "int16"), A([0, 1, 1, -1, -1, 2, 3], "int16"), grad=False)
F("bitwise_or", A([0, 0, 1, -1, 1, 1, 1], "int16"), A([0, 1, 1, -1, -1, 2, 3], "int16"), grad=False)
F("bitwise_xor", A([0, 0, 1, -1, 1, 1, 1], "int16"), A([0, 1, 1, -1, -1, 2, 3], "int16"), grad=False)

# ------------------------------------------------------------------ ops: reductions

x34 = U((3, 4))
F("sum", U((2, 3, 4)))
F("sum", U((2, 3, 4)), 1)
F("sum", U((2, 3, 4)), dim=(0, 2), keepdim=True)
F("mean", U((2, 3, 4)))
F("mean", U((2, 3, 4)), 1)
F("mean", U((2, 3, 4)), axis=(0, 2), keep_dims=True)
F("mean", A([[1, 2, 3], [4, 5, 7]], "int32"), grad=False)
F("mean", A([[1, 2, 3], [4, 5, 7]], "int64"), 1, grad=False)
F("prod", U((2, 3), 0.5, 1.5))
F("prod", U((2, 3), 0.5, 1.5), 1, keep_dims=True)
F("amax", x34, 1)
F("amax", A([[1.0, 3.0, 3.0], [2.0, 0.0, 2.0]]))
F("amin", x34, 0, keepdims=True)
F("max", A([0.0, 0.4, 0.6, 0.7, 0.1]))
F("max", x34, 1)
F("max", x34, axis=0, keepdims=True)
F("max", A([[1.0, 3.0, 3.0], [2.0, 0.0, 2.0]]), 1)
F("min", A([0.0, 0.4, 0.6, 0.7, 0.1]))
F("min", x34, 1)
F("min", x34, axis=0, keepdims=True)
F("argmax", x34, grad=False)
F("argmax", x34, 1, grad=False)
F("argmax", x34, dim=0, keepdim=True, grad=False)
F("argmin", x34, grad=False)
F("argmin", x34, 1, grad=False)
F("aminmax", x34, axis=1)
F("aminmax", x34, axis=0, keepdims=True)
F("std", x34)
F("std", x34, 1, ddof=1)
F("std", x34, axis=0, ddof=0, keepdims=True)
F("var", x34)
F("var", x34, 1, ddof=1)
F("std_mean", x34, 1, ddof=1)
F("var_mean", x34, 0)
F("logsumexp", x34, 1)
F("logsumexp", x34, 0, keepdim=True)
F("norm", x34)
F("norm", x34, 1)
F("norm", x34, "fro")
F("norm", x34, float("inf"), 1)
F("norm", U((4,)), 3.0)
F("norm", x34, None, 1, keepdim=True)
F("median", A([[0.57, 0.11, 0.21], [0.38, 0.50, 0.57], [0.36, 0.16, 0.44]]), 0)
F("median", A([[0.5, 0.1, 0.2, 0.9], [0.3, 0.8, 0.6, 0.4]]), 1)
F("median", A([[0.5, 0.1, 0.2, 0.9], [0.3, 0.8, 0.6, 0.4]]), axis=1, keepdims=True)
F("nanmean", A([[0.5, -1.1, float("nan")], [3.4, float("nan"), float("nan")]]), 1)
F("nansum", A([[float("nan"), 128.1, -19.0], [23.0, float("nan"), 44.0]]), 1)
F("count_nonzero", A([[0.0, 0.0, 1.0], [1.0, 1.0, 2.0], [0.0, 0.0, 1.0]]), grad=False)
F("count_nonzero", A([[0, 0, 1], [1, 1, 2]], "int32"), axis=1, grad=False)
F("all", A([[True, False], [True, True]], "bool"), grad=False)
F("all", A([[True, False], [True, True]], "bool"), axis=1, grad=False)
F("any", A([[True, False], [False, False]], "bool"), grad=False)
F("any", A([[True, False], [False, False]], "bool"), axis=1, grad=False)
F("cumsum", x34, 0)
F("cumsum", x34, 1)
F("cumprod", U((2, 3), 0.5, 1.5), 1)
F("logcumsumexp", x34, 1)
F("sort", A([[8.0, 2.0, 1.0], [5.0, 9.0, 3.0], [4.0, 6.0, 7.0]]))
F("sort", x34, 0, descending=True)
F("sort", x34, axis=1)
F("argsort", x34, grad=False)
F("argsort", x34, axis=0, descending=True, grad=False)
F("msort", A([[8.0, 2.0, 1.0], [5.0, 9.0, 3.0], [4.0, 6.0, 7.0]]))
F("topk", A([[0.5368, 0.2447, 0.4302, 0.9673], [0.4388, 0.6525, 0.4685, 0.1868],
             [0.3563, 0.5152, 0.9675, 0.8230]]), 2, dim=1)
F("topk", A([[0.5368, 0.2447, 0.4302, 0.9673], [0.4388, 0.6525, 0.4685, 0.1868],
             [0.3563, 0.5152, 0.9675, 0.8230]]), 2, dim=1, largest=False)
F("topk", U((5,)), 3)
F("trace", A([[10.0, 11.0, 12.0], [13.0, 14.0, 15.0], [16.0, 17.0, 18.0]]))
F("trapz", U((3, 5)))
F("trapz", U((3, 5)), dx=0.5, dim=0)
F("diff", U((2, 5)))
F("cdist", U((1, 2, 2)), U((1, 2, 2)))
F("cdist", U((3, 4)), U((2, 4)), p=1.0)
F("dist", U((2, 3)), U((2, 3)))
F("dist", U((2, 3)), U((2, 3)), 1)
F("cosine_similarity", U((2, 4)), U((2, 4)))
F("cosine_similarity", U((3, 2)), U((3, 2)), dim=0)

# ------------------------------------------------------------------ ops: shapes and indexing

x234 = U((2, 3, 4))
F("reshape", x234, (4, 6))
F("reshape", x234, (-1, 2))
F("flatten", x234)
F("flatten", x234, start_dim=0)
F("flatten", U((2, 3, 4, 2)), start_dim=1, end_dim=2)
F("transpose", x234, (2, 0, 1))
F("permute", x234, (1, 0, 2))
F("squeeze", U((2, 1, 3, 1)))
F("squeeze", U((2, 1, 3, 1)), 1)
F("unsqueeze", U((2, 3)), 1)
F("expand_dims", U((2, 3)), 0)
F("broadcast_to", U((3,)), (2, 3))
F("broadcast_to", U((2, 1)), (-1, 4))
F("tile", U((2, 2)), (2, 3))
F("repeat_interleave", U((2, 3)), 2, 1)
F("repeat_interleave", U((2, 3)), 2)
F("repeat_elements", U((2, 3)), rep=2, axis=0)
F("flip", x234, (0, 2))
F("fliplr", U((2, 3)))
F("flipud", U((2, 3)))
F("rot90", U((2, 3)), 1, (0, 1))
F("cat", L(U((2, 3)), U((1, 3))))
F("cat", L(U((2, 3)), U((2, 2))), 1)
F("concat", L(U((2, 3)), U((2, 3))), axis=1)
F("stack", L(U((2, 3)), U((2, 3))))
F("stack", L(U((2, 3)), U((2, 3))), axis=2)
F("hstack", L(U((2, 3)), U((2, 1))))
F("vstack", L(U((3,)), U((3,))))
F("dstack", L(U((2, 3)), U((2, 3))))
F("column_stack", L(U((3,)), U((3, 2))))
F("split", U((5, 2)), 2)
F("split", U((6,)), [1, 2, 3])
F("split", U((2, 6)), 3, axis=1)
F("chunk", U((5, 2)), 2)
F("chunk", U((2, 6)), 3, axis=1)
F("tensor_split", U((9,)), 3)
F("tensor_split", U((9,)), (1, 4))
F("unbind", U((3, 2)))
F("unbind", U((3, 2)), 1)
F("narrow", U((3, 4)), 1, 1, 2)
F("slice", U((3, 2, 3)), (1, 0, 0), (1, 1, 3))
F("swapaxes", x234, 0, 2)
F("swapdims", x234, 0, 1)
F("moveaxis", x234, 0, -1)
F("movedim", x234, (0, 1), (2, 0))
F("ravel", U((2, 3)))
F("t", U((2, 3)))
F("tril", U((3, 3)))
F("tril", U((3, 4)), 1)
F("triu", U((3, 3)))
F("triu", U((3, 4)), -1)
F("diag", U((3,)))
F("diagonal", U((3, 3)))
F("diagonal", U((2, 3, 3)), 1, 1, 2)
F("diag_embed", U((2, 3)))
F("gather", A([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]), I([0, 2, 4, 2, 6]), 0)
F("gather", U((3, 4)), I([0, 2]), 1)
F("gather", U((3, 4)), I([[0, 2], [1, 1]]), 0)
F("gather_d", A([[1.0, 2.0], [3.0, 4.0]]), 1, I([[0, 0], [1, 0]]))
F("gather_elements", U((2, 3)), 1, I([[0, 0, 2], [1, 0, 1]]))
F("gather_nd", U((3, 3)), I([[0, 0], [1, 1], [2, 0]]))
F("index_select", U((2, 3, 4)), 1, I([0, 2]))
F("masked_fill", A([1.0, 2.0, 3.0, 4.0]), A([True, True, False, True], "bool"), 0.5)
F("masked_fill", U((2, 3)), A([True, False, True], "bool"), -1.0)
F("masked_select", A([1.0, 2.0, 3.0, 4.0]), A([True, False, True, False], "bool"))
F("where", A([[True, False], [False, True]], "bool"), U((2, 2)), U((2, 2)))
F("where", A([True, False, True], "bool"), U((3,)), 0.0)
F("select", A([True, False], "bool"), A([2.0, 3.0]), A([1.0, 2.0]))
F("scatter", A([[1.0, 2.0, 3.0, 4.0, 5.0]]), 1, I([[2, 4]], "int64"), A([[8.0, 8.0]]))
F("scatter", U((3, 3)), 0, I([[0, 1, 2], [2, 0, 1]], "int64"), U((2, 3)))
F("tensor_scatter_add", U((2, 3)), I([[0, 0], [0, 0]]), A([1.0, 2.2]))
F("tensor_scatter_elements", U((2, 3)), I([[1, 0, 1]], "int64"), U((1, 3)), axis=0)
F("tensor_scatter_elements", U((2, 3)), I([[2], [0]], "int64"), U((2, 1)), axis=1, reduction="add")
F("scatter_nd", I([[0], [2]]), U((2, 3)), (4, 3))
F("pad", U((1, 2, 2, 3)), (1, 1, 2, 0))
F("pad", U((1, 2, 3)), (1, 2), value=1.5)
F("pad", U((1, 1, 3, 3)), (1, 1, 1, 1), mode="reflect")
F("pad", U((1, 1, 3, 3)), (1, 1, 1, 1), mode="replicate")
F("meshgrid", U((3,)), U((2,)))
F("meshgrid", U((3,)), U((2,)), indexing="ij")
F("cross", U((3, 3)), U((3, 3)))
F("cross", U((2, 3)), U((2, 3)), dim=1)
F("cross", U((3, 2)), U((3, 2)))
F("outer", U((3,)), U((4,)))
F("ger", U((3,)), U((2,)))
F("inner", U((2, 3)), U((4, 3)))
F("kron", U((2, 2)), U((2, 3)))
F("dot", U((2, 3)), U((3, 2)))
F("matmul", U((2, 3)), U((3, 4)))
F("matmul", U((2, 2, 3)), U((3, 4)))
F("matmul", U((3,)), U((3, 2)))
F("matmul", U((3,)), U((3,)))
F("mm", U((2, 3)), U((3, 2)))
F("bmm", U((2, 2, 3)), U((2, 3, 4)))
F("mv", U((2, 3)), U((3,)))
F("addmm", U((2, 2)), U((2, 3)), U((3, 2)), beta=0.5, alpha=2.0)
F("addmv", U((2,)), U((2, 3)), U((3,)))
F("addbmm", U((2, 2)), U((3, 2, 3)), U((3, 3, 2)))
F("baddbmm", U((2, 2, 2)), U((2, 2, 3)), U((2, 3, 2)), beta=0.5, alpha=1.5)
F("addr", U((2, 3)), U((2,)), U((3,)))
F("tensor_dot", U((1, 2, 3)), U((3, 1, 2)), ((0, 1), (1, 2)))
F("batch_dot", U((2, 2, 3)), U((2, 3, 2)), (-1, -2))
F("vecdot", U((2, 3)), U((2, 3)))
F("atleast_1d", U(()), grad=True)
F("atleast_2d", U((3,)))
F("atleast_3d", U((2, 3)))
F("numel", U((2, 3)), grad=False)
F("rank", U((2, 3)), grad=False)
F("matrix_band_part", U((2, 4, 4)), 2, 1)
F("block_diag", U((2, 2)), U((1, 3)))
F("vander", A([1.0, 2.0, 3.0]))
F("inverse", A([[2.0, 0.5], [0.5, 3.0]]))
F("det", A([[2.0, 0.5], [0.5, 3.0]]))
F("matrix_power", A([[1.0, 0.5], [0.25, 2.0]]), 3)
F("slogdet", A([[2.0, 0.5], [0.5, 3.0]]))
F("logdet", A([[2.0, 0.5], [0.5, 3.0]]))

# creation (no gradient: no tensor input)
F("full", (2, 3), 1.2, grad=False)
F("full", (2, 3), 1.2, dtype=D("float64"), grad=False)
F("ones", (2, 2), D("int32"), grad=False)
F("full", (2, 3), 1, grad=False)
F("full", (2,), True, grad=False)
F("ones", (2, 3), grad=False)
F("zeros", (2, 2), grad=False)
F("eye", 3, grad=False)
F("eye", 2, 3, grad=False)
F("linspace", 1.0, 10.0, 5, grad=False)
F("arange", 1, 6, grad=False)
F("arange", 0.0, 1.0, 0.25, grad=False)
F("arange", 5, grad=False)
F("full_like", A([[0, 1], [2, 1]], "int32"), 1, grad=False)
F("full_like", A([[0.0, 1.0], [2.0, 1.0]]), 0.5, grad=False)
F("ones_like", A([[0, 1], [2, 1]], "int32"), grad=False)
F("zeros_like", A([[0.0, 1.0], [2.0, 1.0]]), grad=False)
F("tril_indices", 4, 3, -1, grad=False)
F("triu_indices", 4, 3, 1, grad=False)

# ------------------------------------------------------------------ ops: nn functions

F("softmax", U((2, 5)))
F("softmax", U((2, 5)), axis=0)
F("log_softmax", U((2, 5)))
F("log_softmax", U((2, 5)), 0)
F("softmin", U((2, 5)))
F("dense", U((2, 3)), U((4, 3)), U((4,)))
F("dense", U((2, 3)), U((4, 3)))
F("conv2d", U((1, 2, 5, 5)), U((3, 2, 3, 3)))
F("conv2d", U((1, 2, 5, 5)), U((3, 2, 3, 3)), U((3,)), pad_mode="same")
F("conv2d", U((1, 2, 5, 5)), U((4, 1, 3, 3)), stride=2, pad_mode="pad", padding=1, groups=2)
F("conv2d", U((1, 1, 6, 6)), U((2, 1, 3, 3)), dilation=2)
F("conv1d", U((2, 2, 7)), U((3, 2, 3)))
F("conv1d", U((1, 2, 7)), U((3, 2, 3)), stride=2, pad_mode="pad", padding=1)
F("avg_pool2d", U((1, 2, 4, 4)), kernel_size=2, stride=2)
F("avg_pool2d", U((1, 1, 5, 5)), kernel_size=3, stride=2, padding=1)
F("max_pool2d", U((1, 2, 4, 4)), 2)
F("max_pool2d", U((1, 2, 5, 5)), 3, 2, 1)
F("max_pool2d", U((1, 1, 4, 4)), 2, return_indices=True)
F("adaptive_avg_pool2d", U((1, 2, 5, 5)), (2, 2))
F("adaptive_avg_pool2d", U((1, 2, 4, 6)), 3)
F("adaptive_max_pool2d", U((1, 2, 4, 4)), (2, 2))
F("interpolate", U((1, 1, 2, 3)), size=(4, 6))
F("interpolate", U((1, 1, 2, 3)), size=(4, 6), mode="bilinear", align_corners=False)
F("interpolate", U((1, 1, 2, 3)), size=(3, 5), mode="bilinear", align_corners=True)
F("interpolate", U((1, 2, 4)), size=7, mode="linear", align_corners=False)
F("pixel_shuffle", U((1, 4, 2, 2)), 2)
F("unfold", U((1, 2, 4, 4)), 2)
F("fold", U((1, 8, 9)), I([4, 4]), 2)
F("dropout", U((2, 3)), p=0.5, training=False)
F("clip_by_norm", U((2, 3)), 1.0)
F("lp_pool2d", U((1, 2, 4, 4), 0.1, 2.0), 2, 2)
F("one_hot", I([0, 1, 2]), 3, A(1.0), A(0.0), grad=False)
F("bidense", U((2, 3)), U((2, 4)), U((5, 3, 4)), U((5,)))
F("grid_sample", U((1, 1, 3, 3)), U((1, 2, 2, 2), -1, 1), align_corners=True, grad=False)
F("affine_grid", A([[[0.8, 0.5, 0.0], [-0.5, 0.8, 0.0]]]), (1, 1, 2, 3), align_corners=False)

# losses
F("mse_loss", U((2, 3)), U((2, 3)))
F("mse_loss", U((2, 3)), U((2, 3)), reduction="none")
F("mse_loss", U((2, 3)), U((2, 3)), reduction="sum")
F("l1_loss", U((2, 3)), U((2, 3)))
F("l1_loss", U((2, 3)), U((2, 3)), reduction="none")
F("smooth_l1_loss", A([1.0, 2.0, 3.0]), A([1.0, 2.0, 2.0]))
F("smooth_l1_loss", U((2, 3)), U((2, 3)), beta=0.5, reduction="mean")
F("huber_loss", U((2, 3)), U((2, 3)))
F("huber_loss", U((2, 3)), U((2, 3)), reduction="sum", delta=0.5)
F("kl_div", U((2, 3), -2, 0), U((2, 3), 0.1, 0.9), reduction="sum")
F("kl_div", U((2, 3), -2, 0), U((2, 3), 0.1, 0.9), reduction="batchmean")
F("binary_cross_entropy", U((2, 3), 0.1, 0.9), U((2, 3), 0, 1))
F("binary_cross_entropy", U((3,), 0.1, 0.9), A([0.0, 1.0, 0.0]), U((3,), 0.5, 1.5), reduction="none")
F("binary_cross_entropy_with_logits", U((2, 3)), U((2, 3), 0, 1))
F("binary_cross_entropy_with_logits", U((2, 3)), U((2, 3), 0, 1), U((2, 3), 0.5, 1), U((3,), 0.5, 2), reduction="sum")
F("cross_entropy", U((3, 5)), I([1, 0, 4]))
F("cross_entropy", U((3, 5)), U((3, 5), 0, 1))
F("cross_entropy", U((3, 5)), I([1, 0, 4]), reduction="none")
F("cross_entropy", U((3, 5)), I([1, 0, 4]), label_smoothing=0.1)
F("cross_entropy", U((3, 5)), I([1, 0, 4]), weight=U((5,), 0.5, 1.5))
F("cross_entropy", U((2, 3, 4)), I([[0, 1, 2, 1], [2, 0, 0, 1]]))
F("nll_loss", U((3, 5), -3, 0), I([1, 0, 4]))
F("nll_loss", U((3, 5), -3, 0), I([1, 0, 4]), reduction="sum")
F("margin_ranking_loss", U((3,)), U((3,)), A([1.0, -1.0, 1.0]))
F("margin_ranking_loss", U((3,)), U((3,)), A([1.0, -1.0, 1.0]), margin=0.5, reduction="none")
F("cosine_embedding_loss", U((2, 3)), U((2, 3)), A([1.0, -1.0]))
F("gaussian_nll_loss", U((3, 4)), U((3, 4)), U((3, 4), 0.5, 1.5))
F("multilabel_soft_margin_loss", U((2, 4)), A([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 1.0, 0.0]]))
F("multi_margin_loss", U((3, 4)), I([1, 0, 3], "int64"))

# ------------------------------------------------------------------ Tensor methods

for name in ["abs", "exp", "sin", "cos", "tanh", "sigmoid", "neg", "square", "sum", "mean", "floor", "ceil", "sign", "ravel", "flatten", "copy", "erf", "expm1",
             "asinh", "atan", "squeeze", "trunc", "frac", "sinh", "cosh", "negative",
             "square"]:
    M(name, U((2, 3)))
for name in ["log", "sqrt", "rsqrt", "reciprocal", "log1p", "log2", "log10", "lgamma", "digamma"]:
    M(name, U((2, 3), 0.2, 2.0))
M("sum", x234, 1)
M("sum", x234, axis=(0, 2), keepdims=True)
M("mean", x234, 1)
M("mean", x234, axis=0, keep_dims=True)
M("mean", A([[1, 2], [3, 4]], "int32"), grad=False)
M("max", x34)
M("max", x34, 1)
M("max", x34, axis=0, keepdims=True)
M("min", x34)
M("min", x34, axis=1)
M("argmax", x34, grad=False)
M("argmax", x34, 1, grad=False)
M("argmin", x34, axis=0, grad=False)
M("std", x34)
M("std", x34, 1, ddof=1)
M("var", x34)
M("var", x34, axis=0, ddof=1, keepdims=True)
M("prod", U((2, 3), 0.5, 1.5), 1)
M("amax", x34, 1)
M("amin", x34, 0)
M("cumsum", x34, 1)
M("cumprod", U((2, 3), 0.5, 1.5), 0)
M("reshape", x234, (4, 6))
M("reshape", x234, 4, 6)
M("view", x234, 6, 4)
M("view", x234, (-1,))
M("transpose", x234, (2, 0, 1))
M("transpose", x234)
M("permute", x234, 2, 0, 1)
M("swapaxes", x234, 0, 1)
M("flatten", x234, start_dim=1)
M("unsqueeze", U((2, 3)), 0)
M("expand_dims", U((2, 3)), 2)
M("expand_as", U((3,)), U((2, 3)))
M("broadcast_to", U((3,)), (2, 3))
M("squeeze", U((2, 1, 3)), 1)
M("tile", U((2, 2)), (2, 1))
M("clip", U((2, 3), -3, 3), -1.0, 1.0)
M("clamp", U((2, 3), -3, 3), min=0.0)
M("pow", U((2, 3), 0.2, 2.0), 2.0)
M("pow", U((2, 3), 0.2, 2.0), U((2, 3), -1, 1))
M("add", U((2, 3)), U((2, 3)))
M("sub", U((2, 3)), U((3,)))
M("mul", U((2, 3)), 2.5)
M("div", U((2, 3)), U((2, 3), 0.5, 2))
M("matmul", U((2, 3)), U((3, 2)))
M("norm", x34)
M("norm", x34, 1, dim=1)
M("sort", x34)
M("sort", x34, axis=0, descending=True)
M("topk", U((5,)), 2)
M("softmax", U((2, 4)), -1)
M("logsumexp", x34, 1)
M("narrow", U((3, 4)), 0, 1, 2)
M("gather", U((3, 4)), I([0, 2]), 1)
M("gather_elements", U((2, 3)), 1, I([[0, 0, 2], [1, 0, 1]]))
M("masked_fill", U((2, 3)), A([True, False, True], "bool"), 0.0)
M("where", U((2, 3)), A([[True, False, True], [False, True, False]], "bool"), U((2, 3)))
M("astype", U((2, 3)), D("float16"))
M("astype", U((2, 3), -5, 5), D("int32"), grad=False)
M("to", U((2, 3)), D("float64"))
M("float", A([1, 2, 3], "int32"), grad=False)
M("int", U((3,), -5, 5), grad=False)
M("tolist", A([[1.0, 2.5], [3.0, 4.0]]), grad=False)
M("item", A([2.5]), grad=False)
M("asnumpy", A([1.0, 2.0]), grad=False)
M("numpy", A([1.0, 2.0]), grad=False)
M("dim", U((2, 3)), grad=False)
M("ndimension", U((2, 3)), grad=False)
M("nelement", U((2, 3)), grad=False)
M("tril", U((3, 3)))
M("triu", U((3, 3)), 1)
M("diagonal", U((3, 3)))
M("trace", U((3, 3)))
M("isclose", A([1.0, float("inf")]), A([1.0, -float("inf")]), grad=False)
M("any", A([[True, False]], "bool"), grad=False)
M("all", A([[True, False]], "bool"), grad=False)
M("masked_select", U((2, 2)), A([[True, False], [False, True]], "bool"))
M("index_select", U((3, 4)), 0, I([2, 0]))
M("flip", U((2, 3)), (1,))
M("cross", U((3, 3)), U((3, 3)))
M("outer", U((2,)), U((3,)))
M("xlogy", U((2, 3), 0, 2), U((2, 3), 0.2, 2))
M("lerp", U((2, 3)), U((2, 3)), 0.3)
M("addcmul", U((2, 3)), U((2, 3)), U((2, 3)), value=0.5)
M("median", A([[0.5, 0.1, 0.2, 0.9], [0.3, 0.8, 0.6, 0.4]]), 1)
M("nansum", A([[float("nan"), 1.0], [2.0, 3.0]]))
M("count_nonzero", A([[0.0, 1.0], [2.0, 0.0]]), grad=False)
M("split", U((4, 2)), 2)
M("chunk", U((4, 2)), 2)
P("T", U((2, 3)))
P("mT", U((2, 2, 3)))
P("shape", U((2, 3)), grad=False)
P("ndim", U((2, 3)), grad=False)
P("size", U((2, 3)), grad=False)
P("dtype", U((2, 3)), grad=False)
P("itemsize", U((2, 3)), grad=False)
P("nbytes", U((2, 3)), grad=False)
P("strides", U((2, 3)), grad=False)
M("real", U((2, 3)))

# ------------------------------------------------------------------ nn cells

for name in ["ReLU", "ReLU6", "Sigmoid", "Tanh", "SiLU", "Mish", "SeLU", "Softsign", "HSwish",
             "HSigmoid", "LogSigmoid", "Tanhshrink", "Hardtanh", "ELU", "CELU", "GELU",
             "LeakyReLU", "Softmax", "LogSoftmax", "Softmin", "SoftShrink", "HShrink", "GLU",
             "Identity", "Flatten", "Tril", "Triu"]:
    C(name, inputs=[U((2, 4), -3, 3)])
C("LeakyReLU", [0.1], inputs=[U((2, 3))])
C("GELU", [False], inputs=[U((2, 3))])
C("Softmax", [0], inputs=[U((2, 3))])
C("Hardtanh", init_kw={"min_val": -0.5, "max_val": 0.5}, inputs=[A([-1.0, -0.5, 0.0, 0.5, 1.0])])
C("PReLU", inputs=[U((1, 2, 3))])
C("PReLU", [2], inputs=[U((2, 2, 3))])
C("Threshold", [0.1, 20.0], inputs=[A([0.0, 0.1, 0.2, 3.0])])
C("Dense", [3, 4], inputs=[U((2, 3))])
C("Dense", [3, 2], {"has_bias": False}, inputs=[U((5, 3))])
C("Dense", [3, 4], {"activation": "relu"}, inputs=[U((2, 3))])
C("Dense", [3, 4], inputs=[U((2, 5, 3))])
C("BiDense", [3, 4, 2], inputs=[U((2, 3)), U((2, 4))])
C("Conv2d", [1, 4, 3], inputs=[U((1, 1, 5, 5))])
C("Conv2d", [2, 3, 3], {"pad_mode": "pad", "padding": 1, "has_bias": True}, inputs=[U((1, 2, 4, 4))])
C("Conv2d", [2, 4, 3], {"stride": 2, "pad_mode": "valid", "group": 2}, inputs=[U((1, 2, 7, 7))])
C("Conv2d", [1, 2, (2, 3)], {"pad_mode": "same", "stride": 2}, inputs=[U((1, 1, 5, 6))])
C("Conv1d", [2, 3, 3], inputs=[U((1, 2, 6))])
C("Conv1d", [2, 3, 3], {"pad_mode": "valid", "has_bias": True}, inputs=[U((2, 2, 6))])
C("Conv2dTranspose", [2, 3, 3], inputs=[U((1, 2, 3, 3))])
C("Conv2dTranspose", [2, 3, 2], {"stride": 2, "pad_mode": "valid"}, inputs=[U((1, 2, 3, 3))])
C("BatchNorm2d", [3], inputs=[U((2, 3, 2, 2))])
C("BatchNorm2d", [3], inputs=[U((2, 3, 2, 2))], train=True)
C("BatchNorm1d", [3], inputs=[U((4, 3))])
C("LayerNorm", [(4,)], inputs=[U((2, 3, 4))])
C("LayerNorm", [(3, 4)], {"begin_norm_axis": 1, "begin_params_axis": 1}, inputs=[U((2, 3, 4))])
C("GroupNorm", [2, 4], inputs=[U((2, 4, 2, 2))])
C("Dropout", init_kw={"keep_prob": 0.8}, inputs=[U((2, 3))])
C("Dropout", init_kw={"p": 0.2}, inputs=[U((2, 3))])
C("Dropout2d", [0.5], inputs=[U((1, 2, 2, 2))])
C("MaxPool2d", [2, 2], inputs=[U((1, 2, 4, 4))])
C("MaxPool2d", init_kw={"kernel_size": 3, "stride": 1, "pad_mode": "same"}, inputs=[U((1, 1, 4, 4))])
C("AvgPool2d", [2, 2], inputs=[U((1, 2, 4, 4))])
C("AvgPool2d", init_kw={"kernel_size": 3, "stride": 2, "pad_mode": "same"}, inputs=[U((1, 1, 5, 5))])
C("MaxPool1d", [2, 2], inputs=[U((1, 2, 6))])
C("AvgPool1d", [3, 1], inputs=[U((1, 2, 6))])
C("AdaptiveAvgPool2d", [(2, 2)], inputs=[U((1, 2, 5, 5))])
C("AdaptiveMaxPool2d", [(2, 2)], inputs=[U((1, 2, 4, 4))])
C("Embedding", [5, 3], inputs=[I([[1, 3], [4, 0]])])
C("Embedding", [5, 3], {"padding_idx": 0}, inputs=[I([[1, 0], [4, 0]])])
C("LSTM", [3, 4], {"batch_first": True}, inputs=[U((2, 5, 3))])
C("LSTM", [3, 2], {"num_layers": 2}, inputs=[U((4, 2, 3))])
C("GRU", [3, 4], {"batch_first": True}, inputs=[U((2, 5, 3))])
C("RNN", [3, 4], {"batch_first": True}, inputs=[U((2, 5, 3))])
C("LSTMCell", [3, 4], inputs=[U((2, 3)), T(U((2, 4)), U((2, 4)))])
C("GRUCell", [3, 4], inputs=[U((2, 3)), U((2, 4))])
C("RNNCell", [3, 4], inputs=[U((2, 3)), U((2, 4))])
C("MultiheadAttention", [4, 2], inputs=[U((3, 2, 4)), U((3, 2, 4)), U((3, 2, 4))])
C("ZeroPad2d", [(1, 1, 2, 0)], inputs=[U((1, 1, 2, 2))])
C("ConstantPad2d", [(1, 1, 1, 1), 0.5], inputs=[U((1, 1, 2, 2))])
C("ReflectionPad2d", [1], inputs=[U((1, 1, 3, 3))])
C("PixelShuffle", [2], inputs=[U((1, 4, 2, 2))])
C("Upsample", init_kw={"scale_factor": 2.0, "mode": "nearest", "recompute_scale_factor": True}, inputs=[U((1, 1, 2, 2))])
C("ClipByNorm", inputs=[U((2, 3)), A([1.0])])
C("Norm", init_kw={"axis": 1}, inputs=[U((2, 3))])
C("OneHot", init_kw={"depth": 4}, inputs=[I([1, 3, 0])], grad=False)
# losses
C("MSELoss", inputs=[U((2, 3)), U((2, 3))])
C("MSELoss", init_kw={"reduction": "none"}, inputs=[U((2, 3)), U((2, 3))])
C("L1Loss", inputs=[U((2, 3)), U((2, 3))])
C("SmoothL1Loss", inputs=[A([1.0, 2.0, 3.0]), A([1.0, 2.0, 2.0])])
C("SmoothL1Loss", init_kw={"beta": 0.5, "reduction": "mean"}, inputs=[U((2, 3)), U((2, 3))])
C("HuberLoss", inputs=[U((2, 3)), U((2, 3))])
C("BCELoss", inputs=[U((2, 3), 0.1, 0.9), U((2, 3), 0, 1)])
C("BCELoss", init_kw={"reduction": "none"}, inputs=[U((2, 3), 0.1, 0.9), U((2, 3), 0, 1)])
C("BCEWithLogitsLoss", inputs=[U((2, 3)), U((2, 3), 0, 1)])
C("CrossEntropyLoss", inputs=[U((3, 5)), I([1, 0, 4])])
C("CrossEntropyLoss", init_kw={"label_smoothing": 0.2}, inputs=[U((3, 5)), I([1, 0, 4])])
C("CrossEntropyLoss", inputs=[U((3, 5)), U((3, 5), 0, 1)])
C("NLLLoss", inputs=[U((3, 5), -3, 0), I([1, 0, 4])])
C("SoftmaxCrossEntropyWithLogits", inputs=[U((2, 4)), A([[0, 0, 1, 0], [1, 0, 0, 0]], "float32")])
C("SoftmaxCrossEntropyWithLogits", init_kw={"sparse": True, "reduction": "mean"},
  inputs=[U((3, 4)), I([1, 3, 0])])
C("KLDivLoss", init_kw={"reduction": "sum"}, inputs=[U((2, 3), -2, 0), U((2, 3), 0.1, 0.9)])
C("MarginRankingLoss", inputs=[U((3,)), U((3,)), A([1.0, -1.0, 1.0])])
C("CosineEmbeddingLoss", inputs=[U((2, 3)), U((2, 3)), A([1.0, -1.0])])
C("MultiMarginLoss", inputs=[U((3, 4)), I([1, 0, 3], "int64")])
C("MultiLabelSoftMarginLoss", inputs=[U((2, 4)), A([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 1.0, 0.0]])])
C("GaussianNLLLoss", inputs=[U((3, 4)), U((3, 4)), U((3, 4), 0.5, 1.5)])
C("PoissonNLLLoss", inputs=[U((3, 4)), U((3, 4), 0, 3)])
C("FocalLoss", inputs=[U((2, 3, 4)), I([[[1, 0, 2, 1], [0, 1, 2, 2], [2, 1, 0, 0]],
                                        [[0, 0, 1, 2], [1, 1, 0, 2], [2, 0, 0, 1]]])])
C("DiceLoss", inputs=[U((3, 2), 0, 1), A([[0.0, 1.0], [1.0, 0.0], [0.0, 1.0]])])

# ------------------------------------------------------------------ optimizers

_params = {"w": U((2, 3)), "b": U((3,))}
_grads = [{"w": U((2, 3)), "b": U((3,))} for _ in range(3)]
O("SGD", _params, _grads, learning_rate=0.1)
O("SGD", _params, _grads, learning_rate=0.1, momentum=0.9, weight_decay=0.01)
O("SGD", _params, _grads, learning_rate=0.1, momentum=0.9, nesterov=True)
O("Momentum", _params, _grads, learning_rate=0.1, momentum=0.9)
O("Adam", _params, _grads, learning_rate=0.01)
O("Adam", _params, _grads, learning_rate=0.01, weight_decay=0.1)
O("AdamWeightDecay", _params, _grads)
O("AdamWeightDecay", _params, _grads, learning_rate=0.01, weight_decay=0.1)
O("RMSProp", _params, _grads, learning_rate=0.01)
O("RMSProp", _params, _grads, learning_rate=0.01, momentum=0.5, centered=True)
O("Adagrad", _params, _grads, learning_rate=0.1)
O("Adadelta", _params, _grads, learning_rate=1.0)
O("AdaMax", _params, _grads, learning_rate=0.01)
O("Rprop", _params, _grads, learning_rate=0.01)
O("ASGD", _params, _grads, learning_rate=0.01)
O("ProximalAdagrad", _params, _grads, learning_rate=0.1)

# ------------------------------------------------------------------ printing

R(A(4.75))
R(A(3, "int64"))
R(A([1.0, 2.5, -3.0]))
R(A([[1, 2], [3, 4]], "int32"))
R(A([True, False], "bool"))
R(A([0.1, 0.25], "float16"))
R(A([1.0, 2.0], "float64"))
R(A([[0.123456789, 10.5], [-3.0, 1e-05]]))
R(A([1e10, 1.0]))
