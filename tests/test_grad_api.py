"""MindSpore-style differentiation API: grad, value_and_grad, GradOperation, primitives,
amp, clip_by_global_norm, context.

The table tests use seed 002's net: Dense(3, 1) without bias, weight [[2, 3, 4]],
x = [[1, 2, 3]], y = 19, outputs (loss, logits) = ((20 - 19)^2, 20).  Closed forms:
dloss/dx = 2 (20 - 19) w = [4, 6, 8], dloss/dy = -2, dloss/dw = 2 x = [2, 4, 6].
The ``net`` fixture (tests/conftest.py) is that network.
"""
import warnings

import numpy as np
import pytest

import eagerad
import eagerad.mindspore as ms
import eagerad.torch as torch
from eagerad.mindspore import ops
from eagerad.mindspore.amp import DynamicLossScaler, StaticLossScaler, all_finite


X = ms.Tensor([[1, 2, 3]], ms.float32)
Y = ms.Tensor(19, ms.float32)
DX, DY, DW = [[4.0, 6.0, 8.0]], -2.0, [[2.0, 4.0, 6.0]]


def close(t, expected, tol=1e-6):
    np.testing.assert_allclose(np.asarray(t.asnumpy(), np.float64), expected, rtol=tol, atol=tol)


# ------------------------------------------------------------------ seed 002 tables

def test_table_grad_position_0(net):
    g, aux = ms.grad(net, 0, has_aux=True)(X, Y)
    close(g, DX)
    assert isinstance(aux, tuple) and len(aux) == 1
    close(aux[0], 20.0)


def test_table_grad_position_1(net):
    g, _ = ms.grad(net, 1, has_aux=True)(X, Y)
    close(g, DY)


def test_table_grad_position_tuple(net):
    g, _ = ms.grad(net, (0, 1), has_aux=True)(X, Y)
    assert isinstance(g, tuple) and len(g) == 2
    close(g[0], DX), close(g[1], DY)


def test_table_weights_only(net):
    g, _ = ms.grad(net, None, weights=net.trainable_params(), has_aux=True)(X, Y)
    assert isinstance(g, tuple) and len(g) == 1
    close(g[0], DW)


def test_table_position_and_weights(net):
    (gx, gw), _ = ms.grad(net, 0, weights=net.trainable_params(), has_aux=True)(X, Y)
    close(gx, DX)
    assert isinstance(gw, tuple)
    close(gw[0], DW)


def test_table_positions_and_weights(net):
    ((gx, gy), (gw,)), _ = ms.grad(net, (0, 1), weights=ms.ParameterTuple(
        net.trainable_params()), has_aux=True)(X, Y)
    close(gx, DX), close(gy, DY), close(gw, DW)


@pytest.mark.parametrize("transform", [ms.grad, ms.value_and_grad])
def test_table_none_none_is_an_error(transform):
    with pytest.raises(ValueError, match="`grad_position` and `weight` can not be None"):
        transform(lambda x: x, grad_position=None, weights=None)


def test_value_and_grad_rows(net):
    value, g = ms.value_and_grad(net, 0, has_aux=True)(X, Y)
    close(value[0], 1.0), close(value[1], 20.0), close(g, DX)
    value, g = ms.value_and_grad(net, None, weights=net.trainable_params(), has_aux=True)(X, Y)
    close(g[0], DW)
    value, (gi, gw) = ms.value_and_grad(net, (0, 1), weights=net.trainable_params(),
                                        has_aux=True)(X, Y)
    close(gi[0], DX), close(gi[1], DY), close(gw[0], DW)
    assert not value[0].requires_grad   # nothing outside can differentiate it: no graph kept


def test_outputs_are_summed_without_has_aux(net):
    close(ms.grad(net)(X, Y), [[6.0, 9.0, 12.0]])     # d(loss + logits)/dx = DX + w


def test_nested_tuple_outputs_are_summed():
    f = lambda x: (x, (2 * x, [3 * x]))
    close(ms.grad(f)(ms.Tensor([1.0, 2.0])), [6.0, 6.0])


