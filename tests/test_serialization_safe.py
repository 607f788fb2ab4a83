"""eagerad.save/load (PyTorch's torch.save/torch.load with weights_only=True) and the
checkpoint functions: exact round trips of nested state, optimizers resuming bit-exactly,
atomic writes (kills mid-save, failing saves), clear errors for foreign and damaged files,
and no code run from a crafted file."""
import io
import json
import os
import pickle
import random
import signal
import time
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import eagerad
from eagerad import nn
from eagerad.device import Device
from eagerad.serialization import load, load_checkpoint, save, save_checkpoint

DTYPES = [np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8,
          np.bool_]


def test_nested_state_round_trips_exactly(tmp_path):
    rng = np.random.default_rng(0)
    shared = eagerad.tensor(rng.normal(size=(2, 3)))
    tensors = {str(np.dtype(d)): eagerad.tensor((rng.normal(size=(3, 2)) * 50).astype(d))
               for d in DTYPES}
    obj = OrderedDict(
        tensors=tensors, empty=eagerad.zeros(0, 4), scalar=eagerad.tensor(2.5, dtype=eagerad.float64),
        grad=eagerad.tensor([1.0, 2.0], requires_grad=True),
        param=eagerad.Parameter(eagerad.tensor([3.0]), name="layer.w"),
        frozen=eagerad.Parameter(eagerad.tensor([4.0]), name="f", requires_grad=False),
        same=[shared, shared], numbers=(0, -1, 2 ** 70, 1.5, float("nan"), float("inf"), -0.0),
        flags=[True, False, None], text="héllo \u2713", keys={0: "int", 1.5: "float", (1, 2): "tuple",
                                                            None: "none", "s": "str"},
        arrays=[np.arange(6, dtype=np.int16).reshape(2, 3), np.float32(1.25), np.int64(7)],
        meta={"dtype": eagerad.float16, "device": Device("cpu")})
    path = tmp_path / "state.pt"
    save(obj, str(path))
    back = load(str(path))
    assert type(back) is OrderedDict and list(back) == list(obj)
    for name, t in tensors.items():
        got = back["tensors"][name]
        assert isinstance(got, eagerad.Tensor) and got.dtype == t.dtype and got.shape == t.shape
        assert got.numpy().tobytes() == t.numpy().tobytes()
    assert back["empty"].shape == (0, 4) and back["scalar"].shape == () and back["scalar"].item() == 2.5
    assert back["grad"].requires_grad and back["grad"].is_leaf
    assert isinstance(back["param"], eagerad.Parameter) and back["param"].name == "layer.w"
    assert back["param"].requires_grad and not back["frozen"].requires_grad
    assert back["same"][0] is back["same"][1]          # one tensor saved once, loaded once
    numbers = back["numbers"]
    assert type(numbers) is tuple and numbers[:4] == (0, -1, 2 ** 70, 1.5) and np.isnan(numbers[4])
    assert numbers[5] == float("inf") and str(numbers[6]) == "-0.0"
    assert back["flags"] == [True, False, None] and back["text"] == obj["text"]
    assert back["keys"] == obj["keys"] and type(back["keys"]) is dict
    a, f32, i64 = back["arrays"]
    assert a.dtype == np.int16 and a.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert type(f32) is np.float32 and f32 == 1.25 and type(i64) is np.int64 and i64 == 7
    assert back["meta"] == {"dtype": np.dtype(np.float16), "device": "cpu"}


def test_tensors_keep_their_face():
    import eagerad.mindspore as ms_face
    import eagerad.torch as torch_face
    buf = io.BytesIO()
    save({"t": torch_face.ones(2), "m": ms_face.Tensor([1.0]), "n": eagerad.ones(1),
          "p": torch_face.nn.Parameter(torch_face.zeros(1))}, buf)
    buf.seek(0)
    back = load(buf)
    assert [back[k]._face.name for k in "tmnp"] == [torch_face.ones(1)._face.name,
                                                    ms_face.Tensor([1.0])._face.name, "eagerad",
                                                    torch_face.ones(1)._face.name]
    assert repr(back["t"]) == repr(torch_face.ones(2))


