"""The contract of a device backend: the functions every backend module implements.

An op's forward (and its array-level ``fast`` rules) gets the backend module ``B`` of its
operands' device and calls only these functions, plus those of the family modules in
``FAMILIES`` (``backend/<device>/<family>.py``; every name in a family module's ``__all__``
becomes ``B.<name>``, and the CPU family module's ``__all__`` is the reference).  A new
device is a new module that defines all of them (tests/test_backend_contract.py checks
both backends and every op); a function with nothing to offer on a device still exists
there and says so (``fused_deriv`` returning None: "no fused kernel, run the rule").

Arrays are the backend's own (numpy arrays, CUDA device arrays); ``op`` names are keys of
the backend's ``UNARY``/``BINARY`` tables (``'exp'``, ``'mul'``, ...); Python scalars are
accepted where a second operand is, with numpy's promotion rules.

>>> "matmul" in FUNCTIONS and "special" in FAMILIES
True
"""

FUNCTIONS = {
    # creation and transfer
    "asarray": "asarray(data, dtype=None): a backend array of ``data`` (numpy's conversion)",
    "to_numpy": "to_numpy(a): a numpy array of ``a``'s values (a copy to the host off the CPU)",
    "from_numpy": "from_numpy(a): a backend array with the values of numpy array ``a``",
    "full": "full(shape, value, dtype): an array of ``shape`` filled with ``value``",
    "arange": "arange(start, stop, step, dtype): numpy's ``arange`` on the device",
    "copy": "copy(a): a new array with ``a``'s values (never a view)",
    "astype": "astype(a, dtype): ``a`` converted to ``dtype`` (numpy's casting)",
    # elementwise
    "unary": "unary(op, x): elementwise ``op`` (a key of UNARY), numpy's result dtype",
    "binary": "binary(op, x, y): broadcasting elementwise ``op`` (a key of BINARY)",
    "inplace": "inplace(op, x, y): ``x op= y`` in x's buffer (y broadcasts to x); returns x",
    "where": "where(cond, x, y): ``x`` where ``cond`` else ``y``, broadcasting all three",
    "clip": "clip(x, lo, hi): ``x`` clamped into [lo, hi] (either bound may be None)",
    "fused_grad": "fused_grad(op, g, saved): tanh/sigmoid/relu input gradient in one pass "
                  "from ``g`` and the saved output (input for relu), or None: run the rule",
    "fused_deriv": "fused_deriv(op, g, x, n=None): ``g * op'(x)`` in one pass with the rule's "
                   "bits (sin, cos, pow by n), or None: run the rule",
    # reductions
    "reduce": "reduce(op, x, axis, keepdims): sum/mean/prod/max/min/any/all over axes ``axis``",
    "argreduce": "argreduce(op, x, axis, keepdims): argmax/argmin along one axis",
    "logsumexp": "logsumexp(x, axis, keepdims): log(sum(exp(x))) over ``axis`` without overflow",
    "softmax": "softmax(x, axis): exp(x) / sum(exp(x)) along one axis",
    "log_softmax": "log_softmax(x, axis): x - logsumexp(x) along one axis",
    # linear algebra
    "matmul": "matmul(a, b): numpy's ``matmul`` (leading dimensions broadcast as batches)",
    # movement
    "reshape": "reshape(x, shape): ``x`` with a new shape (a view where the layout allows)",
    "transpose": "transpose(x, axes): ``x`` with its axes permuted (a view)",
    "broadcast_to": "broadcast_to(x, shape): a read-only broadcast view of ``x``",
    "concat": "concat(arrays, axis): the arrays joined along an existing axis",
    "stack": "stack(arrays, axis): the arrays joined along a new axis",
    "getitem": "getitem(x, index): ``x[index]`` for an index tuple in backend form",
    "setitem": "setitem(x, index, value): ``x[index] = value`` in x's buffer",
    "diagonal": "diagonal(x, offset): diagonal ``offset`` of the last two axes as the last "
                "axis, a writable view where the device has strided views (else a copy)",
    "index_add": "index_add(shape, dtype, index, values): zeros of ``shape`` with ``values`` "
                 "added at ``index`` (repeated indices accumulate)",
    # random numbers
    "seed": "seed(value): reseed this backend's generator",
    "uniform": "uniform(shape, low, high, dtype): uniform samples in [low, high)",
    "normal": "normal(shape, mean, std, dtype): normal samples",
    "bernoulli": "bernoulli(shape, p, dtype): 1 with probability ``p``, else 0",
}

# family modules: ``backend/<device>/<family>.py``, star-imported by each backend package
FAMILIES = ("special", "indexing", "linalg", "nn", "fused", "spectral", "losses")