def test_has_aux_returns_rest_detached_and_needs_a_tuple():
    f = lambda x: (x * x, x + 1, x * 3)
    g, aux = ms.grad(f, has_aux=True)(ms.Tensor(2.0))
    close(g, 4.0)
    assert len(aux) == 2 and not aux[0].requires_grad
    close(aux[1], 6.0)
    with pytest.raises(ValueError, match="has_aux"):
        ms.grad(lambda x: x * x, has_aux=True)(ms.Tensor(2.0))


def test_return_ids():
    w = ms.Parameter(ms.Tensor([2.0]), name="w")
    f = lambda x, y: x * y * w
    gi, gw = ms.grad(f, (0, 1), weights=[w], return_ids=True)(ms.Tensor([3.0]), ms.Tensor([5.0]))
    assert [p for p, _ in gi] == [0, 1] and gw[0][0] == "w"
    close(gi[0][1], [10.0]), close(gi[1][1], [6.0]), close(gw[0][1], [15.0])
    pos, g = ms.grad(f, 1, return_ids=True)(ms.Tensor([3.0]), ms.Tensor([5.0]))
    assert pos == 1
    close(g, [6.0])


def test_single_parameter_weights_gives_a_tensor():
    w = ms.Parameter(ms.Tensor([2.0]), name="w")
    g = ms.grad(lambda x: x * w * w, None, weights=w)(ms.Tensor([3.0]))
    close(g, [12.0])


# ------------------------------------------------------------ zeros, errors, dtypes

def test_unused_inputs_and_weights_get_zeros():
    w = ms.Parameter(ms.Tensor([[1.0, 2.0]]), name="w")
    unused = ms.Parameter(ms.Tensor([5.0, 6.0, 7.0]), name="unused")
    gx, gy = ms.grad(lambda x, y: x * 2, (0, 1))(ms.Tensor([1.0]), ms.Tensor([[1.0, 2.0]]))
    close(gx, [2.0]), close(gy, [[0.0, 0.0]])
    _, (gw, gu) = ms.grad(lambda x: x * w, 0, weights=[w, unused])(ms.Tensor([1.0]))
    close(gw, [[1.0, 1.0]]), close(gu, [0.0, 0.0, 0.0])
    assert gu.shape == (3,)
    close(ms.grad(lambda x: ms.Tensor(3.0))(ms.Tensor([1.0, 2.0])), [0.0, 0.0])  # constant


def test_out_of_range_position_names_grad_position():
    with pytest.raises(ValueError, match="grad_position 2"):
        ms.grad(lambda x, y: x * y, (0, 2))(ms.Tensor(1.0), ms.Tensor(2.0))
    with pytest.raises(ValueError, match="grad_position"):
        ms.grad(lambda x: x, -1)


def test_bad_arguments():
    with pytest.raises(TypeError, match="grad_position 0 .* float"):
        ms.grad(lambda x: x * 2)(1.0)
    with pytest.raises(TypeError, match="grad_position"):
        ms.grad(lambda x: x, "0")
    with pytest.raises(TypeError, match="callable"):
        ms.grad(3)
    with pytest.raises(TypeError, match="weights"):
        ms.grad(lambda x: x, weights=3.0)
    with pytest.raises(TypeError, match="output"):
        ms.grad(lambda x: "text")(ms.Tensor(1.0))


def test_integer_tensors_get_integer_gradients():
    w = ms.Tensor(np.array([2, 3], np.int32))
    x = ms.Tensor([1.5, 4.0])
    gw = ms.grad(lambda w, x: w * x)(w, x)
    assert gw.dtype == np.int32
    np.testing.assert_array_equal(gw.asnumpy(), [1, 4])      # 1.5 -> 1 in int32
    gx = ms.grad(lambda w, x: w * x, 1)(w, x)
    close(gx, [2.0, 3.0])
    p = ms.Parameter(ms.Tensor(np.array([3], np.int32)), name="p")
    (gp,) = ms.grad(lambda x: p * p * x, None, weights=[p])(ms.Tensor([2.0]))
    assert gp.dtype == np.int32 and gp.asnumpy().tolist() == [12]


