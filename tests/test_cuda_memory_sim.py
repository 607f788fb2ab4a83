"""The CUDA backend's caching allocator and launch path, checked without a GPU.

Two subprocesses (numba reads ``NUMBA_ENABLE_CUDASIM`` at import):

- on Numba's CUDA simulator, with ``EAGERAD_CUDA_MEMORY_LIMIT=64K``: the counters
  (``eagerad.cuda.memory_allocated`` and the torch face's spellings), reuse of freed
  blocks, ``empty_cache``, the cap's MemoryError, and that a dropped training graph
  gives its memory back by reference counting alone (``gc.disable()``);
- with numba-cuda's real driver classes but no driver: the GPU-only Python parts
  (blocks as numba ``DeviceNDArray``s over a fake arena, the External Memory
  Management plugin, and the prepared launch, whose flattened arguments must equal
  what numba's own ``_Kernel._prepare_args`` produces).  A third process checks that
  the closure kernels' disk-cache keys are the same in every process.
"""
import gc
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import traceback

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HAVE_NUMBA_CUDA = importlib.util.find_spec("numba_cuda") is not None
LIMIT = 64 * 1024

# --------------------------------------------------------------- simulator checks


def sim_counters_reuse_and_values():
    import eagerad
    from eagerad.backend.cuda import memory
    x_host = np.random.default_rng(0).standard_normal(100).astype(np.float32)
    x = eagerad.tensor(x_host, device="cuda")
    alloc = memory.current()
    start, misses = eagerad.cuda.memory_allocated(), alloc.misses
    y = (x * 2).exp()                      # 400 bytes: one 512-byte block each
    assert eagerad.cuda.memory_allocated() == start + 512, eagerad.cuda.memory_stats()
    np.testing.assert_allclose(y.numpy(), np.exp(x_host * 2), rtol=1e-6)
    address = y._data._ary.ctypes.data          # where y's block lies
    del y
    assert eagerad.cuda.memory_allocated() == start
    assert eagerad.cuda.memory_reserved() >= start + 1024     # both blocks stay cached
    z = x.sin()
    assert alloc.misses == misses + 2 and eagerad.cuda.memory_allocated() == start + 512
    assert z._data._ary.ctypes.data == address, "the last freed block is reused first"
    np.testing.assert_allclose(z.numpy(), np.sin(x_host), rtol=1e-6)
    # a view (reshape) keeps its block: the values survive later allocations
    w = (x + 1).reshape(10, 10)
    t = w.reshape(100)
    del w
    for _ in range(3):
        _ = x * 3
    np.testing.assert_allclose(t.numpy(), x_host + 1, rtol=1e-6)
    assert eagerad.cuda.max_memory_allocated() >= eagerad.cuda.memory_allocated()
    eagerad.cuda.reset_peak_memory_stats()
    assert eagerad.cuda.max_memory_allocated() == eagerad.cuda.memory_allocated()
    eagerad.cuda.empty_cache()
    assert eagerad.cuda.memory_reserved() == eagerad.cuda.memory_allocated()


def sim_torch_face_spellings():
    import eagerad
    import eagerad.torch as torch
    a = torch.ones(300, device="cuda")          # 1200 bytes -> a 1536-byte block
    for name in ("memory_allocated", "max_memory_allocated", "memory_reserved",
                 "max_memory_reserved"):
        assert getattr(torch.cuda, name)() == getattr(eagerad.cuda, name)() > 0, name
    before = torch.cuda.memory_allocated()
    del a
    assert torch.cuda.memory_allocated() == before - 1536
    torch.cuda.empty_cache()
    assert torch.cuda.memory_reserved() == torch.cuda.memory_allocated()
    assert torch.cuda.memory_stats()["allocated_bytes.all.current"] == \
        torch.cuda.memory_allocated()