def test_file_objects_and_path_like(tmp_path):
    buf = io.BytesIO()
    save({"w": eagerad.ones(2)}, buf)
    buf.seek(0)
    assert load(buf)["w"].tolist() == [1.0, 1.0]
    save([1, 2], tmp_path / "p.pt")                    # os.PathLike
    assert load(tmp_path / "p.pt") == [1, 2]
    with pytest.raises(FileNotFoundError, match="nothing.pt"):
        load(str(tmp_path / "nothing.pt"))
    with pytest.raises(TypeError, match="path or a binary file"):
        save([1], 42)


def test_map_location_spellings(tmp_path):
    path = str(tmp_path / "m.pt")
    save({"w": eagerad.tensor([1.0, 2.0])}, path)
    for loc in ("cpu", Device("cpu"), {"cpu": "cpu"}, lambda storage, loc: storage):
        w = load(path, map_location=loc)["w"]
        assert w.device == "cpu" and w.tolist() == [1.0, 2.0]
    seen = []
    load(path, map_location=lambda t, where: seen.append(where) or t)
    assert seen == ["cpu"]


# ------------------------------------------------------------------ optimizers

P0 = np.array([[0.5, -1.5, 2.0], [1.0, 0.25, -0.75]])
B0 = np.array([0.3, -0.2], dtype=np.float32)

OPTIMIZERS = [
    (nn.SGD, dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01)),
    (nn.Momentum, dict(learning_rate=0.05, momentum=0.8)),
    (nn.SGD, dict(learning_rate=[0.05, 0.04, 0.03, 0.02, 0.01, 0.02, 0.03, 0.05], momentum=0.5)),
    (nn.Adam, dict(lr=0.05, amsgrad=True)), (nn.AdamW, dict(lr=0.05, weight_decay=0.1)),
    (nn.RMSprop, dict(lr=0.01, centered=True, momentum=0.3)), (nn.Adagrad, dict(lr=0.1)),
    (nn.Adadelta, dict(lr=0.5)), (nn.Adamax, dict(lr=0.05)), (nn.NAdam, dict(lr=0.05)),
    (nn.LBFGS, dict(lr=0.5, max_iter=3, history_size=4)),
    (nn.LBFGS, dict(max_iter=2, line_search_fn="strong_wolfe")),
]


def _params(w, b):
    return [eagerad.Parameter(eagerad.tensor(w), name="w"), eagerad.Parameter(eagerad.tensor(b), name="b")]


def _train(opt, params, steps):
    w, b = params
    x = eagerad.tensor(np.linspace(-1.0, 1.0, 3))

    def closure():
        opt.zero_grad()
        y = (w @ x).astype(eagerad.float32) + b
        loss = (y.tanh() ** 2).sum() + (w ** 4).sum() * 0.1
        loss.backward()
        return loss
    for _ in range(steps):
        if isinstance(opt, nn.LBFGS):
            opt.step(closure)
        else:
            closure()
            opt.step()


def _make(cls, kw, params):
    if cls is nn.LBFGS:
        return cls(params, **kw)
    return cls([{"params": params[:1]}, {"params": params[1:], "weight_decay": 0.05}], **kw)


@pytest.mark.parametrize("cls,kw", OPTIMIZERS, ids=lambda v: getattr(v, "__name__", ""))
def test_optimizer_resumes_bit_exactly_through_a_file(tmp_path, cls, kw):
    params = _params(P0, B0)
    opt = _make(cls, kw, params)
    _train(opt, params, 3)
    path = str(tmp_path / "opt.pt")
    save({"optimizer": opt.state_dict(), "params": [p.detach() for p in params], "epoch": 3}, path)
    _train(opt, params, 4)                      # uninterrupted run goes on

    ckpt = load(path)
    assert ckpt["epoch"] == 3 and ckpt["optimizer"]["global_step"] == (0 if cls is nn.LBFGS else 3)
    fresh = _params(*[t.numpy() for t in ckpt["params"]])
    opt2 = _make(cls, kw, fresh)
    opt2.load_state_dict(ckpt["optimizer"])
    _train(opt2, fresh, 4)
    for a, b in zip(params, fresh):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert not np.array_equal(params[0].numpy(), P0)       # it did train


