"""``torch.utils.tensorboard.SummaryWriter`` writes TensorBoard event files by itself:
read back with eagerad's checking reader and, where installed, with TensorBoard's own
``EventAccumulator``; a damaged record is refused."""
import os

import numpy as np
import pytest

import eagerad.torch as torch
from eagerad.event_file import crc32c, read_events
from eagerad.protowire import WireFormatError
from eagerad.torch.utils.tensorboard import SummaryWriter


def _event_files(folder):
    return [os.path.join(folder, f) for f in os.listdir(folder) if f.startswith("events.out")]


def _write_run(folder):
    with SummaryWriter(folder) as writer:
        for step in range(3):
            writer.add_scalar("Loss/train", torch.tensor(1.0 / (step + 1)), step)
        writer.add_scalars("lr", {"a": 0.1, "b": 0.2}, 5)
        writer.add_histogram("weights", torch.arange(100.0), 1)
        writer.add_text("note", "hello tensorboard", 2)
        writer.add_image("img", torch.rand(3, 4, 5), 0)
    return writer


def test_crc32c_known_vectors():
    assert crc32c(b"") == 0 and crc32c(b"123456789") == 0xE3069283
    assert crc32c(bytes(32)) == 0x8A9136AA           # RFC 3720's 32 zero bytes


def test_scalars_text_histogram_image_read_back(tmp_path):
    writer = _write_run(str(tmp_path))
    (path,) = _event_files(writer.get_logdir())
    events = read_events(path)
    assert events[0]["file_version"] == "brain.Event:2"
    scalars = [(e["step"], v) for e in events for t, v in e["values"] if t == "Loss/train"]
    assert [s for s, _ in scalars] == [0, 1, 2]
    np.testing.assert_allclose([v for _, v in scalars], [1.0, 0.5, 1 / 3], rtol=1e-7)
    kinds = {t: v for e in events for t, v in e["values"]}
    assert kinds["weights"] == "histogram" and kinds["img"] == "image"
    assert kinds["note"] == "hello tensorboard"
    group = read_events(_event_files(os.path.join(str(tmp_path), "lr_b"))[0])
    assert group[1]["values"] == [("lr", pytest.approx(0.2))] and group[1]["step"] == 5


def test_tensorboard_itself_reads_the_files(tmp_path):
    accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    _write_run(str(tmp_path))
    acc = accumulator.EventAccumulator(str(tmp_path), size_guidance={"images": 0})
    acc.Reload()
    losses = acc.Scalars("Loss/train")
    assert [e.step for e in losses] == [0, 1, 2]
    np.testing.assert_allclose([e.value for e in losses], [1.0, 0.5, 1 / 3], rtol=1e-7)
    histo = acc.Histograms("weights")[0].histogram_value
    assert (histo.min, histo.max, histo.num, histo.sum) == (0.0, 99.0, 100.0, 4950.0)
    assert sum(histo.bucket) == 100
    image = acc.Images("img")[0]
    assert (image.width, image.height) == (5, 4) and image.encoded_image_string[:4] == b"\x89PNG"


def test_damaged_file_is_refused(tmp_path):
    writer = _write_run(str(tmp_path))
    (path,) = _event_files(writer.get_logdir())
    data = bytearray(open(path, "rb").read())
    data[30] ^= 0xFF
    open(path, "wb").write(bytes(data))
    with pytest.raises(WireFormatError, match="CRC"):
        read_events(path)


def test_unsupported_methods_and_bad_images_say_so(tmp_path):
    with SummaryWriter(str(tmp_path)) as writer:
        with pytest.raises(NotImplementedError, match="add_graph"):
            writer.add_graph(None)
        with pytest.raises(ValueError, match="dataformats"):
            writer.add_image("x", np.zeros((4, 4)), 0)