def sim_limit_from_environment():
    import eagerad
    from eagerad.backend.cuda import memory
    alloc = memory.current()
    assert alloc.limit == LIMIT, alloc.limit
    keep = eagerad.zeros(4096, device="cuda")         # 16 KiB held
    spare = eagerad.zeros(8192, device="cuda")        # 32 KiB, then cached
    del spare
    held = eagerad.cuda.memory_allocated()
    try:
        eagerad.zeros(13000, device="cuda")           # 52000 bytes: past the cap
    except MemoryError as err:
        text = str(err)
    else:
        raise AssertionError(f"no MemoryError past the cap: {eagerad.cuda.memory_stats()}")
    assert "52000 bytes requested" in text and f"{held} bytes held" in text and \
        "EAGERAD_CUDA_MEMORY_LIMIT" in text, text
    # hitting the cap emptied the cache first; what fits still fits
    assert eagerad.cuda.memory_reserved() == held
    ok = eagerad.full((8000,), 2.0, device="cuda")
    assert float(ok.sum().item()) == 16000.0
    del keep, ok


def sim_dropped_graphs_free_without_gc():
    import eagerad
    import eagerad.torch as torch
    rng = np.random.default_rng(1)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(),
                                torch.nn.Linear(4, 2)).to("cuda")
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = torch.tensor(rng.standard_normal((5, 3)).astype(np.float32), device="cuda")
    y = torch.tensor([0, 1, 1, 0, 1], device="cuda")

    def torch_step():
        opt.zero_grad(set_to_none=True)
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()

    w = eagerad.Parameter(eagerad.tensor(rng.standard_normal((2, 3)).astype(np.float32),
                                         device="cuda"), name="w")
    sgd = eagerad.nn.SGD([w], learning_rate=0.1)
    labels = eagerad.tensor(np.array([0, 1, 1, 0, 1]), device="cuda")
    loss_grad = eagerad.value_and_grad(
        lambda xb: eagerad.ops.cross_entropy((xb @ w.T).relu(), labels), None, [w])
    xe = eagerad.tensor(rng.standard_normal((5, 3)).astype(np.float32), device="cuda")

    def functional_step():
        sgd(loss_grad(xe)[1])

    v = torch.tensor(rng.standard_normal(6).astype(np.float32), device="cuda",
                     requires_grad=True)

    def higher_order():
        out = (v.sin() * v).sum()
        g, = torch.autograd.grad(out, v, create_graph=True)
        gg, = torch.autograd.grad(g.sum(), v)
        assert np.allclose(gg.numpy(), (2 * np.cos(v.detach().numpy())
                                        - v.detach().numpy() * np.sin(v.detach().numpy())),
                           atol=1e-5)

    for step in (torch_step, functional_step, higher_order):
        step()                                   # optimizer state, kernels: made once
        gc.collect()
        gc.disable()
        try:
            start = eagerad.cuda.memory_allocated()
            step()
            assert eagerad.cuda.memory_allocated() == start, (step.__name__, start,
                                                              eagerad.cuda.memory_allocated())
        finally:
            gc.enable()


def _verdict(prefix, verdict):
    """Run every check named ``prefix...`` here; print the verdicts as one JSON line."""
    for name, fn in sorted(globals().items()):
        if name.startswith(prefix):
            try:
                fn()
                verdict[name] = "ok"
            except Exception:
                verdict[name] = traceback.format_exc()
    print("RESULTS " + json.dumps(verdict))


def _run_sim():
    sys.setswitchinterval(1e-5)
    _verdict("sim_", {})

# ------------------------------------------------------ driver-side checks, no GPU


class FakeArena:
    """Integers as device addresses: what the driver path does with them, minus the GPU."""

    def __init__(self):
        self.next, self.live = 1 << 20, set()

    def alloc(self, nbytes):
        ptr, self.next = self.next, self.next + nbytes
        self.live.add(ptr)
        return ptr

    def free(self, ptr):
        self.live.remove(ptr)