def test_lbfgs_state_dict_is_a_snapshot():
    params = _params(P0, B0)
    opt = nn.LBFGS(params, max_iter=2)
    _train(opt, params, 1)
    sd = opt.state_dict()
    history = len(sd["state"][0]["old_dirs"])
    _train(opt, params, 2)
    assert len(sd["state"][0]["old_dirs"]) == history < len(opt.state_dict()["state"][0]["old_dirs"])


def test_optimizer_state_dict_refused_by_save_checkpoint(tmp_path):
    params = _params(P0, B0)
    opt = nn.Adam(params, lr=0.1)
    _train(opt, params, 1)
    path = str(tmp_path / "c.ckpt")
    save_checkpoint({"w": params[0]}, path)
    with pytest.raises(TypeError, match="'state'.*eagerad.save"):
        save_checkpoint(opt.state_dict(), path)
    assert list(load_checkpoint(path)) == ["w"]            # the previous file is intact
    assert os.listdir(tmp_path) == ["c.ckpt"]


# ------------------------------------------------------- whole modules: pickle only on request

def test_whole_module_needs_weights_only_false(tmp_path):
    net = nn.Linear(3, 2)
    path = str(tmp_path / "net.pt")
    save(net, path)
    with pytest.raises(pickle.UnpicklingError, match="Linear.*weights_only=False") as err:
        load(path)
    assert "allow_pickle" not in str(err.value)
    back = load(path, weights_only=False)
    assert type(back) is nn.Linear
    x = eagerad.randn(4, 3)
    np.testing.assert_array_equal(back(x).numpy(), net(x).numpy())
    assert load(path, weights_only=False).weight is not net.weight


# --------------------------------------------------------------- atomic writes

def test_failing_save_leaves_previous_file(tmp_path):
    path = str(tmp_path / "keep.pt")
    save({"v": 1}, path)
    for bad in ({"v": 2, "fn": lambda: 0}, {"v": 3, "gen": (i for i in range(3))}):
        with pytest.raises((TypeError, pickle.PicklingError, AttributeError)):
            save(bad, path)
        assert load(path) == {"v": 1}
    assert os.listdir(tmp_path) == ["keep.pt"]               # no temporary left behind
    buf = io.BytesIO(b"before")
    with pytest.raises((TypeError, pickle.PicklingError, AttributeError)):
        save({"fn": lambda: 0}, buf)
    assert buf.getvalue() == b"before"


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
@pytest.mark.parametrize("writer", ["save", "save_checkpoint"])
def test_kill_mid_save_keeps_previous_file(tmp_path, writer):
    """SIGKILL a process at random points of a loop of saves: the file always loads and
    holds one whole version."""
    path = str(tmp_path / "state.ckpt")
    big = np.zeros(1 << 17)

    def write(version):
        if writer == "save":
            save({"version": version, "x": eagerad.tensor(big + version)}, path)
        else:
            save_checkpoint({"version": np.array(version), "x": big + version}, path)

    def read():
        if writer == "save":
            state = load(path)
            return state["version"], state["x"].numpy()
        state = load_checkpoint(path)
        return int(state["version"].item()), state["x"].numpy()

    start = time.perf_counter()
    write(0)
    save_time = time.perf_counter() - start
    rng = random.Random(1)
    seen, mid_write = set(), 0
    for _ in range(25):
        done_r, done_w = os.pipe()
        pid = os.fork()
        if pid == 0:                        # child: save versions forever, one byte per save
            try:
                os.close(done_r)
                version = 1
                while True:
                    write(version)
                    os.write(done_w, b".")
                    version += 1
            finally:
                os._exit(0)
        os.close(done_w)
        for _ in range(rng.randint(0, 2)):  # let 0 to 2 saves complete (whatever the load) ...
            os.read(done_r, 1)
        time.sleep(rng.uniform(0.0, 1.5 * save_time))    # ... then kill at a random point
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(done_r)
        version, x = read()
        assert (x == version).all()
        seen.add(version)
        leftovers = [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]
        mid_write += bool(leftovers)
        for n in leftovers:
            os.unlink(os.path.join(tmp_path, n))
    assert mid_write > 0 and len(seen) > 1    # kills did land inside saves, and saves completed


