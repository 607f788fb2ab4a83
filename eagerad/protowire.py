"""Protocol Buffers' wire format (varints, fixed-width and length-delimited fields), enough
to read and write the few messages eagerad exchanges with other tools -- MindSpore's
``.ckpt`` checkpoints and TensorBoard's event files -- without the protobuf package, and
without ever running code from a file.

>>> msg = field(1, BYTES, b"hi") + field(2, VARINT, varint(300))
>>> [(n, w, v) for n, w, v in fields(msg, 0, len(msg))]
[(1, 2, (2, 4)), (2, 0, 300)]
"""
import struct

VARINT, FIXED64, BYTES, FIXED32 = 0, 1, 2, 5


class WireFormatError(ValueError):
    """The bytes are not a well-formed protobuf message."""


def varint(value):
    """Protobuf's base-128 varint bytes of a non-negative int (negatives as 64-bit two's
    complement, as int64 fields are encoded).

    >>> varint(1), varint(300), len(varint(-1))
    (b'\\x01', b'\\xac\\x02', 10)
    """
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def read_varint(buf, pos, end):
    """(value, next position) of the varint at ``buf[pos]``.

    >>> read_varint(b'\\xac\\x02', 0, 2)
    (300, 2)
    """
    shift = result = 0
    while True:
        if pos >= end or shift > 63:
            raise WireFormatError(f"truncated or overlong varint at byte {pos}")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def fields(buf, pos, end):
    """Yield ``(field number, wire type, value)`` of one message in ``buf[pos:end]``;
    a length-delimited value is a ``(start, stop)`` pair into ``buf``, a fixed-width one
    its raw bytes."""
    while pos < end:
        key, pos = read_varint(buf, pos, end)
        number, wire = key >> 3, key & 7
        if wire == VARINT:
            value, pos = read_varint(buf, pos, end)
        elif wire == BYTES:
            length, pos = read_varint(buf, pos, end)
            if pos + length > end:
                raise WireFormatError(f"field {number} claims {length} bytes past the end")
            value, pos = (pos, pos + length), pos + length
        elif wire in (FIXED64, FIXED32):
            width = 8 if wire == FIXED64 else 4
            value, pos = bytes(buf[pos:pos + width]), pos + width
        else:
            raise WireFormatError(f"unsupported wire type {wire} for field {number} at byte {pos}")
        if number == 0 or pos > end:
            raise WireFormatError(f"malformed field at byte {pos}")
        yield number, wire, value


def field(number, wire, payload):
    """One encoded field: key varint then the payload (length-prefixed for bytes).

    >>> field(1, BYTES, b"a").hex()
    '0a0161'
    """
    key = varint(number << 3 | wire)
    if wire == BYTES:
        return key + varint(len(payload)) + payload
    return key + payload


def double(number, value):
    """A ``double`` field.

    >>> double(1, 1.0).hex()
    '09000000000000f03f'
    """
    return field(number, FIXED64, struct.pack("<d", value))


def single(number, value):
    """A ``float`` field.

    >>> single(2, 0.5).hex()
    '150000003f'
    """
    return field(number, FIXED32, struct.pack("<f", value))


def packed_doubles(number, values):
    """A packed ``repeated double`` field.

    >>> packed_doubles(6, [1.0]).hex()
    '3208000000000000f03f'
    """
    return field(number, BYTES, struct.pack(f"<{len(values)}d", *values))
