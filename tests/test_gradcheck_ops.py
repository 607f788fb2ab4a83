"""Every registered differentiable op, gradchecked to second order from the
gradcheck cases stored next to its ``defop`` (``Op.cases``).  A new op with vjp
rules but no cases fails ``test_every_differentiable_op_has_cases``."""
import zlib

import numpy as np
import pytest

import eagerad
from eagerad.autograd import GradcheckError, gradcheck, gradgradcheck
from eagerad.ops import OPS
from eagerad.ops.registry import PerArg, U


def _differentiable(op):
    return isinstance(op.vjp, PerArg) or any(rule is not None for rule in op.vjp)


DIFFERENTIABLE = sorted(name for name, op in OPS.items() if _differentiable(op))
CASES = [pytest.param(name, i, id=f"{name}-{i}")
         for name in DIFFERENTIABLE for i in range(len(OPS[name].cases))]


def test_every_differentiable_op_has_cases():
    missing = [name for name in DIFFERENTIABLE if not OPS[name].cases]
    assert not missing, f"ops with vjp rules but no gradcheck cases (add cases= to defop): {missing}"


def test_table_covers_the_core_ops():
    core = {"add", "sub", "mul", "div", "neg", "pow", "square", "sqrt", "exp", "log", "sin", "cos",
            "tan", "sinh", "cosh", "tanh", "atanh", "sigmoid", "relu", "abs", "maximum", "minimum",
            "where", "clip", "matmul", "sum", "max", "min", "reshape", "transpose", "concat",
            "getitem", "softmax", "log_softmax"}
    assert core <= set(DIFFERENTIABLE)


def _build(name, i):
    """The op as a function of its ``U`` arguments, and float64 tensors for them."""
    op = OPS[name]
    case = op.cases[i]
    rng = np.random.default_rng(zlib.crc32(f"{name}{i}".encode()))
    args, slots, inputs = [], [], []
    for pos, a in enumerate(case.args):
        if isinstance(a, U):
            slots.append(pos)
            inputs.append(eagerad.tensor(a.draw(rng), dtype=eagerad.float64, requires_grad=True))
            args.append(None)
        else:
            args.append(eagerad.Tensor(a) if isinstance(a, np.ndarray) else a)

    def fn(*xs):
        full = list(args)
        for pos, x in zip(slots, xs):
            full[pos] = x
        return _real_pairs(op(*full, **case.kwargs))
    return fn, tuple(inputs)


def _real_pairs(out):
    """A complex result as the real tensor of its (real, imaginary) pairs, several results
    as one real vector: finite differences then see both parts, and every output."""
    outs = out if isinstance(out, tuple) else (out,)
    if not isinstance(out, tuple) and out.dtype.kind != "c":
        return out
    from eagerad.ops.complex_ops import view_as_real
    parts = [(view_as_real(o) if o.dtype.kind == "c" else o).reshape(-1) for o in outs]
    return parts[0] if len(parts) == 1 else eagerad.ops.concat(parts)


@pytest.mark.parametrize("name,i", CASES)
def test_op_gradcheck_second_order(name, i):
    fn, inputs = _build(name, i)
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


def test_cases_include_scalars_broadcasting_and_empty():
    shapes = [a.shape for name in DIFFERENTIABLE for c in OPS[name].cases for a in c.args
              if isinstance(a, U)]
    assert () in shapes and any(0 in s for s in shapes)
    pairs = [tuple(a.shape for a in c.args if isinstance(a, U)) for c in OPS["mul"].cases]
    assert ((2, 3), (3,)) in pairs and ((), (2, 3)) in pairs


def test_gradcheck_reports_input_element_and_values():
    x = eagerad.tensor([[0.1, 0.2], [0.3, 0.4]], dtype=eagerad.float64, requires_grad=True)
    y = eagerad.tensor([1.0, 2.0], dtype=eagerad.float64, requires_grad=True)
    # wrong rule on purpose: d(sin(a) * b)/da at a=0.4, b=2 is 2 cos(0.4) = 1.842122, not 0
    bad = eagerad.ops.registry.defop("bad_sin_test", lambda B, a: B.unary("sin", a),
                                     vjp=lambda g, ans, a: g * a.cos() * (a < 0.35))
    try:
        with pytest.raises(GradcheckError) as err:
            gradcheck(lambda a, b: bad(a) * b, (x, y))
    finally:
        del OPS["bad_sin_test"]
    msg = str(err.value)
    assert "input 0" in msg and "(1, 1)" in msg and "numeric" in msg and "analytic" in msg
    assert "numeric 1.84212" in msg and "analytic 0.0" in msg
    assert gradcheck(lambda a, b: bad(a) * b, (x, y), raise_exception=False) is False