def real_device_arrays_on_blocks():
    from numba.cuda.cudadrv.devicearray import DeviceNDArray

    from eagerad.backend.cuda import memory
    memory._context = object()     # stands for numba's context (no driver to make one)
    arena = FakeArena()
    alloc = memory.Allocator(arena)
    a = memory.device_array((3, 5), np.float64, alloc)
    assert isinstance(a, DeviceNDArray) and a.shape == (3, 5) and a.strides == (40, 8)
    assert a.dtype == np.float64 and a.is_c_contiguous()
    ptr = a.device_ctypes_pointer.value
    assert ptr in arena.live and alloc.allocated == 512 and alloc.reserved == 512
    b = a.reshape(15)
    del a
    assert alloc.allocated == 512, "a reshape keeps the block"
    del b
    assert alloc.allocated == 0 and alloc.reserved == 512
    c = memory.device_array((60,), np.float32, alloc)
    assert c.device_ctypes_pointer.value == ptr and alloc.hits == 1, "block reused"
    del c
    alloc.empty_cache()
    assert not arena.live and alloc.reserved == 0
    # arrays made from the per-(shape, dtype) template equal numba's own construction
    for shape, dtype in (((2, 3, 4), np.float32), ((2, 3, 4), np.float32), ((), np.int8),
                         ((5, 1), np.dtype(np.complex128))):
        ours = memory.device_array(shape, dtype, alloc)
        numba_own = DeviceNDArray(ours.shape, ours.strides, dtype, gpu_data=ours.gpu_data)
        assert vars(ours).keys() == vars(numba_own).keys()
        for name, value in vars(numba_own).items():
            mine = getattr(ours, name)
            if name == "_dummy":
                value, mine = ((d.shape, d.strides, d.size, d.extent, d.is_c_contig,
                                d.is_f_contig) for d in (value, mine))
            assert mine == value, (name, mine, value)


def real_strided_views_on_blocks():
    """Views as numba ``DeviceNDArray``s on a cached block (``backend/cuda/views.py``):
    addresses, strides, read-only broadcasts, and the block living as long as a view."""
    from numba.cuda.cudadrv.devicearray import DeviceNDArray

    from eagerad.backend import cuda as B
    from eagerad.backend.cuda import memory, views
    memory._context = object()
    alloc = memory.Allocator(FakeArena())
    a = memory.device_array((4, 6), np.float64, alloc)
    ptr = a.device_ctypes_pointer.value
    v = views.strided_view(a, 7, (3, 2), (6, 2))            # a[1:4, 1:5:2]
    assert isinstance(v, DeviceNDArray) and v.strides == (48, 16) and not v.is_c_contiguous()
    assert v.device_ctypes_pointer.value == ptr + 56 and views.writeable(v)
    g = B.getitem(a, (slice(1, 4), slice(1, 5, 2)))
    assert g.strides == v.strides and g.device_ctypes_pointer.value == ptr + 56
    e = B.getitem(a, (1, 2))                                 # a 0-d view
    assert e.shape == () and e.device_ctypes_pointer.value == ptr + 64 and e.size == 1
    t = B.transpose(a, (1, 0))
    assert t.shape == (6, 4) and t.strides == (8, 48) and t.is_f_contiguous()
    assert B.diagonal(a, 1).strides == (56,) and B.diagonal(a, 1).shape == (4,)
    assert B.diagonal(a, 1).device_ctypes_pointer.value == ptr + 8
    r = B.broadcast_to(B.getitem(a, (0,)), (3, 4, 6))
    assert r.strides == (0, 0, 8) and not views.writeable(r) and r.flags.writeable is False
    assert r._numba_type_.layout == "A" and not views.writeable(B.transpose(r, (2, 1, 0)))
    flat, off, strides = views.layout(v)                     # the memory v spans, 1-D
    assert flat.shape == (15,) and flat.is_c_contiguous() and off == 0 and strides == (6, 2)
    n = views.strided_view(a, 23, (4,), (-6,))               # a[::-1, 5]
    flat, off, _ = views.layout(n)
    assert flat.device_ctypes_pointer.value == ptr + 40 and off == 18 and flat.shape == (19,)
    assert views.may_share_memory(v, n) and not views.may_share_memory(
        views.strided_view(a, 0, (6,), (1,)), views.strided_view(a, 6, (6,), (1,)))
    assert B.reshape(B.getitem(a, (slice(None), 2)), (2, 2)).strides == (96, 48)
    w = views.strided_view(v, 6, (2,), (2,))                  # a view of a view
    assert w.gpu_data.base is a.gpu_data and w.device_ctypes_pointer.value == ptr + 104
    del a, e, g, t, r, flat, n
    assert alloc.allocated == 512, "a view keeps its base's block"
    del v
    assert alloc.allocated == 512
    del w
    assert alloc.allocated == 0


