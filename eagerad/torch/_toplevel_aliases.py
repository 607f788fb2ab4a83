"""``torch.X`` spellings PyTorch keeps at top level: the short comparisons (``torch.eq``),
``torch.detach``, the in-place functions (``torch.relu_(t)`` is ``t.relu_()``), dropout with
PyTorch's ``train`` argument, the ATen forms of ``nn.functional`` losses and pools (an integer
``reduction``: 0 none, 1 mean, 2 sum) and the functional recurrent cells.

>>> import eagerad.torch as torch
>>> x = torch.tensor([1.0, -2.0, 3.0])
>>> torch.eq(x, 3.0), torch.relu_(x.clone())
(tensor([False, False,  True]), tensor([1., 0., 3.]))
"""
from .. import ops as _ops
from ..ops import bitwise_and, bitwise_not, bitwise_or, bitwise_xor  # noqa: F401
from ..nn import GRU as _GRU, LSTM as _LSTM
from ..ops.inplace import _rewritten
from .nn import functional as F


# ---------------------------------------------------------------- comparisons, detach
_EXAMPLES = {"eq": "False,  True", "ne": " True, False", "lt": " True, False",
             "le": "True, True", "gt": "False, False", "ge": "False,  True"}


def _comparison(name):
    def compare(input, other, *, out=None):
        return getattr(input, name)(other)
    compare.__name__ = name
    compare.__doc__ = (f"``torch.{name}``: the elementwise comparison ``input.{name}(other)``.\n\n"
                       f"    >>> import eagerad.torch as torch\n"
                       f"    >>> torch.{name}(torch.tensor([1, 2]), 2)\n"
                       f"    tensor([{_EXAMPLES[name]}])\n")
    return compare


eq, ne, lt, le, gt, ge = (_comparison(n) for n in ("eq", "ne", "lt", "le", "gt", "ge"))


def detach(input):
    """``torch.detach``: ``input.detach()`` (the same values, outside the graph).

    >>> import eagerad.torch as torch
    >>> torch.detach(torch.ones(1, requires_grad=True)).requires_grad
    False
    """
    return input.detach()


def _never(name):
    def query(input):
        return False
    query.__name__ = name
    query.__doc__ = f"``torch.{name}``: always False for eagerad's real, dense tensors."
    return query


is_conj, is_neg, is_inference = (_never(n) for n in ("is_conj", "is_neg", "is_inference"))


# ---------------------------------------------------------------- in-place functions
def _inplace_function(name):
    """``torch.<name>(input, *args)``: ``input.<name>(*args)``."""
    def fn(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)
    fn.__name__ = name
    fn.__doc__ = f"``torch.{name}(input, ...)``: ``input.{name}(...)`` in place; returns input."
    return fn


INPLACE_NAMES = (
    "abs_ acos_ acosh_ addmv_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ asin_ asinh_ "
    "atan_ atanh_ ceil_ clamp_ clamp_max_ clamp_min_ clip_ cos_ cosh_ deg2rad_ detach_ erf_ erfc_ "
    "exp2_ exp_ expm1_ fill_ fix_ floor_ frac_ gcd_ i0_ index_put_ lcm_ ldexp_ log10_ log1p_ "
    "log2_ log_ logit_ nan_to_num_ neg_ negative_ rad2deg_ reciprocal_ relu_ round_ rsqrt_ "
    "sigmoid_ sin_ sinc_ sinh_ sqrt_ square_ tan_ tanh_ trunc_ xlogy_ zero_ resize_as_ "
    "conj_physical_").split()
globals().update({_n: _inplace_function(_n) for _n in INPLACE_NAMES})


def _activation_inplace(name, fn):
    """``torch.<name>(input, ...)``: the activation written into ``input`` (recorded like
    every in-place op)."""
    method = _rewritten(name, fn, f"``torch.{name}``: ``{fn.__name__}`` in place.")
    return lambda input, *args, **kwargs: method(input, *args, **kwargs)


celu_ = _activation_inplace("celu_", F.celu)
selu_ = _activation_inplace("selu_", F.selu)
threshold_ = _activation_inplace("threshold_", F.threshold)
rrelu_ = _activation_inplace("rrelu_", lambda x, lower=0.125, upper=1 / 3, training=False,
                             generator=None: F.rrelu(x, lower, upper, training))


# ---------------------------------------------------------------- dropout with ``train``
def _feature_dropout(input, p, train):
    if not train or p == 0:
        return input
    if input.ndim < 2:
        raise ValueError(f"feature_dropout: input needs a channel dimension (at least 2-D), "
                         f"got shape {tuple(input.shape)}")
    if p == 1:
        return input * 0
    keep = _ops.rand(*input.shape[:2], *(1,) * (input.ndim - 2), device=input.device) >= p
    return input * keep.astype(input.dtype) / (1 - p)


