"""TensorBoard's event files, written without TensorFlow, tensorboard or protobuf: what
``SummaryWriter`` (``torch.utils.tensorboard``) logs -- scalars, histograms, text and
images -- readable by ``tensorboard --logdir``.

An event file is a sequence of TFRecords (``uint64 length``, masked CRC32-C of the length,
the bytes, masked CRC32-C of the bytes), each an ``Event`` message::

    message Event { double wall_time = 1; int64 step = 2;
                    oneof what { string file_version = 3; Summary summary = 5; } }
    message Summary { repeated Value value = 1; }
    message Value { string tag = 1; float simple_value = 2; Image image = 4;
                    HistogramProto histo = 5; TensorProto tensor = 8;
                    SummaryMetadata metadata = 9; }

>>> import os, tempfile
>>> d = tempfile.mkdtemp(); log = EventFile(d)
>>> log.scalar("loss", 0.5, step=3); log.close()
>>> [(e["step"], e["values"]) for e in read_events(log.path)][1:]
[(3, [('loss', 0.5)])]
"""
import itertools
import os
import socket
import struct
import time
import zlib

import numpy as np

from .protowire import (BYTES, VARINT, double, field, fields, packed_doubles, single, varint,
                        WireFormatError)


def _crc32c_table():
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
        table.append(crc)
    return table


_TABLE = _crc32c_table()
_SERIAL = itertools.count()     # files opened by this process, for unique names


def crc32c(data):
    """CRC-32C (Castagnoli), the checksum of TFRecords.

    >>> hex(crc32c(b"123456789"))
    '0xe3069283'
    """
    crc = 0xFFFFFFFF
    for byte in data:
        crc = _TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def _masked(data):
    crc = crc32c(data)
    return struct.pack("<I", (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF)


def _record(payload):
    length = struct.pack("<Q", len(payload))
    return length + _masked(length) + payload + _masked(payload)


def _text_tensor(text):
    """A TensorProto of one DT_STRING (dtype 7) element, shape [1]."""
    shape = field(2, BYTES, field(1, VARINT, varint(1)))
    return field(1, VARINT, varint(7)) + field(2, BYTES, shape) + field(8, BYTES, text.encode())


def _png(image):
    """PNG bytes of an (H, W, C) uint8 array, C in 1, 3, 4 (no compression library
    beyond zlib)."""
    height, width, channels = image.shape
    color = {1: 0, 3: 2, 4: 6}[channels]
    rows = b"".join(b"\x00" + image[r].tobytes() for r in range(height))

    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))
    header = struct.pack(">IIBBBBB", width, height, 8, color, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows))
            + chunk(b"IEND", b""))


