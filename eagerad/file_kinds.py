"""What a file looks like, from its first bytes: the loaders' errors say it in words
("a PNG image", "a MindSpore protobuf checkpoint") instead of a parser's complaint.

>>> describe(b'\\x89PNG\\r\\n\\x1a\\n....')
'a PNG image'
>>> describe(b'{"a": 1}')
'a JSON document'
"""
HEAD_BYTES = 64

_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"%PDF", "a PDF document"),
    (b"\x1f\x8b", "a gzip-compressed file"),
    (b"\x89HDF\r\n\x1a\n", "an HDF5 file (e.g. a Keras .h5 model)"),
    (b"\x93NUMPY", "a single numpy .npy array"),
    (b"PK\x03\x04", "a zip archive"),
    (b"PK\x05\x06", "an empty zip archive"),
)


def _varint(data, pos):
    """(value, next position) of the protobuf varint at ``pos``, or (None, pos)."""
    value = shift = 0
    while pos < len(data) and shift < 64:
        byte = data[pos]
        value |= (byte & 0x7F) << shift
        pos += 1
        if not byte & 0x80:
            return value, pos
        shift += 7
    return None, pos


def looks_like_mindspore_ckpt(head):
    """True when ``head`` starts like MindSpore's protobuf checkpoint: a repeated
    ``value`` message (field 1) whose first field is the parameter's name (field 1).

    >>> looks_like_mindspore_ckpt(b'\\n\\x12\\n\\x0cconv1.weight\\x12\\x02')
    True
    """
    if len(head) < 4 or head[0] != 0x0A:
        return False
    _, pos = _varint(head, 1)
    if pos >= len(head) or head[pos] != 0x0A:
        return False
    length, pos = _varint(head, pos + 1)
    name = head[pos:pos + min(length or 0, 16)]
    return bool(length) and bool(name) and all(32 <= b < 127 for b in name)


def _is_pickle(head):
    return len(head) >= 2 and head[0] == 0x80 and 2 <= head[1] <= 5


def describe(head, zip_names=None):
    """Words for a file that starts with bytes ``head`` (``zip_names``: its members, when
    it is a readable zip archive).

    >>> describe(b'\\x80\\x04\\x95...')
    'a Python pickle'
    >>> describe(b'PK\\x03\\x04...', ['archive/data.pkl', 'archive/data/0'])
    'a PyTorch checkpoint (torch.save; its data.pkl is a Python pickle)'
    >>> describe(b'')
    'an empty file'
    """
    if not head:
        return "an empty file"
    if zip_names is not None:
        if any(n == "data.pkl" or n.endswith("/data.pkl") for n in zip_names):
            return "a PyTorch checkpoint (torch.save; its data.pkl is a Python pickle)"
        if zip_names and all(n.endswith(".npy") for n in zip_names):
            return "a numpy .npz archive"
        return "a zip archive"
    for magic, words in _MAGIC:
        if head.startswith(magic):
            return words
    if _is_pickle(head):
        return "a Python pickle"
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:      # (also a multi-byte character cut by the head's end)
        text = None
    if text is not None and all(c.isprintable() or c in "\r\n\t" for c in text):
        stripped = text.lstrip()
        if stripped[:1] in ("{", "[") or stripped.startswith('"'):
            return "a JSON document"
        return "a text file"
    if looks_like_mindspore_ckpt(head):      # (binary: its tensor records follow the name)
        return ("a MindSpore protobuf checkpoint (.ckpt); read it with MindSpore's "
                "load_checkpoint and save the parameters with eagerad's save_checkpoint")
    return "binary data of no format eagerad knows"


def describe_file(f):
    """``describe`` of an open binary file (read from its start; the position is restored).

    >>> import io; describe_file(io.BytesIO(b'hello world'))
    'a text file'
    """
    start = f.tell()
    head = f.read(HEAD_BYTES)
    f.seek(start)
    if head.startswith(b"PK"):
        import zipfile
        try:
            with zipfile.ZipFile(f) as z:
                return describe(head, z.namelist())
        except (zipfile.BadZipFile, OSError, EOFError, ValueError):
            return "a truncated or damaged zip archive"
        finally:
            f.seek(start)
    return describe(head)

