"""MindSpore's dataset pipeline: sources, chained operations and iterators.

A pipeline is a chain of nodes; each node yields rows (tuples of numpy arrays, one per
column) for one epoch.  Sources slice arrays (``NumpySlicesDataset``) or call a Python
source (``GeneratorDataset``); ``map``, ``batch``, ``shuffle``, ``repeat``, ``project``,
``rename``, ``take`` and ``skip`` return new datasets; iterating gives Tensors (or numpy
arrays with ``output_numpy=True``).  Semantics follow MindSpore 2.x: a list is one column,
a tuple several, a dict named columns; shards take every ``num_shards``-th row, wrapping
round so each shard has the same count; ``map`` replaces its input columns in place when
it returns as many columns as it takes, else puts its outputs first.

>>> import numpy as np
>>> ds = NumpySlicesDataset({'x': np.arange(5.0), 'y': np.arange(5)}, shuffle=False)
>>> ds = ds.map(lambda x: x * 2, input_columns='x').batch(2, drop_remainder=True)
>>> [(b['x'].tolist(), b['y'].tolist()) for b in ds.create_dict_iterator()]
[([0.0, 2.0], [0, 1]), ([4.0, 6.0], [2, 3])]
"""
import math

import numpy as np

from ..tensor import Tensor
from . import config

def _as_array(value, where):
    """A column value as a numpy array (Tensors unwrapped; Python numbers as MindSpore
    does: int -> int64, float -> float64)."""
    if isinstance(value, Tensor):
        return value.numpy()
    array = np.asarray(value)
    if array.dtype == object:
        raise TypeError(f"{where}: a column value must be a number or an array of numbers, "
                        f"got {type(value).__name__}")
    return array


def _names(value, what):
    """A list of column names from a str or a list of str."""
    names = [value] if isinstance(value, str) else list(value)
    if not all(isinstance(n, str) for n in names):
        raise TypeError(f"{what} must be a column name or a list of names, got {value!r}")
    return names