class EventFile:
    """One ``events.out.tfevents.*`` file in ``log_dir``, appended to as values arrive
    and flushed every ``flush_secs`` (and on ``flush``/``close``).

    >>> import tempfile
    >>> log = EventFile(tempfile.mkdtemp()); log.text("note", "hello", step=0); log.close()
    >>> read_events(log.path)[1]["values"]
    [('note', 'hello')]
    """

    def __init__(self, log_dir, filename_suffix="", flush_secs=120):
        os.makedirs(log_dir, exist_ok=True)
        name = (f"events.out.tfevents.{int(time.time()):010d}.{socket.gethostname()}."
                f"{os.getpid()}.{next(_SERIAL)}{filename_suffix}")
        self.path, self.flush_secs = os.path.join(log_dir, name), flush_secs
        self._file, self._last_flush = open(self.path, "wb"), time.time()
        self._write(double(1, time.time()) + field(3, BYTES, b"brain.Event:2"))
        self.flush()

    def _write(self, event):
        if self._file is None:
            raise ValueError(f"the event file {self.path!r} is closed")
        self._file.write(_record(event))
        if time.time() - self._last_flush >= self.flush_secs:
            self.flush()

    def _value(self, tag, body, step, walltime):
        value = field(1, BYTES, str(tag).encode()) + body
        step_field = field(2, VARINT, varint(int(step))) if step is not None else b""
        self._write(double(1, time.time() if walltime is None else float(walltime)) + step_field
                    + field(5, BYTES, field(1, BYTES, value)))

    def scalar(self, tag, value, step=None, walltime=None):
        """Log one number."""
        self._value(tag, single(2, float(value)), step, walltime)

    def histogram(self, tag, values, bins=30, step=None, walltime=None):
        """Log the histogram of ``values`` (``bins`` as numpy's ``histogram`` takes it)."""
        v = np.asarray(values, dtype=np.float64).ravel()
        if v.size == 0 or not np.isfinite(v).all():
            raise ValueError(f"histogram {tag!r}: values must be non-empty and finite")
        counts, edges = np.histogram(v, bins=bins)
        histo = (double(1, v.min()) + double(2, v.max()) + double(3, v.size) + double(4, v.sum())
                 + double(5, float(v @ v)) + packed_doubles(6, edges[1:].tolist())
                 + packed_doubles(7, counts.astype(np.float64).tolist()))
        self._value(tag, field(5, BYTES, histo), step, walltime)

    def text(self, tag, text, step=None, walltime=None):
        """Log a string (TensorBoard's text plugin)."""
        meta = field(1, BYTES, field(1, BYTES, b"text"))
        self._value(tag, field(8, BYTES, _text_tensor(str(text))) + field(9, BYTES, meta),
                    step, walltime)

    def image(self, tag, image, step=None, walltime=None):
        """Log an (H, W, C) image: floats in [0, 1] or uint8."""
        img = np.asarray(image)
        if img.ndim != 3 or img.shape[-1] not in (1, 3, 4):
            raise ValueError(f"image {tag!r}: expected (H, W, C) with C in 1, 3, 4, got shape "
                             f"{img.shape}")
        if img.dtype != np.uint8:
            img = (np.clip(img, 0.0, 1.0) * 255 + 0.5).astype(np.uint8)
        h, w, c = img.shape
        body = (field(1, VARINT, varint(h)) + field(2, VARINT, varint(w))
                + field(3, VARINT, varint(c)) + field(4, BYTES, _png(np.ascontiguousarray(img))))
        self._value(tag, field(4, BYTES, body), step, walltime)

    def flush(self):
        """Push what was written to the disk."""
        if self._file is not None:
            self._file.flush()
            self._last_flush = time.time()

    def close(self):
        """Flush and close (idempotent)."""
        if self._file is not None:
            self.flush()
            self._file.close()
            self._file = None


def _summary_values(buf, start, stop):
    out = []
    for number, wire, span in fields(buf, start, stop):
        if number != 1 or wire != BYTES:
            continue
        tag, value = None, None
        for sub, sub_wire, payload in fields(buf, *span):
            if sub == 1:
                tag = bytes(buf[payload[0]:payload[1]]).decode()
            elif sub == 2:
                value = struct.unpack("<f", payload)[0]
            elif sub == 4:
                value = "image"
            elif sub == 5:
                value = "histogram"
            elif sub == 8:
                value = next(bytes(buf[p[0]:p[1]]).decode() for n, _, p in fields(buf, *payload)
                             if n == 8)
        out.append((tag, value))
    return out


def read_events(path):
    """The events of a file as dicts (``wall_time``, ``step``, ``values``: (tag, value)
    pairs; histograms and images by kind), checking every CRC: for tests and inspection."""
    with open(path, "rb") as f:
        data = f.read()
    events, pos = [], 0
    while pos < len(data):
        if pos + 12 > len(data):
            raise WireFormatError(f"{path!r}: truncated record header at byte {pos}")
        header = data[pos:pos + 8]
        (length,) = struct.unpack("<Q", header)
        payload = data[pos + 12:pos + 12 + length]
        if (data[pos + 8:pos + 12] != _masked(header) or len(payload) != length
                or data[pos + 12 + length:pos + 16 + length] != _masked(payload)):
            raise WireFormatError(f"{path!r}: damaged record at byte {pos} (CRC mismatch)")
        event = {"wall_time": None, "step": 0, "values": []}
        for number, wire, value in fields(payload, 0, len(payload)):
            if number == 1:
                event["wall_time"] = struct.unpack("<d", value)[0]
            elif number == 2:
                event["step"] = value
            elif number == 3:
                event["file_version"] = payload[value[0]:value[1]].decode()
            elif number == 5:
                event["values"] = _summary_values(payload, *value)
        events.append(event)
        pos += 16 + length
    return events