def real_memory_manager_plugin():
    from numba.cuda.cudadrv import driver

    from eagerad.backend.cuda import memory
    plugin = memory.plugin_class()
    assert issubclass(plugin, driver.HostOnlyCUDAMemoryManager)
    memory._allocator = memory.Allocator(FakeArena())

    class Context:
        pass
    context = Context()
    manager = plugin(context=context)
    assert manager.interface_version == 1
    mem = manager.memalloc(1000)
    assert isinstance(mem, driver.MemoryPointer) and mem.size == 1024
    assert memory.current().allocated == 1024
    view = mem.view(100, 200)           # numba's slicing keeps the owner alive
    del mem
    assert memory.current().allocated == 1024
    del view
    assert memory.current().allocated == 0
    # a context reset takes every block with it: none comes back to the cache later
    mem = manager.memalloc(5000)
    manager.reset()
    assert memory.current().allocated == memory.current().reserved == 0
    del mem
    assert memory.current().allocated == memory.current().reserved == 0
    assert not memory.current()._free
    assert memory.install() and driver._memory_manager is plugin


def real_prepared_launch_matches_numba():
    from types import SimpleNamespace

    from numba.cuda.dispatcher import _Kernel

    from eagerad.backend.cuda import launch, memory
    memory._context = object()
    alloc = memory.Allocator(FakeArena())
    calls, compiled = [], []

    class Compiled:
        debug = cooperative = False
        _codelibrary = SimpleNamespace(get_cufunc=lambda: SimpleNamespace(kernel="K"))

        def bind(self):
            pass

    class Kernel:
        def compile(self, sig):
            compiled.append(sig)
            return Compiled()

    class NumbaSide:              # numba's argument preparation, on its own
        extensions = []
        _prepare_args = _Kernel._prepare_args

    def raw(args, sig):
        out = []
        for ty, v in zip(sig, args):
            NumbaSide()._prepare_args(ty, v, 0, [], out)
        return [(type(o), getattr(o, "value", o)) for o in out]

    launch._core_launch = lambda stream, cfg, fn, *raw: calls.append((cfg, fn, raw))
    kernel = Kernel()
    a = memory.device_array((4, 3), np.float32, alloc)
    b = memory.device_array((7,), np.bool_, alloc)
    args = (a, b, 5, 2.5, np.float32(1.5), (2, 3, 4), True, np.int32(-3), 1 + 2j)
    launch.launch(kernel, 8, 32, *args)
    assert len(compiled) == 1
    from numba.cuda.typing.typeof import Purpose, typeof
    assert compiled[0] == tuple(typeof(v, Purpose.argument) for v in args)
    cfg, fn, got = calls[-1]
    assert fn == "K" and [(type(o), getattr(o, "value", o)) for o in got] == raw(args, compiled[0])
    # same kinds of arguments: no new compile; another dtype: a new overload
    c = memory.device_array((2, 9), np.float32, alloc)
    launch.launch(kernel, 8, 32, c, b, 7, -1.0, np.float32(0), (5, 6, 7), False, np.int32(1), 0j)
    assert len(compiled) == 1
    assert [getattr(o, "value", o) for o in calls[-1][2]][2:5] == \
        [18, 4, c.device_ctypes_pointer.value]
    d = memory.device_array((3,), np.float64, alloc)
    launch.launch(kernel, 8, 32, d, b, 7, -1.0, np.float32(0), (5, 6, 7), False, np.int32(1), 0j)
    assert len(compiled) == 2 and calls[-2][0] is calls[-3][0], "launch configs are kept"


