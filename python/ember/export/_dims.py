"""Dynamic dims of an exported program and the dynamic_shapes argument."""

_DEFAULT_MAX = 2**31 - 1


class Dim:
    """A size that may change between calls: min <= size <= max.

    One Dim object used for several inputs' dims says they are equal."""

    def __init__(self, name, *, min=None, max=None):
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"Dim: the name must be an identifier, got {name!r}")
        low = 0 if min is None else min
        high = _DEFAULT_MAX if max is None else max
        if not isinstance(low, int) or not isinstance(high, int) or isinstance(low, bool) or isinstance(high, bool):
            raise TypeError(f"Dim {name!r}: min and max must be integers")
        if low < 0 or high < low:
            raise ValueError(f"Dim {name!r}: needs 0 <= min <= max, got min={low}, max={high}")
        self.__name__ = name
        self.min = low
        self.max = high

    def __repr__(self):
        return f"Dim({self.__name__!r}, min={self.min}, max={self.max})"


def dims_by_input(dynamic_shapes, names, tensors):
    """{input position: {dim index: Dim}} from PyTorch's forms of
    dynamic_shapes: a dict by argument name, or a tuple/list by position,
    each entry None or {dim index: Dim} (or a list of Dim-or-None per dim)."""
    if dynamic_shapes is None:
        return {}
    if isinstance(dynamic_shapes, dict):
        unknown = [key for key in dynamic_shapes if key not in names]
        if unknown:
            raise ValueError(f"export: dynamic_shapes names {unknown[0]!r}, which is not an input "
                             f"(inputs: {', '.join(names)})")
        entries = {names.index(key): spec for key, spec in dynamic_shapes.items()}
    elif isinstance(dynamic_shapes, (tuple, list)):
        if len(dynamic_shapes) != len(names):
            raise ValueError(f"export: dynamic_shapes has {len(dynamic_shapes)} entries for {len(names)} inputs")
        entries = dict(enumerate(dynamic_shapes))
    else:
        raise TypeError(f"export: dynamic_shapes must be a dict or a tuple, got {type(dynamic_shapes).__name__}")
    out = {}
    for position, spec in entries.items():
        if spec is None:
            continue
        if isinstance(spec, (tuple, list)):
            spec = {d: dim for d, dim in enumerate(spec) if dim is not None}
        if not isinstance(spec, dict):
            raise TypeError(f"export: dynamic_shapes for input {names[position]!r} must be a dict "
                            f"{{dim index: Dim}}, got {type(spec).__name__}")
        rank = tensors[position].dim()
        dims = {}
        for index, dim in spec.items():
            if dim is None:
                continue
            if not isinstance(dim, Dim):
                raise TypeError(f"export: dynamic_shapes[{names[position]!r}][{index!r}] must be a Dim, "
                                f"got {type(dim).__name__}")
            if not isinstance(index, int) or not -rank <= index < rank:
                raise ValueError(f"export: dynamic_shapes names dim {index!r} of input {names[position]!r}, "
                                 f"which has {rank} dims")
            dims[index % rank] = dim
        if dims:
            out[position] = dims
    return out


def trace_sizes(dim, example):
    """(sizes, check): two more sizes of `dim` in its range to fit at, and a
    third to check the fit with (None when the range has no room for it)."""
    if not dim.min <= example <= dim.max:
        raise ValueError(f"export: the example size {example} of dim {dim.__name__!r} is outside "
                         f"its range [{dim.min}, {dim.max}]")
    candidates = [s for s in (example + 1, example + 2, example + 3, example - 1, example - 2, example - 3)
                  if dim.min <= s <= dim.max and s >= 2 and s != example]
    if len(candidates) < 2:
        raise ValueError(f"export: dim {dim.__name__!r} cannot be dynamic over [{dim.min}, {dim.max}] with "
                         f"example size {example}: export traces it at two more sizes >= 2 in range; "
                         f"widen the range or leave the dim static")
    return candidates[:2], (candidates[2] if len(candidates) > 2 else None)