# ------------------------------------------------------------ foreign and damaged files

def _mindspore_ckpt():
    """The first bytes MindSpore's protobuf writer produces for one float32 parameter."""
    name = b"conv1.weight"
    tensor = b"\x0a\x01\x02\x12\x07Float32\x1a\x08" + np.ones(2, np.float32).tobytes()
    value = b"\x0a" + bytes([len(name)]) + name + b"\x12" + bytes([len(tensor)]) + tensor
    return b"\x0a" + bytes([len(value)]) + value


def _zip(members):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def _saved_bytes(obj):
    buf = io.BytesIO()
    save(obj, buf)
    return buf.getvalue()


FOREIGN = {
    "png": (b"\x89PNG\r\n\x1a\n" + bytes(40), "PNG image"),
    "json": (b'{"weights": [1, 2, 3]}', "JSON document"),
    "text": (b"epoch 3 loss 0.25\n", "text file"),
    "empty": (b"", "empty file"),
    "mindspore": (_mindspore_ckpt(), "MindSpore protobuf checkpoint"),
    "truncated": (None, "truncated or damaged"),
    "torch_zip": (_zip({"archive/data.pkl": b"\x80\x02}q\x00.", "archive/version": b"3"}),
                  "PyTorch checkpoint"),
    "gzip": (b"\x1f\x8b\x08\x00" + bytes(20), "gzip"),
}


@pytest.mark.parametrize("kind", sorted(FOREIGN))
@pytest.mark.parametrize("loader", [load, load_checkpoint])
def test_foreign_files_say_what_they_are(tmp_path, kind, loader):
    if kind == "mindspore" and loader is load_checkpoint:
        pytest.skip("load_checkpoint reads MindSpore's .ckpt format (tests/test_mindspore_ckpt.py)")
    if kind == "torch_zip" and loader is load:
        pytest.skip("load reads PyTorch's own checkpoints (test_real_torch_checkpoint_loads)")
    data, words = FOREIGN[kind]
    if data is None:
        data = _saved_bytes({"w": eagerad.ones(1000)})[:3000]
    path = tmp_path / f"file.{kind}"
    path.write_bytes(data)
    with pytest.raises(ValueError, match=words) as err:
        loader(str(path))
    assert "allow_pickle" not in str(err.value) and "file." + kind in str(err.value)


def test_npz_given_to_load_points_to_load_checkpoint(tmp_path):
    path = str(tmp_path / "w.ckpt")
    save_checkpoint({"w": eagerad.ones(2)}, path)
    with pytest.raises(ValueError, match="npz.*load_checkpoint"):
        load(path)


def test_load_checkpoint_reads_a_flat_saved_dict(tmp_path):
    path = str(tmp_path / "sd.pt")
    net = nn.Linear(2, 3)
    save(net.state_dict(), path)
    params = load_checkpoint(path)
    assert list(params) == list(net.state_dict())
    np.testing.assert_array_equal(params["weight"].numpy(), net.weight.numpy())
    save({"nested": {"w": eagerad.ones(1)}}, path)
    with pytest.raises(ValueError, match="eagerad.load"):
        load_checkpoint(path)


def _manifest(obj, tensors=()):
    return json.dumps({"format": "eagerad.safe", "version": 1, "object": obj,
                       "tensors": list(tensors)}).encode()


def _npy_bytes(array):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, array, allow_pickle=False)
    return buf.getvalue()


def _npy_header(shape):
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": "<f8", "fortran_order": False, "shape": shape})
    return buf.getvalue()          # (magic, version and header)


