"""``mindspore.dataset.transforms``: dtype casts, one-hot labels and composition.

>>> import numpy as np
>>> Compose([TypeCast(np.int32), OneHot(3)])(np.array(2.0))
array([0, 0, 1], dtype=int32)
"""
import numbers

import numpy as np


def _numpy_dtype(data_type):
    """A numpy dtype from a numpy/eagerad dtype, a dtype name or a MindSpore-style dtype
    object whose ``str`` is its name (``Float32``)."""
    try:
        return np.dtype(data_type)
    except TypeError:
        pass
    name = str(data_type).lower()
    try:
        return np.dtype({"bool": "bool_"}.get(name, name))
    except TypeError:
        raise TypeError(f"TypeCast: data_type must be a dtype, got {data_type!r}") from None


class TypeCast:
    """Cast a column to ``data_type`` (floats to ints truncate toward zero, as numpy).

    >>> TypeCast(np.float16)(np.array([1, 2])).dtype
    dtype('float16')
    """

    def __init__(self, data_type):
        self.data_type = _numpy_dtype(data_type)

    def __call__(self, *columns):
        out = tuple(np.asarray(c).astype(self.data_type) for c in columns)
        return out[0] if len(out) == 1 else out


class OneHot:
    """Integer labels -> one-hot rows of ``num_classes`` (the labels' dtype), or, with
    ``smoothing_rate`` s, float rows of ``s / num_classes`` and ``1 - s + s / num_classes``.

    >>> OneHot(4, 0.2)(np.array(2))
    array([0.05, 0.05, 0.85, 0.05])
    """

    def __init__(self, num_classes, smoothing_rate=0.0):
        if isinstance(num_classes, bool) or not isinstance(num_classes, numbers.Integral) \
                or num_classes < 1:
            raise ValueError(f"OneHot: num_classes must be a positive int, got {num_classes!r}")
        if not 0.0 <= smoothing_rate <= 1.0:
            raise ValueError(f"OneHot: smoothing_rate must be in [0, 1], got {smoothing_rate}")
        self.num_classes, self.smoothing_rate = int(num_classes), float(smoothing_rate)

    def __call__(self, label):
        labels = np.asarray(label)
        if labels.shape == (1,):        # MindSpore reads a one-element label as a scalar
            labels = labels[0]
        if not np.issubdtype(labels.dtype, np.integer):
            raise TypeError(f"OneHot: labels must be integers, got dtype {labels.dtype}")
        if labels.size and (labels.min() < 0 or labels.max() >= self.num_classes):
            raise ValueError(f"OneHot: labels must be in [0, {self.num_classes}), got "
                             f"{labels.min()}..{labels.max()}")
        hot = labels[..., None] == np.arange(self.num_classes)
        if self.smoothing_rate:
            share = self.smoothing_rate / self.num_classes
            return np.where(hot, 1.0 - self.smoothing_rate + share, share)
        return hot.astype(labels.dtype)


class Compose:
    """Apply transforms in turn (a tuple result feeds the next one as several columns).

    >>> int(Compose([lambda x: x + 1, lambda x: x * 2])(np.array(1)))
    4
    """

    def __init__(self, transforms):
        transforms = list(transforms)
        if not transforms or not all(callable(t) for t in transforms):
            raise ValueError("Compose: transforms must be a non-empty list of callables")
        self.transforms = transforms

    def __call__(self, *columns):
        values = columns
        for transform in self.transforms:
            out = transform(*values)
            values = out if isinstance(out, tuple) else (out,)
        return values[0] if len(values) == 1 else values