class Dataset:
    """The operations every MindSpore dataset has; subclasses give ``_epoch(rng)``
    (the rows of one epoch) and ``column_names``.

    >>> NumpySlicesDataset([1, 2, 3], shuffle=False).get_col_names()
    ['column_0']
    """

    column_names = ()

    def _epoch(self, rng):
        raise NotImplementedError

    def _size(self):
        """Rows per epoch, or None where only iterating tells."""
        return None

    # ---------------------------------------------------------------- operations

    def map(self, operations, input_columns=None, output_columns=None, **unused):
        """Apply ``operations`` (a callable or a list applied in turn) to the
        ``input_columns`` (default: the first column) of every row.

        >>> ds = NumpySlicesDataset(([1, 2], [3, 4]), ['a', 'b'], shuffle=False)
        >>> [r[0].item() for r in ds.map(lambda a, b: a + b, ['a', 'b'], ['s'])]
        [4, 6]
        """
        return _Map(self, operations, input_columns, output_columns)

    def batch(self, batch_size, drop_remainder=False, **unused):
        """Stack ``batch_size`` consecutive rows per column (the last, shorter batch is
        kept unless ``drop_remainder``).

        >>> [b[0].tolist() for b in NumpySlicesDataset([1, 2, 3], shuffle=False).batch(2)]
        [[1, 2], [3]]
        """
        return _Batch(self, batch_size, drop_remainder)

    def shuffle(self, buffer_size):
        """Shuffle through a buffer of ``buffer_size`` rows (a full shuffle when it holds the
        whole dataset), anew each epoch.

        >>> sorted(r[0].item() for r in NumpySlicesDataset([1, 2, 3], shuffle=False).shuffle(3))
        [1, 2, 3]
        """
        return _Shuffle(self, buffer_size)

    def repeat(self, count=None):
        """The epoch ``count`` times over (None or -1: without end).

        >>> [r[0].item() for r in NumpySlicesDataset([1, 2], shuffle=False).repeat(2)]
        [1, 2, 1, 2]
        """
        return _Repeat(self, count)

    def project(self, columns):
        """Keep only ``columns``, in the order given.

        >>> NumpySlicesDataset({'a': [1], 'b': [2]}, shuffle=False).project(['b']).get_col_names()
        ['b']
        """
        return _Project(self, columns)

    def rename(self, input_columns, output_columns):
        """Rename columns.

        >>> NumpySlicesDataset({'a': [1]}, shuffle=False).rename('a', 'z').get_col_names()
        ['z']
        """
        return _Rename(self, input_columns, output_columns)

    def take(self, count=-1):
        """At most ``count`` rows (-1: all).

        >>> NumpySlicesDataset([1, 2, 3], shuffle=False).take(2).get_dataset_size()
        2
        """
        return _Slice(self, 0, count)

    def skip(self, count):
        """All rows but the first ``count``.

        >>> [r[0].item() for r in NumpySlicesDataset([1, 2, 3], shuffle=False).skip(2)]
        [3]
        """
        return _Slice(self, count, -1)

    # ---------------------------------------------------------------- information

    def get_col_names(self):
        """The column names, in row order.

        >>> NumpySlicesDataset({'img': [1], 'lab': [0]}, shuffle=False).get_col_names()
        ['img', 'lab']
        """
        return list(self.column_names)

    def get_dataset_size(self):
        """Rows (or batches) per pass.

        >>> NumpySlicesDataset(list(range(5)), shuffle=False).batch(2).get_dataset_size()
        3
        """
        size = self._size()
        if size is None:
            size = sum(1 for _ in self._epoch(np.random.default_rng(0)))
        if math.isinf(size):
            raise ValueError("get_dataset_size: the dataset repeats without end (repeat())")
        return int(size)

    def get_batch_size(self):
        """The batch size (1 before any ``batch``).

        >>> NumpySlicesDataset([1, 2, 3], shuffle=False).batch(2).repeat(2).get_batch_size()
        2
        """
        node = self
        while not isinstance(node, _Batch) and hasattr(node, "child"):
            node = node.child
        return node.batch_size if isinstance(node, _Batch) else 1

    def output_shapes(self):
        """The shape of each column in the first row.

        >>> NumpySlicesDataset({'a': [[1, 2]]}, shuffle=False).output_shapes()
        [[2]]
        """
        return [list(c.shape) for c in self._first_row()]

    def output_types(self):
        """The numpy dtype of each column in the first row.

        >>> NumpySlicesDataset(([1], [0.5]), shuffle=False).output_types()
        [dtype('int64'), dtype('float64')]
        """
        return [c.dtype for c in self._first_row()]

    def _first_row(self):
        for row in self._epoch(np.random.default_rng(0)):
            return row
        raise ValueError("the dataset is empty")

    # ---------------------------------------------------------------- iterating

    def create_tuple_iterator(self, columns=None, num_epochs=-1, output_numpy=False, do_copy=True):
        """One pass over the rows, each a list of Tensors (numpy arrays with
        ``output_numpy``), one per column (or per name in ``columns``).

        >>> next(NumpySlicesDataset(([1.0], [2]), shuffle=False).create_tuple_iterator(output_numpy=True))
        [array(1.), array(2)]
        """
        pick = None
        if columns is not None:
            wanted = _names(columns, "columns")
            pick = [self._index(n, "create_tuple_iterator") for n in wanted]
        for row in self._epoch(config.generator()):
            values = row if pick is None else [row[i] for i in pick]
            yield [v if output_numpy else self._tensor(v) for v in values]

    _face = None    # the face the iterators' tensors speak: the pipeline's source's

    def _tensor(self, array):
        t = Tensor(array)
        if self._face is not None:
            t._face = self._face
        return t

    def create_dict_iterator(self, num_epochs=-1, output_numpy=False, do_copy=True):
        """One pass over the rows, each a dict keyed by column name.

        >>> next(NumpySlicesDataset({'a': [1, 2]}, shuffle=False).create_dict_iterator())['a'].item()
        1
        """
        for row in self.create_tuple_iterator(num_epochs=num_epochs, output_numpy=output_numpy):
            yield dict(zip(self.column_names, row))

    def __iter__(self):
        return self.create_tuple_iterator()

    def __len__(self):
        return self.get_dataset_size()

    def _index(self, name, where):
        if name not in self.column_names:
            raise ValueError(f"{where}: no column {name!r}; the columns are {list(self.column_names)}")
        return list(self.column_names).index(name)


