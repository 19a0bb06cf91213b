"""ember.utils._pytree against torch.utils._pytree: flattening nested
containers (named tuples, OrderedDicts, None leaves), rebuilding, mapping
over one tree or several, and the errors."""

import collections
import importlib

import pytest

import ember

Point = collections.namedtuple("Point", "x y")


def pytree_report(torch):
    p = importlib.import_module(torch.__name__ + ".utils._pytree")
    x = {"a": [1, (2, 3)], "b": None, "c": Point(4, 5), "d": collections.OrderedDict(k=6)}
    leaves, spec = p.tree_flatten(x)
    report = [leaves, spec.num_leaves, p.tree_unflatten([v * 10 if v is not None else v for v in leaves], spec),
              p.tree_map(lambda v: v + 1 if v is not None else v, x), p.tree_leaves(x), p.tree_structure(x) == spec,
              p.tree_map(lambda a, b: (a or 0) + (b or 0), x, x), p.tree_map_only(int, lambda v: -v, [1, "s", 2.5]),
              p.tree_all(lambda v: v is None or v > 0, x), p.tree_any(lambda v: v == 6, x),
              p.tree_flatten([torch.ones(1), {"w": torch.zeros(2)}])[1].num_leaves]
    with pytest.raises(ValueError):
        p.tree_unflatten([1], spec)
    return report


def test_pytrees_match_pytorchs(torch):
    assert pytree_report(ember) == pytree_report(torch)


def test_a_registered_type_is_a_node():
    from ember.utils import _pytree

    class Pair:
        def __init__(self, first, second):
            self.first, self.second = first, second

    _pytree.register_pytree_node(Pair, lambda pair: ([pair.first, pair.second], None),
                                 lambda children, context: Pair(*children))
    doubled = _pytree.tree_map(lambda v: v * 2, [Pair(1, 2), 3])
    assert (doubled[0].first, doubled[0].second, doubled[1]) == (2, 4, 6)
    with pytest.raises(ValueError, match="already registered"):
        _pytree.register_pytree_node(Pair, lambda pair: ([], None), lambda children, context: Pair(0, 0))
