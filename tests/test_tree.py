"""Pytrees: flatten/unflatten round trips over every container kind, map over several
trees, structure mismatch errors."""
import collections

import pytest

import eagerad
from eagerad import tree

Point = collections.namedtuple("Point", "x y")


@pytest.mark.parametrize("value", [
    1.0, [1, 2], (1,), {"b": 1, "a": [2, (3, None)]}, Point(1, [2, 3]), [], {}, None,
    {"w": eagerad.ones(2), "layers": [{"k": eagerad.zeros(1)}]},
])
def test_round_trip_keeps_structure_and_order(value):
    leaves, treedef = tree.flatten(value)
    rebuilt = tree.unflatten(treedef, leaves)
    assert tree.structure(rebuilt) == treedef
    assert tree.leaves(rebuilt) == leaves or all(a is b for a, b in zip(tree.leaves(rebuilt), leaves))
    assert type(rebuilt) is type(value)


def test_leaves_follow_dict_insertion_order_and_skip_none():
    assert tree.leaves({"b": 1, "a": (2, None, [3])}) == [1, 2, 3]


def test_map_over_several_trees_and_mismatch():
    a = {"w": 1.0, "b": [2.0, 3.0]}
    b = {"w": 10.0, "b": [20.0, 30.0]}
    assert tree.map(lambda x, y: x * y, a, b) == {"w": 10.0, "b": [40.0, 90.0]}
    with pytest.raises(ValueError, match="structure"):
        tree.map(lambda x, y: x, a, {"w": 1.0, "b": [2.0]})
    with pytest.raises(ValueError, match="3 leaves"):
        tree.unflatten(tree.structure(a), [1, 2])


def test_namedtuple_is_rebuilt_as_itself():
    p = tree.map(lambda v: v + 1, Point(1, 2))
    assert isinstance(p, Point) and p == Point(2, 3)