# ------------------------------------------------------------------ sources

class _Source(Dataset):
    """Rows read by index from a random-access source, with MindSpore's sampling:
    a global shuffle, shards and ``num_samples``."""

    def __init__(self, count, read, names, shuffle, num_samples, num_shards, shard_id):
        self._count, self._read, self.column_names = count, read, list(names)
        self._shuffle = True if shuffle is None else bool(shuffle)
        if num_samples is not None and (not isinstance(num_samples, int) or num_samples < 0):
            raise ValueError(f"num_samples must be a non-negative int, got {num_samples!r}")
        if (num_shards is None) != (shard_id is None):
            raise ValueError("num_shards and shard_id must be given together")
        if num_shards is not None:
            if not isinstance(num_shards, int) or num_shards < 1:
                raise ValueError(f"num_shards must be a positive int, got {num_shards!r}")
            if not isinstance(shard_id, int) or not 0 <= shard_id < num_shards:
                raise ValueError(f"shard_id must be in [0, {num_shards}), got {shard_id!r}")
        self._samples, self._shards, self._shard = num_samples, num_shards, shard_id

    def _indices(self, rng):
        order = rng.permutation(self._count) if self._shuffle else np.arange(self._count)
        if self._shards is not None and self._count:
            per_shard = -(-self._count // self._shards)
            order = order[(np.arange(per_shard) * self._shards + self._shard) % self._count]
        if self._samples:
            order = order[:self._samples]
        return order

    def _size(self):
        n = self._count
        if self._shards is not None and n:
            n = -(-n // self._shards)
        return min(n, self._samples) if self._samples else n

    def _epoch(self, rng):
        # one seed for every shard of an epoch, so the shards split one permutation
        for i in self._indices(np.random.default_rng(rng.integers(2 ** 63))):
            yield self._read(int(i))


class _IterableSource(Dataset):
    """Rows from a generator function or an iterable, in their own order."""

    def __init__(self, source, names, num_samples):
        self._source, self.column_names, self._samples = source, list(names), num_samples

    def _epoch(self, rng):
        items = self._source() if callable(self._source) else iter(self._source)
        for k, item in enumerate(items):
            if self._samples and k >= self._samples:
                return
            yield _row(item, len(self.column_names), "GeneratorDataset")


def _row(item, width, where):
    values = tuple(item) if isinstance(item, (tuple, list)) else (item,)
    if len(values) != width:
        raise ValueError(f"{where}: the source gave a row of {len(values)} columns for "
                         f"{width} column names")
    return tuple(_as_array(v, where) for v in values)


def NumpySlicesDataset(data, column_names=None, num_samples=None, num_parallel_workers=1,
                       shuffle=None, sampler=None, num_shards=None, shard_id=None):
    """MindSpore's ``NumpySlicesDataset``: rows are slices along the first axis; a list or
    array is one column, a tuple several, a dict named columns (default names
    ``column_0``, ...).  ``shuffle`` defaults to a global shuffle.

    >>> ds = NumpySlicesDataset(([1, 2, 3], [4., 5., 6.]), ['a', 'b'], shuffle=False)
    >>> [(int(a), float(b)) for a, b in ds]
    [(1, 4.0), (2, 5.0), (3, 6.0)]
    """
    if sampler is not None:
        raise NotImplementedError("NumpySlicesDataset: samplers are not supported; use "
                                  "shuffle, num_samples, num_shards and shard_id")
    if isinstance(data, dict):
        names, columns = list(data.keys()), list(data.values())
        if column_names is not None and list(column_names) != names:
            names = _names(column_names, "column_names")
    else:
        columns = list(data) if isinstance(data, tuple) else [data]
        names = _names(column_names, "column_names") if column_names is not None else \
            [f"column_{i}" for i in range(len(columns))]
    if len(names) != len(columns):
        raise ValueError(f"NumpySlicesDataset: {len(names)} column names for {len(columns)} columns")
    arrays = [_as_array(c, "NumpySlicesDataset") for c in columns]
    for name, a in zip(names, arrays):
        if a.ndim == 0:
            raise ValueError(f"NumpySlicesDataset: column {name!r} is a scalar; it needs a "
                             f"first axis to slice")
    lengths = {len(a) for a in arrays}
    if len(lengths) > 1:
        raise ValueError(f"NumpySlicesDataset: the columns have different lengths "
                         f"{dict(zip(names, (len(a) for a in arrays)))}")
    count = lengths.pop() if lengths else 0
    return _Source(count, lambda i: tuple(np.asarray(a[i]) for a in arrays), names, shuffle, num_samples,
                   num_shards, shard_id)


def GeneratorDataset(source, column_names=None, column_types=None, schema=None,
                     num_samples=None, num_parallel_workers=1, shuffle=None, sampler=None,
                     num_shards=None, shard_id=None, **unused):
    """MindSpore's ``GeneratorDataset`` over a random-access source (``__getitem__`` and
    ``__len__``: shuffled by default, shardable), or a generator function / iterable (read
    in its own order).  Each item is a tuple of columns (a bare value is one column).

    >>> class Squares:
    ...     def __getitem__(self, i): return (i, i * i)
    ...     def __len__(self): return 3
    >>> [int(sq) for _, sq in GeneratorDataset(Squares(), ['i', 'sq'], shuffle=False)]
    [0, 1, 4]
    """
    if column_names is None and schema is None:
        raise ValueError("GeneratorDataset: give column_names (MindSpore: neither "
                         "column_names nor schema are provided)")
    if sampler is not None:
        raise NotImplementedError("GeneratorDataset: samplers are not supported; use "
                                  "shuffle, num_samples, num_shards and shard_id")
    names = _names(column_names, "column_names")
    if hasattr(source, "__getitem__") and hasattr(source, "__len__"):
        return _Source(len(source), lambda i: _row(source[i], len(names), "GeneratorDataset"),
                       names, shuffle, num_samples, num_shards, shard_id)
    if num_shards is not None:
        raise ValueError("GeneratorDataset: num_shards/shard_id need a random-access source "
                         "(__getitem__ and __len__), not a generator")
    if not callable(source) and not hasattr(source, "__iter__"):
        raise TypeError(f"GeneratorDataset: source must be random-access, iterable or a "
                        f"generator function, got {type(source).__name__}")
    return _IterableSource(source, names, num_samples)


# ------------------------------------------------------------------ operations

class _Node(Dataset):
    """An operation over one child dataset."""

    def __init__(self, child):
        self.child = child
        self.column_names = list(child.column_names)
        self._face = child._face

    def _size(self):
        return self.child._size()


class _Map(_Node):
    def __init__(self, child, operations, input_columns, output_columns):
        super().__init__(child)
        ops = list(operations) if isinstance(operations, (list, tuple)) else [operations]
        for op in ops:
            if not callable(op):
                raise TypeError(f"map: operations must be callables, got {type(op).__name__}")
        self._ops = ops
        inputs = _names(input_columns, "input_columns") if input_columns is not None \
            else self.column_names[:1]
        outputs = _names(output_columns, "output_columns") if output_columns is not None else inputs
        self._in = [child._index(n, "map") for n in inputs]
        self._n_out = len(outputs)
        if len(outputs) == len(inputs):      # in place, output k where input k was
            names = list(child.column_names)
            for k, pos in enumerate(self._in):
                names[pos] = outputs[k]
            self._layout = None
        else:                                # outputs first, then the untouched columns
            rest = [i for i in range(len(child.column_names)) if i not in self._in]
            names = outputs + [child.column_names[i] for i in rest]
            self._layout = rest
        if len(set(names)) != len(names):
            raise ValueError(f"map: the columns would be {names}, with a name twice")
        self.column_names = names

    def _epoch(self, rng):
        for row in self.child._epoch(rng):
            values = tuple(row[i] for i in self._in)
            for op in self._ops:
                out = op(*values)
                values = tuple(out) if isinstance(out, tuple) else (out,)
            if len(values) != self._n_out:
                raise ValueError(f"map: the operations returned {len(values)} columns for "
                                 f"{self._n_out} output_columns")
            values = [_as_array(v, "map") for v in values]
            if self._layout is None:
                new = list(row)
                for k, pos in enumerate(self._in):
                    new[pos] = values[k]
                yield tuple(new)
            else:
                yield tuple(values) + tuple(row[i] for i in self._layout)


class _Batch(_Node):
    def __init__(self, child, batch_size, drop_remainder):
        super().__init__(child)
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch: batch_size must be a positive int, got {batch_size!r}")
        self.batch_size, self._drop = batch_size, bool(drop_remainder)

    def _size(self):
        n = self.child._size()
        if n is None or math.isinf(n):
            return n
        return n // self.batch_size if self._drop else -(-n // self.batch_size)

    def _epoch(self, rng):
        pending = []
        for row in self.child._epoch(rng):
            pending.append(row)
            if len(pending) == self.batch_size:
                yield self._stack(pending)
                pending = []
        if pending and not self._drop:
            yield self._stack(pending)

    def _stack(self, rows):
        out = []
        for c, name in enumerate(self.column_names):
            shapes = {r[c].shape for r in rows}
            if len(shapes) > 1:
                raise ValueError(f"batch: column {name!r} has rows of different shapes "
                                 f"{sorted(shapes)}; they cannot be stacked")
            out.append(np.stack([r[c] for r in rows]))
        return tuple(out)


class _Shuffle(_Node):
    def __init__(self, child, buffer_size):
        super().__init__(child)
        if isinstance(buffer_size, bool) or not isinstance(buffer_size, int) or buffer_size < 2:
            raise ValueError(f"shuffle: buffer_size must be an int >= 2, got {buffer_size!r}")
        self._buffer = buffer_size

    def _epoch(self, rng):
        buffer = []
        for row in self.child._epoch(rng):
            if len(buffer) < self._buffer:
                buffer.append(row)
                continue
            k = int(rng.integers(len(buffer)))
            yield buffer[k]
            buffer[k] = row
        for k in rng.permutation(len(buffer)):
            yield buffer[k]


class _Repeat(_Node):
    def __init__(self, child, count):
        super().__init__(child)
        if count is not None and (isinstance(count, bool) or not isinstance(count, int)
                                  or count == 0 or count < -1):
            raise ValueError(f"repeat: count must be a positive int, -1 or None, got {count!r}")
        self._count = None if count in (None, -1) else count

    def _size(self):
        n = self.child._size()
        if self._count is None:
            return math.inf if n else n
        return None if n is None else n * self._count

    def _epoch(self, rng):
        k = 0
        while self._count is None or k < self._count:
            yield from self.child._epoch(rng)
            k += 1


class _Project(_Node):
    def __init__(self, child, columns):
        super().__init__(child)
        names = _names(columns, "project: columns")
        self._pick = [child._index(n, "project") for n in names]
        self.column_names = names

    def _epoch(self, rng):
        for row in self.child._epoch(rng):
            yield tuple(row[i] for i in self._pick)


class _Rename(_Node):
    def __init__(self, child, input_columns, output_columns):
        super().__init__(child)
        old, new = _names(input_columns, "input_columns"), _names(output_columns, "output_columns")
        if len(old) != len(new):
            raise ValueError(f"rename: {len(old)} input_columns for {len(new)} output_columns")
        for a, b in zip(old, new):
            self.column_names[child._index(a, "rename")] = b

    def _epoch(self, rng):
        return self.child._epoch(rng)


class _Slice(_Node):
    """Rows ``start`` .. ``start + count`` (count -1: to the end): take and skip."""

    def __init__(self, child, start, count):
        super().__init__(child)
        for name, v in (("count", count), ("skip count", start)):
            if isinstance(v, bool) or not isinstance(v, int) or v < -1:
                raise ValueError(f"{name} must be a non-negative int (or -1), got {v!r}")
        self._start, self._count = start, count

    def _size(self):
        n = self.child._size()
        if n is None:
            return None
        n = max(0, n - self._start)
        return n if self._count == -1 else min(n, self._count)

    def _epoch(self, rng):
        for k, row in enumerate(self.child._epoch(rng)):
            if k < self._start:
                continue
            if self._count != -1 and k >= self._start + self._count:
                return
            yield row
