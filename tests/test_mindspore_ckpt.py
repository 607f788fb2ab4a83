"""MindSpore's .ckpt format: files written by real MindSpore load by parameter name, and
the files eagerad writes are the bytes MindSpore writes (and MindSpore reads them back:
tests/data/mindspore/check_eagerad_ckpt.py records that verdict under real MindSpore)."""
import hashlib
import json
import os
import sys

import numpy as np
import pytest

from eagerad.ckpt_format import CkptFormatError, ckpt_bytes, is_ckpt, parse_ckpt, read_ckpt, write_ckpt

DATA = os.path.join(os.path.dirname(__file__), "data", "mindspore")
sys.path.insert(0, DATA)
from ms_ckpt_nets import NET_SHAPES, make_net, mixed_values, net_weights  # noqa: E402


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_mindspore_written_net_loads_by_name(dtype):
    loaded = read_ckpt(os.path.join(DATA, f"ms_net_{np.dtype(dtype).name}.ckpt"))
    want = net_weights(dtype)
    assert list(loaded) == list(NET_SHAPES)
    for name, value in want.items():
        assert loaded[name].dtype == value.dtype and loaded[name].shape == value.shape, name
        np.testing.assert_array_equal(loaded[name], value)


def test_mindspore_written_ints_bool_scalar_and_string():
    loaded = read_ckpt(os.path.join(DATA, "ms_mixed.ckpt"))
    for name, value in mixed_values().items():
        assert loaded[name].dtype == value.dtype and loaded[name].shape == value.shape, name
        np.testing.assert_array_equal(loaded[name], value)
    assert loaded["note.str"] == "eagerad reads this"


def test_crc_trailer_is_checked():
    path = os.path.join(DATA, "ms_crc.ckpt")
    content = open(path, "rb").read()
    assert content[-17:-10] == b"crc_num"
    loaded = read_ckpt(path)
    np.testing.assert_array_equal(loaded["steps.int64"], mixed_values()["steps.int64"])
    damaged = bytearray(content)
    damaged[-20] ^= 1                              # a byte of the last value's content
    with pytest.raises(CkptFormatError, match="CRC32"):
        parse_ckpt(bytes(damaged))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_eagerad_writes_mindspores_bytes(dtype):
    reference = open(os.path.join(DATA, f"ms_net_{np.dtype(dtype).name}.ckpt"), "rb").read()
    assert ckpt_bytes(net_weights(dtype)) == reference


def test_mindspore_reads_what_eagerad_writes():
    verdict = json.load(open(os.path.join(DATA, "eagerad_ckpt_verdict.json")))
    checked = {"net_float32": net_weights(np.float32), "mixed": mixed_values()}
    for label, arrays in checked.items():
        entry = verdict["files"][label]
        assert entry["sha256"] == hashlib.sha256(ckpt_bytes(arrays)).hexdigest(), (
            f"eagerad now writes other bytes for {label}: rerun check_eagerad_ckpt.py under MindSpore")
        assert entry["ok"], entry["problems"]


def test_round_trip_every_dtype_and_rank(tmp_path):
    rng = np.random.RandomState(0)
    arrays = {f"a.{np.dtype(t).name}": (rng.uniform(-50, 50, size=(2, 3, 1)) * 3).astype(t)
              for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                        np.uint32, np.uint64, np.float16, np.float32, np.float64, np.complex64)}
    arrays["empty"] = np.zeros((0, 4), np.float32)
    arrays["scalar"] = np.array(2.5, np.float32)
    arrays["fortran"] = np.asfortranarray(np.arange(6.0).reshape(2, 3))
    path = str(tmp_path / "all.ckpt")
    write_ckpt(path, arrays)
    assert is_ckpt(path)
    loaded = read_ckpt(path)
    assert list(loaded) == list(arrays)
    for name, value in arrays.items():
        assert loaded[name].dtype == value.dtype and loaded[name].shape == value.shape, name
        np.testing.assert_array_equal(loaded[name], value)
        assert loaded[name].flags.writeable


