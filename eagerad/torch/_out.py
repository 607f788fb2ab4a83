"""PyTorch's ``out=`` argument, honoured for every ``torch.*`` function that takes one.

Functions of this face accepted ``out`` (to keep PyTorch's signatures) and ignored it:
``torch.max(x, 1, out=(v, i))`` left ``v`` and ``i`` as they were, a silent wrong number.
One wrapper, applied to the face's namespaces when they are built, now computes the
result and writes it into ``out`` with PyTorch's rules: no autograd through ``out=`` (an
error when the result needs a gradient), the result must cast to ``out``'s dtype by kind,
an ``out`` of another shape is resized (with PyTorch's warning unless it was empty), and
the call returns ``out``.  It wraps the functions with an ``out`` parameter and, by name
(``KEYWORD_OUT``), those PyTorch documents with a keyword ``out`` whose implementation,
shared with the MindSpore face, has none: ``torch.add(a, b, out=c)`` raised TypeError.

>>> import eagerad.torch as torch
>>> v, i = torch.empty(2), torch.empty(2, dtype=torch.int64)
>>> _ = torch.max(torch.tensor([[1.0, 5.0], [3.0, 2.0]]), 1, out=(v, i)); v, i
(tensor([5., 3.]), tensor([1, 0]))
"""
import functools
import inspect
import warnings

import numpy as np

from ..autograd import no_grad
from ..tensor import Tensor


def write_out(name, result, out):
    """Write ``result`` (a Tensor, or a tuple of them) into ``out`` (a Tensor, or a tuple
    of as many) and return ``out`` in the result's form.

    >>> import eagerad.torch as torch
    >>> o = torch.zeros(2); write_out("neg", torch.tensor([1.0, 2.0]), o) is o, o
    (True, tensor([1., 2.]))
    """
    if isinstance(result, Tensor):
        if not isinstance(out, Tensor):
            raise TypeError(f"{name}(): out must be a Tensor, got {type(out).__name__}")
        _write(name, result, out)
        return out
    if not isinstance(out, (tuple, list)) or len(out) != len(result) \
            or not all(isinstance(o, Tensor) for o in out):
        raise TypeError(f"{name}(): out must be a tuple of {len(result)} Tensors, got "
                        f"{type(out).__name__}")
    for r, o in zip(result, out):
        _write(name, r, o)
    return type(result)(*out) if hasattr(result, "_fields") else type(result)(out)


def _write(name, result, out):
    if result._requires_grad:
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    if not np.can_cast(result.dtype, out.dtype, "same_kind"):
        raise RuntimeError(f"{name}(): result type {result.dtype} can't be cast to the desired "
                           f"output type {out.dtype}")
    if tuple(out.shape) != tuple(result.shape):
        if out.numel():
            warnings.warn(f"{name}(): an output with one or more elements was resized since it "
                          f"had shape {list(out.shape)}, which does not match the required "
                          f"output shape {list(result.shape)}", UserWarning, stacklevel=4)
        out.resize_(tuple(result.shape))
    with no_grad():
        out.copy_(result)


def _with_out(name, fn, position):
    """``fn`` with its ``out`` argument (keyword, or positional at ``position``) honoured."""
    @functools.wraps(fn)
    def call(*args, out=None, **kwargs):
        if position is not None and len(args) > position:     # later arguments keep
            args, out = args[:position] + (None,) + args[position + 1:], args[position]
        result = fn(*args, **kwargs)
        return result if out is None else write_out(name, result, out)
    call.honours_out = True
    return call


# Per module, the functions PyTorch documents with a keyword ``out`` and whose eagerad
# implementations take none (the test checks these lists against PyTorch's own docs).
KEYWORD_OUT = {
    "eagerad.torch": """
        abs absolute acos acosh addbmm addcdiv addcmul addmm addmv addr all aminmax
        angle any arange arccos arccosh arcsin arcsinh arctan arctan2 arctanh asin asinh
        atan atan2 atanh baddbmm bitwise_and bitwise_not bitwise_or bitwise_xor bmm ceil
        column_stack complex conj_physical copysign cos cosh cross cummax cummin cumprod
        cumsum deg2rad diag digamma dot dstack empty erf erfc erfinv exp exp2 expm1 eye
        fix float_power floor floor_divide fmax fmin fmod frac frexp full gather gcd ger
        greater greater_equal heaviside histc histogramdd hstack hypot i0 index_copy
        inner inverse isneginf isposinf kron kthvalue lcm ldexp lerp less less_equal
        lgamma linspace log log10 log1p log2 logaddexp logaddexp2 logcumsumexp
        logical_and logical_not logical_or logical_xor logit logspace lu_unpack
        masked_select matmul matrix_power maximum minimum mm mode msort mul multiply mv
        mvlgamma nan_to_num nanquantile narrow_copy neg negative nextafter nonzero
        not_equal ones outer polar polygamma pow quantile rad2deg rand randint randn
        reciprocal remainder renorm row_stack rsqrt searchsorted sgn sigmoid sign
        signbit sin sinc sinh sort sqrt square std std_mean tan tanh topk
        tril triu true_divide trunc var var_mean vdot vstack where xlogy zeros""",
    "eagerad.torch.linalg": """
        cholesky cholesky_ex cond cross det eig eigh eigvals eigvalsh
        householder_product inv inv_ex lu lu_factor lu_factor_ex lu_solve matmul
        matrix_norm matrix_power matrix_rank multi_dot norm pinv qr slogdet solve solve_ex
        solve_triangular svd svdvals tensorinv tensorsolve vecdot vector_norm""",
    "eagerad.torch.special": """
        digamma entr erf erfc erfcx erfinv exp2 expit expm1 gammaln i0 i0e i1 i1e log1p
        log_ndtr logit multigammaln ndtr ndtri polygamma psi sinc xlog1py xlogy""",
    "eagerad.torch.fft": """
        fft fft2 fftfreq fftn hfft hfft2 hfftn ifft ifft2 ifftn ihfft ihfft2 ihfftn
        irfft irfft2 irfftn rfft rfft2 rfftfreq rfftn""",
}


def honour_out(namespace):
    """Wrap every public function of ``namespace`` (a module's globals) whose signature
    has an ``out`` parameter, and those ``KEYWORD_OUT`` names for the module.

    >>> ns = {"f": lambda x, out=None: x}; honour_out(ns); ns["f"].honours_out
    True
    """
    keyword = set(KEYWORD_OUT.get(namespace.get("__name__"), "").split())
    for name, fn in list(namespace.items()):
        if name.startswith("_") or not inspect.isfunction(fn) or getattr(fn, "honours_out", 0):
            continue
        params = list(inspect.signature(fn).parameters.values())
        kinds = {p.name: (i, p.kind) for i, p in enumerate(params)}
        if "out" not in kinds:
            if name in keyword:
                namespace[name] = _with_out(name, fn, None)
            continue
        index, kind = kinds["out"]
        positional = kind is inspect.Parameter.POSITIONAL_OR_KEYWORD and all(
            p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD for p in params[:index])
        namespace[name] = _with_out(name, fn, index if positional else None)
