"""Devices: where a tensor's buffer lives.

>>> from eagerad.device import Device
>>> Device("cuda:0").type
'cuda'
"""
import operator


class Device:
    """A device such as ``cpu`` or ``cuda:0``; compares equal to its string.

    >>> Device("gpu"), Device("cpu") == "cpu", str(Device("cuda", 1))
    (device(type='cuda', index=0), True, 'cuda:1')
    """
    __slots__ = ("type", "index")

    def __init__(self, spec="cpu", index=None):
        if isinstance(spec, Device):
            self.type, self.index = spec.type, spec.index
            return
        if not isinstance(spec, str):
            raise TypeError(f"device must be a string like 'cpu' or 'cuda:0', got {spec!r}")
        kind, _, idx = spec.lower().partition(":")
        if kind == "gpu":
            kind = "cuda"
        if kind not in ("cpu", "cuda"):
            raise ValueError(f"device={spec!r} is not known; use 'cpu' or 'cuda'")
        if idx and index is not None:
            raise ValueError(f"device={spec!r} already has an index; do not pass index={index!r} too")
        if idx:
            if not idx.isdigit():
                raise ValueError(f"device={spec!r}: the index after ':' must be a non-negative "
                                 f"integer, as in 'cuda:0', got {idx!r}")
            index = int(idx)
        elif index is not None:
            try:
                index = operator.index(index)
            except TypeError:
                raise TypeError(f"device index must be an int, got {index!r} "
                                f"({type(index).__name__})") from None
        if index is not None and index < 0:
            raise ValueError(f"device index must be non-negative, got {index} (device {spec!r})")
        self.type = kind
        self.index = index if index is not None else (0 if kind == "cuda" else None)

    def __eq__(self, other):
        if isinstance(other, str):
            other = Device(other)
        return isinstance(other, Device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        return f"device(type='{self.type}'" + ("" if self.index is None else f", index={self.index}") + ")"


CPU = Device("cpu")
DEFAULT = [CPU]     # where new tensors go when no device is given (``set_context`` sets it)


def default_device():
    """Where new tensors go when no ``device`` is given (set by ``set_context`` /
    ``set_default_device``).

    >>> default_device()
    device(type='cpu')
    """
    return DEFAULT[0]


def as_device(spec):
    """Accept a Device, a string, or None (meaning the default device).

    >>> as_device("cuda:1"), as_device(None)
    (device(type='cuda', index=1), device(type='cpu'))
    """
    if spec is None:
        return DEFAULT[0]
    return spec if isinstance(spec, Device) else Device(spec)