_DROPOUTS = {"dropout": F.dropout, "alpha_dropout": F.alpha_dropout,
             "feature_alpha_dropout": F.feature_alpha_dropout,
             "feature_dropout": lambda input, p, training: _feature_dropout(input, p, training)}


def _dropout_function(name, inplace):
    core = _DROPOUTS[name]

    def fn(input, p, train):
        if not inplace:
            return core(input, p, training=train)
        return _rewritten(name + "_", lambda x: core(x, p, training=train),
                          "dropout in place")(input)
    fn.__name__ = name + "_" * inplace
    fn.__doc__ = (f"``torch.{fn.__name__}(input, p, train)``: ``F.{name}`` with "
                  f"``training=train``{' written into input' if inplace else ''}.")
    return fn


dropout, dropout_ = _dropout_function("dropout", False), _dropout_function("dropout", True)
alpha_dropout, alpha_dropout_ = (_dropout_function("alpha_dropout", False),
                                 _dropout_function("alpha_dropout", True))
feature_alpha_dropout, feature_alpha_dropout_ = (_dropout_function("feature_alpha_dropout", False),
                                                 _dropout_function("feature_alpha_dropout", True))
feature_dropout, feature_dropout_ = (_dropout_function("feature_dropout", False),
                                     _dropout_function("feature_dropout", True))


# ---------------------------------------------------------------- ATen forms of F functions
_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _reduction(reduction, name):
    """PyTorch's integer reduction (0 none, 1 mean, 2 sum); its strings pass too."""
    if isinstance(reduction, str) and reduction in _REDUCTIONS.values():
        return reduction
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{name}: reduction must be 0 (none), 1 (mean) or 2 (sum), "
                         f"got {reduction!r}")
    return _REDUCTIONS[reduction]


def kl_div(input, target, reduction=1, *, log_target=False):
    """``torch.kl_div``: ``F.kl_div`` with an integer reduction (1: the elementwise mean).

    >>> import eagerad.torch as torch
    >>> torch.kl_div(torch.tensor([-1.0]), torch.tensor([0.5]), 2)
    tensor(0.1534)
    """
    return F.kl_div(input, target, reduction=_reduction(reduction, "kl_div"),
                    log_target=log_target)


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """``torch.poisson_nll_loss`` (every argument positional, integer reduction).

    >>> import eagerad.torch as torch
    >>> torch.poisson_nll_loss(torch.tensor([0.0]), torch.tensor([1.0]), True, False, 1e-8, 1)
    tensor(1.)
    """
    return F.poisson_nll_loss(input, target, log_input=log_input, full=full, eps=eps,
                              reduction=_reduction(reduction, "poisson_nll_loss"))


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=1):
    """``torch.cosine_embedding_loss`` with an integer reduction.

    >>> import eagerad.torch as torch
    >>> torch.cosine_embedding_loss(torch.ones(1, 2), torch.ones(1, 2), torch.ones(1))
    tensor(0.)
    """
    return F.cosine_embedding_loss(input1, input2, target, margin=margin,
                                   reduction=_reduction(reduction, "cosine_embedding_loss"))


def hinge_embedding_loss(input, target, margin=1.0, reduction=1):
    """``torch.hinge_embedding_loss`` with an integer reduction.

    >>> import eagerad.torch as torch
    >>> torch.hinge_embedding_loss(torch.tensor([0.3]), torch.tensor([-1.0]))
    tensor(0.7000)
    """
    return F.hinge_embedding_loss(input, target, margin=margin,
                                  reduction=_reduction(reduction, "hinge_embedding_loss"))


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=1):
    """``torch.margin_ranking_loss`` with an integer reduction.

    >>> import eagerad.torch as torch
    >>> torch.margin_ranking_loss(torch.tensor([1.0]), torch.tensor([2.0]), torch.tensor([1.0]))
    tensor(1.)
    """
    return F.margin_ranking_loss(input1, input2, target, margin=margin,
                                 reduction=_reduction(reduction, "margin_ranking_loss"))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False,
                        reduction=1):
    """``torch.triplet_margin_loss`` with an integer reduction.

    >>> import eagerad.torch as torch
    >>> torch.triplet_margin_loss(torch.zeros(1, 2), torch.zeros(1, 2), torch.zeros(1, 2))
    tensor(1.)
    """
    return F.triplet_margin_loss(anchor, positive, negative, margin=margin, p=p, eps=eps,
                                 swap=swap, reduction=_reduction(reduction,
                                                                 "triplet_margin_loss"))


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=1):
    """``torch.binary_cross_entropy_with_logits`` with an integer reduction.

    >>> import eagerad.torch as torch
    >>> torch.binary_cross_entropy_with_logits(torch.zeros(1), torch.ones(1))
    tensor(0.6931)
    """
    return F.binary_cross_entropy_with_logits(
        input, target, weight=weight, pos_weight=pos_weight,
        reduction=_reduction(reduction, "binary_cross_entropy_with_logits"))


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1,
             zero_infinity=False):
    """``torch.ctc_loss`` with an integer reduction (1: mean over the batch of the losses
    divided by their target lengths, as ``F.ctc_loss``)."""
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=blank,
                      reduction=_reduction(reduction, "ctc_loss"), zero_infinity=zero_infinity)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled=True):
    """``torch.batch_norm``: ATen's argument order (weight and bias first).

    >>> import eagerad.torch as torch
    >>> torch.batch_norm(torch.tensor([[1.0], [3.0]]), None, None, None, None, True, 0.1, 0.0,
    ...                  False).flatten()
    tensor([-1.,  1.])
    """
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def rrelu(input, lower=0.125, upper=1 / 3, training=False, generator=None):
    """``torch.rrelu``: ``F.rrelu`` (slope ``(lower + upper) / 2`` outside training).

    >>> import eagerad.torch as torch
    >>> torch.rrelu(torch.tensor([-8.0, 1.0]), 0.25, 0.25)
    tensor([-2.,  1.])
    """
    return F.rrelu(input, lower, upper, training)


