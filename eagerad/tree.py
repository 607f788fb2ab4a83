"""Pytrees: nested dicts, lists, tuples and namedtuples of tensors (JAX's ``tree_util``).

Transforms use these to take parameters as a dict and return gradients of the same
structure.  Containers are dicts (keys kept in insertion order), lists, tuples and
namedtuples; ``None`` is an empty subtree; everything else is a leaf.

>>> import eagerad
>>> leaves, treedef = flatten({'w': 1.0, 'b': (2.0, None)})
>>> leaves
[1.0, 2.0]
>>> unflatten(treedef, [10.0, 20.0])
{'w': 10.0, 'b': (20.0, None)}
>>> map(lambda x: x * 2, [1, (2, 3)])
[2, (4, 6)]
"""
import builtins

__all__ = ["flatten", "unflatten", "map", "leaves", "structure", "TreeDef",
           "tree_flatten", "tree_unflatten", "tree_map", "tree_leaves", "tree_structure"]


class TreeDef:
    """The structure of a pytree without its leaves: rebuilds a tree from new leaves.

    >>> structure([1, {'a': 2}])
    TreeDef([*, {'a': *}])
    >>> structure([1, {'a': 2}]).num_leaves
    2
    """
    __slots__ = ("kind", "meta", "children", "num_leaves")

    def __init__(self, kind, meta, children):
        self.kind, self.meta, self.children = kind, meta, children
        self.num_leaves = 1 if kind == "leaf" else builtins.sum(c.num_leaves for c in children)

    def unflatten(self, leaves):
        """The tree of this structure with ``leaves`` in flatten order.

        >>> structure((1, 2)).unflatten(['a', 'b'])
        ('a', 'b')
        """
        leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"the tree structure has {self.num_leaves} leaves, got "
                             f"{len(leaves)} values")
        return self._build(iter(leaves))

    def _build(self, it):
        if self.kind == "leaf":
            return next(it)
        if self.kind == "none":
            return None
        items = [c._build(it) for c in self.children]
        if self.kind == "dict":
            return dict(zip(self.meta, items))
        if self.kind == "namedtuple":
            return self.meta(*items)
        return self.meta(items)      # list or tuple

    def __eq__(self, other):
        return isinstance(other, TreeDef) and self.kind == other.kind and \
            self.meta == other.meta and self.children == other.children

    def __hash__(self):
        return hash((self.kind, self.num_leaves))

    def __repr__(self):
        return f"TreeDef({self._show()})"

    def _show(self):
        if self.kind == "leaf":
            return "*"
        if self.kind == "none":
            return "None"
        parts = [c._show() for c in self.children]
        if self.kind == "dict":
            return "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(self.meta, parts)) + "}"
        if self.kind == "namedtuple":
            return f"{self.meta.__name__}({', '.join(parts)})"
        inner = ", ".join(parts) + ("," if self.meta is tuple and len(parts) == 1 else "")
        return f"[{inner}]" if self.meta is list else f"({inner})"


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _structure(tree, out):
    if tree is None:
        return TreeDef("none", None, ())
    if isinstance(tree, dict):
        keys = list(tree)
        return TreeDef("dict", tuple(keys), tuple(_structure(tree[k], out) for k in keys))
    if _is_namedtuple(tree):
        return TreeDef("namedtuple", type(tree), tuple(_structure(v, out) for v in tree))
    if type(tree) in (list, tuple):
        return TreeDef(type(tree).__name__, type(tree), tuple(_structure(v, out) for v in tree))
    out.append(tree)
    return TreeDef("leaf", None, ())


def flatten(tree):
    """``(leaves, treedef)``: the leaves in order (dict keys in insertion order).

    >>> flatten([1, (2, 3)])[0]
    [1, 2, 3]
    """
    leaves = []
    treedef = _structure(tree, leaves)
    return leaves, treedef


def unflatten(treedef, leaves):
    """The tree of ``treedef``'s structure holding ``leaves``.

    >>> unflatten(structure({'a': 0}), [5])
    {'a': 5}
    """
    return treedef.unflatten(leaves)


def leaves(tree):
    """The leaves of ``tree`` in order.

    >>> leaves({'a': [1, 2], 'b': 3})
    [1, 2, 3]
    """
    return flatten(tree)[0]


def structure(tree):
    """The ``TreeDef`` of ``tree``.

    >>> structure((1,))
    TreeDef((*,))
    """
    return flatten(tree)[1]


def map(fn, tree, *rest):
    """``fn`` applied leaf by leaf; ``rest`` are trees of the same structure whose
    leaves become further arguments.

    >>> map(lambda a, b: a + b, {'x': 1, 'y': 2}, {'x': 10, 'y': 20})
    {'x': 11, 'y': 22}
    """
    values, treedef = flatten(tree)
    others = []
    for i, other in enumerate(rest):
        other_values, other_def = flatten(other)
        if other_def != treedef:
            raise ValueError(f"tree {i + 1} has structure {other_def}, expected {treedef}")
        others.append(other_values)
    return treedef.unflatten([fn(*args) for args in zip(values, *others)])


tree_flatten, tree_unflatten, tree_map, tree_leaves, tree_structure = \
    flatten, unflatten, map, leaves, structure