def test_gradcheck_is_a_runtime_error_and_needs_float64():
    assert issubclass(GradcheckError, RuntimeError)
    x32 = eagerad.tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError, match="float64"):
        gradcheck(lambda a: a * 2, x32)


def test_gradcheck_tuple_outputs_and_unused_inputs():
    x = eagerad.tensor([0.5, -0.2], dtype=eagerad.float64, requires_grad=True)
    z = eagerad.tensor([3.0], dtype=eagerad.float64, requires_grad=True)
    assert gradcheck(lambda a, b: (a.exp(), (a * a).sum()), (x, z))
    assert gradgradcheck(lambda a, b: (a.exp(), (a * a).sum()), (x, z))


def test_gradgradcheck_catches_a_wrong_second_derivative():
    # first derivative right, but the rule is written with a detached input: its own
    # derivative (the second derivative) is lost
    cube = eagerad.ops.registry.defop("cube_test", lambda B, a: B.binary("pow", a, 3),
                                      vjp=lambda g, ans, a: g * 3 * a.detach() ** 2)
    try:
        x = eagerad.tensor([0.7], dtype=eagerad.float64, requires_grad=True)
        assert gradcheck(cube, x)
        with pytest.raises(GradcheckError, match="input 0"):
            gradgradcheck(cube, x, grad_outputs=eagerad.tensor([1.0], dtype=eagerad.float64))
    finally:
        del OPS["cube_test"]


def test_gradcheck_works_with_a_custom_function():
    class SinCube(eagerad.autograd.Function):
        """sin(x) * y ** 3 with a hand-written backward (in eagerad ops, so twice differentiable)."""

        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x.sin() * y ** 3

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * x.cos() * y ** 3, g * x.sin() * 3 * y ** 2

    x = eagerad.tensor([0.3, -0.8], dtype=eagerad.float64, requires_grad=True)
    y = eagerad.tensor([1.2, 0.5], dtype=eagerad.float64, requires_grad=True)
    assert gradcheck(SinCube.apply, (x, y))
    assert gradgradcheck(SinCube.apply, (x, y))

    class WrongBackward(SinCube):
        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * x.cos() * y ** 3, g * x.sin() * 2 * y ** 2

    with pytest.raises(GradcheckError, match="input 1"):
        gradcheck(WrongBackward.apply, (x, y))


def _has_jvp(op):
    return isinstance(op.jvp, PerArg) or any(rule is not None for rule in op.jvp)


JVP_CASES = [c for c in CASES if _has_jvp(OPS[c.values[0]])]


@pytest.mark.parametrize("name,i", JVP_CASES)
def test_op_jvp_matches_a_directional_finite_difference(name, i):
    """The forward-mode rules stored next to the vjp rules: J t against
    (f(x + eps t) - f(x - eps t)) / 2 eps."""
    from eagerad.autograd import forward_ad
    fn, inputs = _build(name, i)
    rng = np.random.default_rng(i)
    tangents = [rng.standard_normal(x.shape) for x in inputs]
    with forward_ad.dual_level():
        duals = [forward_ad.make_dual(x.detach(), eagerad.tensor(t, dtype=eagerad.float64))
                 for x, t in zip(inputs, tangents)]
        out = fn(*duals)
        tangent = forward_ad.unpack_dual(out).tangent
    eps = 1e-6
    with eagerad.no_grad():
        moved = [fn(*[eagerad.tensor(x.numpy() + s * eps * t) for x, t in zip(inputs, tangents)])
                 for s in (1, -1)]
    numeric = (moved[0].numpy() - moved[1].numpy()) / (2 * eps)
    got = np.zeros(out.shape) if tangent is None else tangent.numpy()
    assert got.shape == out.shape
    np.testing.assert_allclose(got, numeric, rtol=1e-5, atol=1e-6)
