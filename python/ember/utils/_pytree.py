"""torch.utils._pytree: nested containers (lists, tuples, named tuples,
dicts, OrderedDicts, defaultdicts, and types registered with
register_pytree_node) flattened into their leaves and a TreeSpec that
rebuilds them, as the libraries written against PyTorch use it
(tree_flatten, tree_unflatten, tree_map, tree_leaves, ...). None is a
leaf, as in PyTorch."""

import collections

__all__ = ["TreeSpec", "LeafSpec", "register_pytree_node", "tree_flatten", "tree_unflatten", "tree_leaves",
           "tree_structure", "tree_map", "tree_map_", "tree_map_only", "tree_all", "tree_any", "tree_iter",
           "tree_is_leaf"]

# type -> (flatten(node) -> (children, context), unflatten(children, context) -> node)
_NODES = {}


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None, to_dumpable_context=None,
                         from_dumpable_context=None, flatten_with_keys_fn=None):
    """Makes instances of cls containers: flatten_fn(node) gives (children, context), unflatten_fn rebuilds."""
    if cls in _NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    _NODES[cls] = (flatten_fn, unflatten_fn)


register_pytree_node(list, lambda node: (list(node), None), lambda children, context: list(children))
register_pytree_node(tuple, lambda node: (list(node), None), lambda children, context: tuple(children))
register_pytree_node(dict, lambda node: (list(node.values()), list(node.keys())),
                     lambda children, context: dict(zip(context, children)))
register_pytree_node(collections.OrderedDict, lambda node: (list(node.values()), list(node.keys())),
                     lambda children, context: collections.OrderedDict(zip(context, children)))
register_pytree_node(collections.defaultdict,
                     lambda node: (list(node.values()), (node.default_factory, list(node.keys()))),
                     lambda children, context: collections.defaultdict(context[0], zip(context[1], children)))


def _node_type(tree):
    kind = type(tree)
    if kind in _NODES:
        return kind
    if isinstance(tree, tuple) and hasattr(tree, "_fields"):
        return "namedtuple"
    return None


class TreeSpec:
    """The shape of a tree: the node's type and context and its children's specs."""

    def __init__(self, type, context, children_specs):  # noqa: A002  (PyTorch's field names)
        self.type, self.context, self.children_specs = type, context, children_specs

    @property
    def num_leaves(self):
        return sum(child.num_leaves for child in self.children_specs)

    @property
    def num_children(self):
        return len(self.children_specs)

    def is_leaf(self):
        return False

    def unflatten(self, leaves):
        return tree_unflatten(leaves, self)

    def __eq__(self, other):
        return (isinstance(other, TreeSpec) and not other.is_leaf() and self.type == other.type
                and self.context == other.context and self.children_specs == other.children_specs)

    def __repr__(self):
        name = self.type if isinstance(self.type, str) else self.type.__name__
        return f"TreeSpec({name}, {self.context}, {self.children_specs})"


class LeafSpec(TreeSpec):
    def __init__(self):
        super().__init__(None, None, [])

    @property
    def num_leaves(self):
        return 1

    def is_leaf(self):
        return True

    def __eq__(self, other):
        return isinstance(other, LeafSpec)

    def __repr__(self):
        return "*"


def tree_is_leaf(tree, is_leaf=None):
    return (is_leaf is not None and is_leaf(tree)) or _node_type(tree) is None


def tree_flatten(tree, is_leaf=None):
    """(the leaves in order, the TreeSpec that rebuilds tree from them)."""
    leaves = []

    def walk(node):
        if tree_is_leaf(node, is_leaf):
            leaves.append(node)
            return LeafSpec()
        kind = _node_type(node)
        if kind == "namedtuple":
            children, context = list(node), type(node)
        else:
            children, context = _NODES[kind][0](node)
        return TreeSpec(kind, context, [walk(child) for child in children])

    spec = walk(tree)
    return leaves, spec


def tree_unflatten(leaves, treespec):
    leaves = list(leaves)
    if len(leaves) != treespec.num_leaves:
        raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers to a "
                         f"pytree that holds {treespec.num_leaves} items ({treespec}).")
    position = iter(leaves)

    def build(spec):
        if spec.is_leaf():
            return next(position)
        children = [build(child) for child in spec.children_specs]
        if spec.type == "namedtuple":
            return spec.context(*children)
        return _NODES[spec.type][1](children, spec.context)

    return build(treespec)


def tree_leaves(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[0]


def tree_iter(tree, is_leaf=None):
    return iter(tree_leaves(tree, is_leaf))


def tree_structure(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func, tree, *rests, is_leaf=None):
    """The tree with func applied to each leaf (and the matching leaves of rests, which share its structure)."""
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [tree_flatten(rest, is_leaf)[0] for rest in rests]
    return tree_unflatten([func(*values) for values in zip(leaves, *others)], spec)


def tree_map_(func, tree, *rests, is_leaf=None):
    """Applies func to each leaf for its effect; gives the tree back."""
    leaves = tree_leaves(tree, is_leaf)
    others = [tree_leaves(rest, is_leaf) for rest in rests]
    for values in zip(leaves, *others):
        func(*values)
    return tree


def tree_map_only(type_or_types, func, tree, is_leaf=None):
    """tree_map over the leaves of the given type(s); the others stay."""
    return tree_map(lambda leaf: func(leaf) if isinstance(leaf, type_or_types) else leaf, tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None):
    return all(map(pred, tree_leaves(tree, is_leaf)))


def tree_any(pred, tree, is_leaf=None):
    return any(map(pred, tree_leaves(tree, is_leaf)))
