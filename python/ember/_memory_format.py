"""Memory formats (torch.memory_format): contiguous_format (row-major),
channels_last (NHWC order of a 4-d NCHW tensor), channels_last_3d (NDHWC
of a 5-d tensor) and preserve_format (the input's own, for clone and the
*_like factories), as the `memory_format=` arguments of contiguous,
is_contiguous, clone, to, empty, the *_like factories and Module.to take
them.

A tensor in channels_last keeps its NCHW shape and indexing; only its
strides put the channels innermost. Ember's kernels take any strides, so
results are the same in every format; unlike PyTorch's, Ember's operations
return row-major results whatever their inputs' format.
"""

from . import _C

# The C++ methods, taken before ember/_tensor.py puts the memory_format forms over them.
_row_major = _C.Tensor.contiguous
_is_row_major = _C.Tensor.is_contiguous


class NamedConstant:
    """A constant that prints as ember.<name> (memory formats, layouts)."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"ember.{self._name}"


class memory_format(NamedConstant):  # noqa: N801  (PyTorch's name)
    pass


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")

# The order of the dims from the outermost to the innermost in memory.
_ORDERS = {channels_last: (4, [0, 2, 3, 1]), channels_last_3d: (5, [0, 2, 3, 4, 1])}


def _check(fmt):
    if not isinstance(fmt, memory_format):
        raise TypeError(f"memory_format must be an ember.memory_format, not {type(fmt).__name__}")


def _order(fmt, ndim, op):
    rank, order = _ORDERS[fmt]
    if ndim != rank:
        raise RuntimeError(f"{op}: required rank {rank} tensor to use {fmt._name} format (got rank {ndim})")
    return order


def strides_for(shape, fmt=contiguous_format):
    """The strides, in elements, of a dense tensor of `shape` laid out in `fmt` (row-major by default), as a list."""
    order = _order(fmt, len(shape), "empty") if fmt in _ORDERS else range(len(shape))
    strides, step = [0] * len(shape), 1
    for dim in reversed(order):
        strides[dim] = step
        step *= max(shape[dim], 1)
    return strides


def is_contiguous_in(tensor, fmt):
    """Whether the tensor is dense in `fmt`'s order (dims of size 1 may have any stride, as in PyTorch)."""
    _check(fmt)
    if fmt in (contiguous_format, preserve_format):
        return _is_row_major(tensor)
    rank, order = _ORDERS[fmt]
    if tensor.dim() != rank:
        return False
    if tensor.numel() == 0:
        return True
    expected, shape, strides = 1, tensor.shape, tensor.stride()
    for dim in reversed(order):
        if shape[dim] != 1:
            if strides[dim] != expected:
                return False
            expected *= shape[dim]
    return True


def format_of(tensor):
    """The format preserve_format keeps: channels_last(_3d) for a tensor dense
    in that order and not also row-major, else contiguous_format."""
    for fmt, (rank, _) in _ORDERS.items():
        if tensor.dim() == rank and is_contiguous_in(tensor, fmt) and not _is_row_major(tensor):
            return fmt
    return contiguous_format


def _permutations(fmt, ndim, op):
    order = _order(fmt, ndim, op)
    return order, sorted(range(len(order)), key=order.__getitem__)


def cloned_in(tensor, fmt, clone):
    """A copy of the tensor laid out in `fmt` (channels_last or channels_last_3d), made by `clone`."""
    order, inverse = _permutations(fmt, tensor.dim(), "clone")
    return clone(tensor.permute(order)).permute(inverse)


def in_format(tensor, fmt, op="contiguous"):
    """The tensor itself if dense in `fmt`, else a copy laid out so."""
    _check(fmt)
    if fmt is preserve_format:
        return tensor
    if fmt is contiguous_format:
        return _row_major(tensor)
    order, inverse = _permutations(fmt, tensor.dim(), op)
    if is_contiguous_in(tensor, fmt):
        return tensor
    return _row_major(tensor.permute(order)).permute(inverse)