def _message(tag, dims, tensor_type, content):
    """One Checkpoint message built field by field (as protobuf frames it)."""
    from eagerad.ckpt_format import _BYTES, _VARINT, _field, _varint
    tensor = (b"".join(_field(1, _VARINT, _varint(d)) for d in dims)
              + _field(2, _BYTES, tensor_type.encode()) + _field(3, _BYTES, content))
    return _field(1, _BYTES, _field(1, _BYTES, tag.encode()) + _field(2, _BYTES, tensor))


def test_message_framing_matches_the_writer():
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert _message("w", [2, 3], "Float32", w.tobytes()) == ckpt_bytes({"w": w})


def test_large_parameter_split_into_slices_joins():
    # MindSpore splits a big parameter along axis 0 into consecutive values with one tag,
    # each carrying the full dims
    whole = np.arange(12, dtype=np.float32).reshape(4, 3)
    content = _message("w", [4, 3], "Float32", whole[:1].tobytes()) + \
        _message("w", [4, 3], "Float32", whole[1:].tobytes()) + \
        _message("b", [1], "Int32", np.array([9], np.int32).tobytes())
    parsed = parse_ckpt(content)
    np.testing.assert_array_equal(parsed["w"], whole)
    assert parsed["b"].tolist() == [9]
    with pytest.raises(CkptFormatError, match="twice with different"):
        parse_ckpt(content + _message("w", [12], "Float32", whole.tobytes()))


def test_bfloat16_widens_exactly_to_float32():
    values = np.array([1.0, -2.5, 3.140625], np.float32)       # exactly representable
    bf16 = (values.view(np.uint32) >> 16).astype("<u2").tobytes()
    out = parse_ckpt(_message("w", [3], "BFloat16", bf16))["w"]
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, values)


def test_unknown_type_and_map_parameters_are_refused():
    with pytest.raises(CkptFormatError, match="tensor_type 'Int4'"):
        parse_ckpt(_message("q", [2], "Int4", b"\x00"))
    from eagerad.ckpt_format import _BYTES, _field
    map_value = _field(1, _BYTES, _field(1, _BYTES, b"emb") + _field(3, _BYTES, b""))
    with pytest.raises(CkptFormatError, match="MapParameter"):
        parse_ckpt(map_value)


def test_bad_files_raise_clear_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no checkpoint file"):
        read_ckpt(str(tmp_path / "missing.ckpt"))
    npz = tmp_path / "weights.npz"
    np.savez(npz, w=np.ones(2))
    assert not is_ckpt(str(npz))
    with pytest.raises(CkptFormatError, match="not a readable MindSpore checkpoint"):
        read_ckpt(str(npz))
    good = ckpt_bytes({"w": np.ones(3, np.float32)})
    with pytest.raises(CkptFormatError, match="past the end"):
        parse_ckpt(good[:-3])
    mismatch = good.replace(b"\x08\x03", b"\x08\x05")
    with pytest.raises(CkptFormatError, match=r"dims \[5\] need 5 elements"):
        parse_ckpt(mismatch)
    with pytest.raises(TypeError, match="dtype object"):
        ckpt_bytes({"w": np.array([None])})
    with pytest.raises(TypeError, match="parameter names"):
        ckpt_bytes({"": np.ones(1)})


def test_write_is_atomic_and_leaves_no_temp_file(tmp_path):
    path = str(tmp_path / "net.ckpt")
    write_ckpt(path, {"w": np.ones(2, np.float32)})
    with pytest.raises(TypeError):
        write_ckpt(path, {"w": np.array(["text"], dtype=object)})
    np.testing.assert_array_equal(read_ckpt(path)["w"], np.ones(2, np.float32))
    assert os.listdir(tmp_path) == ["net.ckpt"]


def test_loads_into_the_mindspore_face_cell_by_name():
    import eagerad.mindspore as face
    net = make_net(face.nn)
    params = {k: face.Parameter(face.Tensor(v), name=k)
              for k, v in read_ckpt(os.path.join(DATA, "ms_net_float32.ckpt")).items()}
    not_loaded, unused = face.load_param_into_net(net, params)
    assert not_loaded == [] and unused == []
    for name, param in net.parameters_and_names():
        np.testing.assert_array_equal(param.numpy(), net_weights(np.float32)[name])