def _pool(name, dims, indices):
    core = getattr(F, f"max_pool{dims}d")

    def pool(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
        stride = None if stride is None or (not isinstance(stride, int) and len(stride) == 0) \
            else stride
        return core(input, kernel_size, stride, padding, dilation, ceil_mode,
                    return_indices=indices)
    pool.__name__ = name
    pool.__doc__ = (f"``torch.{name}``: ``F.max_pool{dims}d`` (an empty ``stride`` means the "
                    f"kernel size){'; returns (values, indices)' if indices else ''}.")
    return pool


max_pool1d, max_pool2d, max_pool3d = (_pool(f"max_pool{d}d", d, False) for d in (1, 2, 3))
max_pool1d_with_indices = _pool("max_pool1d_with_indices", 1, True)


def adaptive_max_pool1d(input, output_size):
    """``torch.adaptive_max_pool1d``: ``(values, indices)`` as ATen returns them.

    >>> import eagerad.torch as torch
    >>> torch.adaptive_max_pool1d(torch.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2)[1]
    tensor([[[1, 2]]])
    """
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


# ---------------------------------------------------------------- functional recurrent cells
def _cell(step, input, state, w_ih, w_hh, b_ih, b_hh):
    """One step of a recurrent cell on a batch (N, in) or an unbatched (in,) input."""
    if input.ndim == 1:
        out = step(input.unsqueeze(0), tuple(s.unsqueeze(0) for s in state), w_ih, w_hh,
                   b_ih, b_hh)
        return tuple(o.squeeze(0) for o in out)
    return step(input, tuple(state), w_ih, w_hh, b_ih, b_hh)


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """``torch.lstm_cell``: one LSTM step, ``hx = (h, c)``; returns ``(h', c')`` (gates
    i, f, g, o as ``nn.LSTM``).

    >>> import eagerad.torch as torch
    >>> h, c = torch.lstm_cell(torch.ones(1, 2), (torch.zeros(1, 3), torch.zeros(1, 3)),
    ...                        torch.zeros(12, 2), torch.zeros(12, 3))
    >>> h.shape, c.shape
    (torch.Size([1, 3]), torch.Size([1, 3]))
    """
    return _cell(_LSTM._step, input, hx, w_ih, w_hh, b_ih, b_hh)


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """``torch.gru_cell``: one GRU step (gates r, z, n as ``nn.GRU``); returns ``h'``.

    >>> import eagerad.torch as torch
    >>> torch.gru_cell(torch.ones(2), torch.ones(3), torch.zeros(9, 2), torch.zeros(9, 3))
    tensor([0.5000, 0.5000, 0.5000])
    """
    return _cell(_GRU._step, input, (hx,), w_ih, w_hh, b_ih, b_hh)[0]


def _plain_step(activation):
    def step(x, state, w_ih, w_hh, b_ih, b_hh):
        return (activation(F.linear(x, w_ih, b_ih) + F.linear(state[0], w_hh, b_hh)),)
    return step


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """``torch.rnn_tanh_cell``: ``tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)``.

    >>> import eagerad.torch as torch
    >>> torch.rnn_tanh_cell(torch.ones(1), torch.zeros(1), torch.ones(1, 1), torch.ones(1, 1))
    tensor([0.7616])
    """
    return _cell(_plain_step(_ops.tanh), input, (hx,), w_ih, w_hh, b_ih, b_hh)[0]


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """``torch.rnn_relu_cell``: ``relu(x W_ih^T + b_ih + h W_hh^T + b_hh)``.

    >>> import eagerad.torch as torch
    >>> torch.rnn_relu_cell(torch.ones(1), torch.zeros(1), -torch.ones(1, 1), torch.ones(1, 1))
    tensor([0.])
    """
    return _cell(_plain_step(_ops.relu), input, (hx,), w_ih, w_hh, b_ih, b_hh)[0]


__all__ = [_n for _n in dir() if not _n.startswith("_") and _n not in ("F", "INPLACE_NAMES")]