def closure_cache_keys():
    """The hashes numba-cuda puts in the disk-cache keys of closure kernels."""
    from numba.cuda.serialize import dumps

    from eagerad.backend.cuda import elementwise as ew, indexing as ix
    keys = []
    for k in (ew.unary_kernel("exp"), ew.unary_kernel("floor"),
              ew.binary_kernels("maximum").strided, ew.binary_kernels("tanh_grad").flat,
              ix._scan_kernel("logsumexp"), ix._extreme_kernel("max")):
        cells = tuple(c.cell_contents for c in k.py_func.__closure__)
        keys.append(hashlib.sha256(dumps(cells)).hexdigest())
    return keys


def _run_real(only_keys):
    import eagerad.backend as backend
    backend.cuda_problem = lambda: None      # the driver classes need no driver until used
    from eagerad.backend.cuda import launch
    launch._thread.ready = True              # no context to make current here
    _verdict("no checks" if only_keys else "real_", {"keys": closure_cache_keys()})

# ----------------------------------------------------------------- pytest side


def _subprocess(mode, **env):
    if not HAVE_NUMBA_CUDA:
        pytest.skip("numba-cuda is not installed (pip install numba-cuda)")
    full = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
                **env)
    full.pop("NUMBA_ENABLE_CUDASIM", None)
    full.pop("EAGERAD_CUDA_MEMORY_LIMIT", None)
    full.update(env)
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), mode], env=full,
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULTS ")), None)
    if line is None:
        pytest.fail(f"{mode} run crashed (rc={proc.returncode}):\n{proc.stderr[-4000:]}")
    return json.loads(line[len("RESULTS "):])


@pytest.fixture(scope="module")
def sim():
    return _subprocess("sim", NUMBA_ENABLE_CUDASIM="1", EAGERAD_CUDA_MEMORY_LIMIT="64K")


@pytest.fixture(scope="module")
def real():
    return _subprocess("real", PYTHONHASHSEED="1")


SIM = sorted(n for n in list(globals()) if n.startswith("sim_"))
REAL = sorted(n for n in list(globals()) if n.startswith("real_"))


@pytest.mark.parametrize("name", SIM)
def test_on_simulator(sim, name):
    assert sim[name] == "ok", sim[name]


@pytest.mark.parametrize("name", REAL)
def test_driver_path_without_gpu(real, name):
    assert real[name] == "ok", real[name]


def test_closure_kernels_have_the_same_cache_key_in_every_process(real):
    other = _subprocess("keys", PYTHONHASHSEED="2")
    assert other["keys"] == real["keys"] and len(set(real["keys"])) == len(real["keys"])


def test_limit_spellings():
    path = os.path.join(ROOT, "eagerad", "backend", "cuda", "memory.py")
    spec = importlib.util.spec_from_file_location("_eagerad_cuda_memory", path)
    memory = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(memory)     # the module itself needs no CUDA
    assert memory.parse_limit("1000") == 1000 and memory.parse_limit("64K") == 65536
    assert memory.parse_limit("2GB") == 2 << 30 and memory.parse_limit(" ") is None
    with pytest.raises(ValueError, match="EAGERAD_CUDA_MEMORY_LIMIT"):
        memory.parse_limit("lots")
    assert [memory.round_size(n) for n in (0, 512, 8192, 8193, 10 ** 6)] == \
        [512, 512, 8192, 9216, 1048576]


if __name__ == "__main__":
    if sys.argv[1] == "sim":
        _run_sim()
    else:
        _run_real(only_keys=sys.argv[1] == "keys")