def test_weight_with_requires_grad_false_gets_zeros_as_in_mindspore():
    # issue 12: MindSpore 2.x gives zeros (not an error, not omitted) for such a weight
    z = ms.Parameter(ms.Tensor([1.0]), name="z", requires_grad=False)
    (g,) = ms.grad(lambda x: x * z, None, weights=[z])(ms.Tensor([4.0]))
    close(g, [0.0])
    assert not z.requires_grad


# ----------------------------------------------------------------- higher order

def test_third_order_sin():
    g3 = ms.grad(ms.grad(ms.grad(ops.sin)))(ms.Tensor(1.0))
    assert abs(g3.item() + np.cos(1.0)) < 1e-6


def test_nested_closure_is_not_perturbed():
    # d/dx [x * d/dy (x + y)] = d/dx [x * 1] = 1; confusing the two variables gives 2
    f = lambda x: x * ms.grad(lambda y: x + y)(x)
    close(ms.grad(f)(ms.Tensor(1.0)), 1.0)
    # d/dx [x * d/dy (x * y)] = d/dx x^2 = 2x
    g = lambda x: x * ms.grad(lambda y: x * y)(x)
    close(ms.grad(g)(ms.Tensor(3.0)), 6.0)


def test_same_tensor_in_two_positions_gets_two_partials():
    x = ms.Tensor(3.0)
    ga, gb = ms.grad(lambda a, b: a * b * b, (0, 1))(x, x)
    close(ga, 9.0), close(gb, 18.0)


def test_second_derivative_with_respect_to_weights():
    w = ms.Parameter(ms.Tensor([2.0]), name="w")
    inner = lambda x: ms.grad(lambda x: (w * x) ** 2, None, weights=w)(x)   # 2 w x^2
    outer = ms.grad(inner, None, weights=w)                                  # 2 x^2
    close(outer(ms.Tensor([3.0])), [18.0])


def test_result_keeps_a_graph_only_when_someone_can_use_it():
    x = torch.tensor(2.0, requires_grad=True)       # PyTorch-face leaf: can be differentiated
    g = ms.grad(lambda x: x ** 3)(x)                 # 3 x^2, connected to x
    assert g.requires_grad
    g.backward()
    close(x.grad, 12.0)                              # 6 x
    assert not ms.grad(lambda x: x ** 3)(ms.Tensor(2.0)).requires_grad
    with torch.no_grad():
        assert not ms.grad(lambda x: x ** 3)(x).requires_grad


def test_grad_of_value_and_grad():
    f = lambda x: ms.value_and_grad(lambda x: x ** 3)(x)[1]     # 3 x^2
    close(ms.grad(f)(ms.Tensor(2.0)), 12.0)


# --------------------------------------------------------------- GradOperation

def test_grad_operation_modes():
    w = ms.Parameter(ms.Tensor([2.0]), name="w")
    f = lambda x, y: x * y * w
    x, y = ms.Tensor([3.0]), ms.Tensor([5.0])
    close(ops.GradOperation()(f)(x, y), [10.0])
    gx, gy = ops.GradOperation(get_all=True)(f)(x, y)
    close(gx, [10.0]), close(gy, [6.0])
    (gw,) = ops.GradOperation(get_by_list=True)(f, ms.ParameterTuple([w]))(x, y)
    close(gw, [15.0])
    (gx, gy), (gw,) = ops.GradOperation(get_all=True, get_by_list=True)(f, [w])(x, y)
    close(gx, [10.0]), close(gy, [6.0]), close(gw, [15.0])
    with pytest.raises(ValueError, match="weights"):
        ops.GradOperation(get_by_list=True)(f)


