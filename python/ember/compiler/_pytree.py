"""Flattening of nested arguments and results into leaves and back."""


_CONTAINERS = (list, tuple, dict)


def flatten_call(args, kwargs):
    """flatten((args, kwargs)), with a fast path for positional arguments that are all leaves."""
    if not kwargs:
        for a in args:
            if isinstance(a, _CONTAINERS):
                break
        else:
            return list(args), ("args", len(args))
    return flatten((args, kwargs))


def flatten(value):
    """(leaves, spec): every non-container value of `value`, and how to rebuild it."""
    leaves = []

    def walk(v):
        if isinstance(v, (list, tuple)) and not hasattr(v, "_fields"):
            return (type(v), [walk(item) for item in v])
        if isinstance(v, dict):
            return (dict, [(key, walk(item)) for key, item in v.items()])
        leaves.append(v)
        return None

    return leaves, walk(value)


def unflatten(spec, leaves):
    if spec is None:
        return leaves[0]
    if spec[0] == "args":
        return tuple(leaves), {}
    it = iter(leaves)

    def build(s):
        if s is None:
            return next(it)
        kind, items = s
        if kind is dict:
            return {key: build(item) for key, item in items}
        return kind(build(item) for item in items)

    return build(spec)