def test_damaged_members_and_manifests(tmp_path):
    path = tmp_path / "bad.pt"
    cases = [
        (_zip({"eagerad.json": _manifest({"$tensor": 0}, [{"device": "cpu"}]),
               "tensors/0.npy": b"raw bytes, not an array"}), "not a numpy .npy array"),
        (_zip({"eagerad.json": b"{not json"}), "manifest.*damaged"),
        (_zip({"eagerad.json": _manifest({"$tensor": 5})}), "tensor 5"),
        (_zip({"eagerad.json": _manifest({"$eval": "1+1"})}), "unknown entry"),
        (_zip({"eagerad.json": json.dumps({"format": "eagerad.safe", "version": 99}).encode()}),
         "version 99"),
        (_zip({"eagerad.json": _manifest({"$tensor": 0}, [{"device": "cpu"}]),
               "tensors/0.npy": _npy_header((10 ** 12,)) + bytes(64)}), r"truncated.*\(1000000000000,\)"),
        (_zip({"eagerad.json": _manifest({"$tensor": 0}, [{"device": "cpu"}]),
               "tensors/0.npy": _npy_bytes(np.arange(10.0))[:-8]}), "truncated or damaged"),
        (_zip({"eagerad.json": _manifest({"$dict": [[[1, 2], 3]], "ordered": False})}), "cannot be a key"),
        (_zip({"eagerad.json": b'{"format": "eagerad.safe", "version": 1, "tensors": [], "object": '
               + b"[" * 100000 + b"]" * 100000 + b"}"}), "damaged|nests too deeply"),
    ]
    for data, words in cases:
        path.write_bytes(data)
        with pytest.raises(ValueError, match=words) as err:
            load(str(path))
        assert "raw bytes" not in str(err.value)
    path.write_bytes(_zip({"w.npy": b"raw bytes, not an array"}))
    with pytest.raises(ValueError, match="'w.npy' of the archive is not a numpy .npy array") as err:
        load_checkpoint(str(path))
    assert "raw bytes" not in str(err.value)


# ---------------------------------------------------------- crafted pickle payloads

class _Marker:
    """Unpickling this creates the marker file: proof that code from the file ran."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def _object_npy(marker):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.array([_Marker(marker)], dtype=object), allow_pickle=True)
    return buf.getvalue()


def test_pickle_payloads_run_no_code(tmp_path):
    marker = str(tmp_path / "pwned")
    payload = pickle.dumps(_Marker(marker))
    containers = {
        "raw_pickle": payload,
        "object_npy_in_safe_zip": _zip({"eagerad.json": _manifest({"$tensor": 0}, [{"device": "cpu"}]),
                                        "tensors/0.npy": _object_npy(marker)}),
        "pickle_member": _zip({"eagerad.json": _manifest({"$pickle": "object.pkl", "reason": "x"}),
                               "object.pkl": payload}),
        "object_npy_in_npz": _zip({"w.npy": _object_npy(marker)}),
        "single_object_npy": _object_npy(marker),
        "torch_zip": _zip({"archive/data.pkl": payload, "archive/version": b"3"}),
        "ndarray_tag": _zip({"eagerad.json": _manifest({"$ndarray": 0}, [{"numpy": "ndarray"}]),
                             "tensors/0.npy": _object_npy(marker)}),
    }
    for name, data in containers.items():
        path = tmp_path / f"{name}.bin"
        path.write_bytes(data)
        for loader in (load, load_checkpoint):
            with pytest.raises((ValueError, pickle.UnpicklingError)) as err:
                loader(str(path))
            message = str(err.value)
            assert "allow_pickle" not in message and len(message) > 30, (name, message)
            assert not os.path.exists(marker), (name, loader.__name__)
    with pytest.raises(pickle.UnpicklingError, match="weights_only=True"):
        load(str(tmp_path / "pickle_member.bin"))
    with pytest.raises(pickle.UnpicklingError, match="Python objects"):
        load(str(tmp_path / "object_npy_in_safe_zip.bin"))
    assert not os.path.exists(marker)


def test_real_torch_checkpoint_loads_and_load_checkpoint_names_it(tmp_path):
    torch = pytest.importorskip("torch")
    path = str(tmp_path / "model.pth")
    torch.save({"w": torch.ones(2)}, path)
    assert load(path)["w"].tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="PyTorch checkpoint"):
        load_checkpoint(path)
    empty = tmp_path / "empty.pt"
    empty.write_bytes(FOREIGN["torch_zip"][0])
    assert load(str(empty)) == {}