def test_grad_operation_sens():
    f = lambda x: x * ms.Tensor([[1.0, 2.0], [3.0, 4.0]])
    sens = ms.Tensor([[0.5, 1.0], [0.0, 2.0]])
    close(ops.GradOperation(sens_param=True)(f)(ms.Tensor([[1.0, 1.0], [1.0, 1.0]]), sens),
          [[0.5, 2.0], [0.0, 8.0]])
    pair = lambda x, y: (x * y, x + y)
    gx, gy = ops.GradOperation(get_all=True, sens_param=True)(pair)(
        ms.Tensor([2.0]), ms.Tensor([7.0]), (ms.Tensor([1.0]), ms.Tensor([10.0])))
    close(gx, [7.0 + 10.0]), close(gy, [2.0 + 10.0])
    with pytest.raises(ValueError, match=r"sens 0 has shape \(3,\) but output 0 has shape \(2, 2\)"):
        ops.GradOperation(sens_param=True)(f)(ms.Tensor([[1.0, 1.0], [1.0, 1.0]]),
                                              ms.Tensor([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="2 tensor"):
        ops.GradOperation(sens_param=True)(pair)(ms.Tensor([2.0]), ms.Tensor([7.0]),
                                                 ms.Tensor([1.0]))


# ------------------------------------------------------------------- primitives

def _fd_second(fn, x0, h=1e-4):
    return (fn(x0 + h) - 2 * fn(x0) + fn(x0 - h)) / h ** 2


@pytest.mark.parametrize("prim, numpy_fn, x0", [
    (ops.Sin(), np.sin, 0.7), (ops.Cos(), np.cos, 0.7), (ops.Tan(), np.tan, 0.7),
    (ops.Exp(), np.exp, 0.7), (ops.Log(), np.log, 0.7), (ops.Neg(), np.negative, 0.7),
    (ops.Square(), np.square, 0.7), (ops.Sinh(), np.sinh, 0.7), (ops.Cosh(), np.cosh, 0.7),
    (ops.Atanh(), np.arctanh, 0.3)])
def test_unary_primitives_second_derivative(prim, numpy_fn, x0):
    x = ms.Tensor(np.array([x0]))                    # float64
    close(prim(x), [numpy_fn(x0)], 1e-12)
    d2 = ops.GradOperation()(ops.GradOperation()(prim))(x)
    close(d2, [_fd_second(numpy_fn, x0)], 1e-5)


@pytest.mark.parametrize("prim, numpy_fn", [
    (ops.Mul(), np.multiply), (ops.Div(), np.divide), (ops.Pow(), np.power)])
def test_binary_primitives_mixed_second_derivative(prim, numpy_fn):
    x, y = ms.Tensor(np.array([1.3])), ms.Tensor(np.array([0.6]))
    close(prim(x, y), numpy_fn(1.3, 0.6), 1e-12)
    dxdy = ms.grad(ms.grad(prim, 0), 1)(x, y)           # d/dy (d/dx f)
    h = 1e-4
    fd = (numpy_fn(1.3 + h, 0.6 + h) - numpy_fn(1.3 + h, 0.6 - h) - numpy_fn(1.3 - h, 0.6 + h)
          + numpy_fn(1.3 - h, 0.6 - h)) / (4 * h * h)
    close(dxdy, [fd], 1e-5)


def test_matmul_transposes_and_reduce_sum():
    a = np.arange(6.0).reshape(2, 3)
    b = np.arange(12.0).reshape(3, 4)
    A, B = ms.Tensor(a), ms.Tensor(b)
    close(ops.MatMul()(A, B), a @ b)
    close(ops.MatMul(transpose_a=True)(ms.Tensor(a.T), B), a @ b)
    close(ops.MatMul(transpose_b=True)(A, ms.Tensor(b.T)), a @ b)
    ga, gb = ms.grad(ops.MatMul(transpose_b=True), (0, 1))(A, ms.Tensor(b.T))
    close(ga, np.ones((2, 4)) @ b.T), close(gb, (a.T @ np.ones((2, 4))).T)
    with pytest.raises(ValueError, match="2-D"):
        ops.MatMul()(ms.Tensor([1.0]), B)
    close(ops.ReduceSum()(A), a.sum())
    close(ops.ReduceSum(keep_dims=True)(A, 1), a.sum(1, keepdims=True))
    assert ops.ReduceSum(keep_dims=True)(A).shape == (1, 1)
    close(ops.ReduceSum()(A, (0, 1)), a.sum())


def test_stop_gradient_everywhere():
    assert eagerad.stop_gradient is ops.stop_gradient
    f = lambda x: x * x + ops.stop_gradient(x * x)
    close(ms.grad(f)(ms.Tensor(3.0)), 6.0)
    a, b = ops.stop_gradient((torch.tensor(1.0, requires_grad=True), 2.0))
    assert not a.requires_grad and b == 2.0


# ------------------------------------------------------------------ amp and clip

def test_loss_scalers():
    s = StaticLossScaler(1024.0)
    close(s.scale(ms.Tensor(1.5)), 1536.0)
    g = s.unscale((ms.Tensor([2048.0]), ms.Tensor([1024.0])))
    close(g[0], [2.0]), close(g[1], [1.0])
    assert s.adjust(ms.Tensor(False)) is False and s.scale_value.item() == 1024.0

    d = DynamicLossScaler(8.0, scale_factor=2, scale_window=2)
    assert d.adjust(ms.Tensor(True)) is False and d.scale_value.item() == 8.0
    assert d.adjust(ms.Tensor(True)) is True and d.scale_value.item() == 16.0
    assert d.adjust(ms.Tensor(False)) is True and d.scale_value.item() == 8.0
    for _ in range(5):
        d.adjust(False)
    assert d.scale_value.item() == 1.0           # never below 1
    with pytest.raises(ValueError, match="scale_factor"):
        DynamicLossScaler(8.0, scale_factor=1, scale_window=2)


def test_all_finite():
    assert bool(all_finite((ms.Tensor([1.0]), ms.Tensor([2.0, 3.0]))))
    assert not bool(all_finite((ms.Tensor([1.0]), ms.Tensor([np.nan]))))
    assert not bool(all_finite(ms.Tensor([np.inf])))


def test_clip_by_global_norm():
    g = (ms.Tensor([3.0]), ms.Tensor([[4.0, 0.0]]))
    c = ops.clip_by_global_norm(g, 1.0)
    close(c[0], [0.6]), close(c[1], [[0.8, 0.0]])
    c = ops.clip_by_global_norm(g, 10.0)                 # norm 5 < 10: unchanged
    close(c[0], [3.0]), close(c[1], [[4.0, 0.0]])
    # differentiable: d/dx of clip(x) for |x| > 1 is (I - x x^T / |x|^2) / |x|
    x = np.array([3.0, 4.0])
    gx = ms.grad(lambda t: ops.clip_by_global_norm(t, 1.0)[0])(ms.Tensor(x))
    close(gx, [(1 - 9 / 25) / 5, (-12 / 25) / 5], 1e-6)
    with pytest.raises(ValueError, match="clip_norm"):
        ops.clip_by_global_norm(g, 0.0)


# ---------------------------------------------------------------------- context

def test_context_graph_mode_and_gpu_warn_once():
    from eagerad import context
    context._said.clear()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            context.set_context(mode=context.GRAPH_MODE)
            context.set_context(mode=context.GRAPH_MODE)
        assert sum("GRAPH_MODE" in str(w.message) for w in caught) == 1
        if context.cuda_problem():
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                context.set_context(device_target="GPU")
                context.set_context(device_target="GPU")
            assert sum("running on the CPU" in str(w.message) for w in caught) == 1
            assert ms.ops.ones(2).device.type == "cpu"
    finally:
        context.set_context(mode=context.PYNATIVE_MODE, device_target="CPU")


def test_grad_operation_single_parameter_and_no_weights_mindspore_semantics():
    w = ms.Parameter(ms.Tensor([2.0]), name="w")
    f = lambda x, y: x * y * w  # noqa: E731
    x, y = ms.Tensor([3.0]), ms.Tensor([5.0])
    gw = ops.GradOperation(get_by_list=True)(f, w)(x, y)
    assert isinstance(gw, ms.Tensor)
    close(gw, [15.0])
    (gx, gy), gw = ops.GradOperation(get_all=True, get_by_list=True)(f, w)(x, y)
    close(gx, [10.0]), close(gy, [6.0]), close(gw, [15.0])
    (gx, gy), gws = ops.GradOperation(get_all=True, get_by_list=True)(f, None)(x, y)
    close(gx, [10.0]), close(gy, [6.0])
    assert gws == ()
