"""Atomic file writes: a save either lands whole under its final name or not at all.

Every file eagerad writes goes through ``atomic_write``: the bytes go to a temporary
file in the destination's directory, are flushed and fsync'ed, and only then is the
temporary renamed over the destination (``os.replace``, atomic on POSIX and Windows).
A process killed mid-save therefore leaves the previous file intact, and a save that
fails half-way (an unsupported value) removes its temporary and changes nothing.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), 'out.bin')
>>> with atomic_write(path) as f:
...     _ = f.write(b'new contents')
>>> open(path, 'rb').read()
b'new contents'
"""
import contextlib
import io
import os
import secrets


def _fsync_directory(directory):
    """Make the rename itself durable (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_write(path):
    """A binary file to write ``path`` through: renamed onto ``path`` when the block ends
    normally, deleted (leaving ``path`` as it was) when it raises.

    The temporary is created with mode 0o666 minus the umask, as ``open`` would.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), 'keep.txt')
    >>> with atomic_write(path) as f:
    ...     _ = f.write(b'old')
    >>> try:
    ...     with atomic_write(path) as f:
    ...         _ = f.write(b'half'); raise KeyError('failed save')
    ... except KeyError:
    ...     pass
    >>> open(path, 'rb').read(), sorted(os.listdir(os.path.dirname(path)))
    (b'old', ['keep.txt'])
    """
    path = os.fspath(path)
    directory, name = os.path.split(os.path.abspath(path))
    tmp = os.path.join(directory, f".{name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_directory(directory)


def write_file(f, produce):
    """Run ``produce(binary_file)`` into ``f``: a path (written atomically) or an open
    binary file object (which gets the finished bytes in one ``write``, so a failing
    ``produce`` writes nothing to it).  ``produce`` may seek in the file it is given.

    >>> buf = io.BytesIO(); write_file(buf, lambda out: out.write(b'abc')); buf.getvalue()
    b'abc'
    """
    if isinstance(f, (str, bytes, os.PathLike)):
        with atomic_write(os.fsdecode(f)) as out:
            produce(out)
        return
    if not hasattr(f, "write"):
        raise TypeError(f"f must be a path or a binary file object with write(), "
                        f"got {type(f).__name__}")
    staging = io.BytesIO()
    produce(staging)
    f.write(staging.getvalue())
