"""scatter, scatter_reduce and their in-place forms, composed of index_put,
scatter_add, sort and elementwise ops (Note [Segmented scatter reductions])."""

from . import _C
from ._C import Tensor
from ._type_info import iinfo
from ._dtype_names import dtype_name as _dtype_name

# Note [Segmented scatter reductions]
# Each element of src goes to one flat position of the output. For sum and
# mean, index_put's accumulation adds the elements of a position together.
# prod, amax and amin have no accumulating primitive: the elements are sorted
# (stably) by their position, so that each position's elements form one run,
# and a segmented inclusive scan (Hillis-Steele: log2 of the longest run
# rounds of shifted, masked products or extrema) leaves each run's reduction on
# its last element, which index_put then writes. Every step is a primitive
# with a derivative, so gradients flow to input and src (for ties in amax and
# amin they split as maximum and minimum split them, not evenly as PyTorch's).

_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def _normalize_dim(op, input, dim):
    """dim in [0, rank) (a 0-d input counts as 1-d), or IndexError."""
    rank = max(input.dim(), 1)
    if not -rank <= dim < rank:
        raise IndexError(f"{op}(): dim {dim} is out of range for a tensor of {input.dim()} dims")
    return dim % rank


def _check_arguments(op, input, dim, index, src):
    if index.dtype not in (_C.int64, _C.int32):
        raise RuntimeError(f"{op}(): Expected dtype int64 for index, got {_dtype_name(index.dtype)}")
    if src is not None and src.dtype != input.dtype:
        raise RuntimeError(f"{op}(): Expected self.dtype to be equal to src.dtype, got {_dtype_name(input.dtype)} "
                           f"and {_dtype_name(src.dtype)}")
    dim = _normalize_dim(op, input, dim)
    if index.dim() != input.dim() and index.numel() > 0:
        raise RuntimeError(f"{op}(): Index tensor must have the same number of dimensions as self tensor "
                           f"({index.dim()} and {input.dim()})")
    if src is not None and src.dim() != index.dim() and index.numel() > 0:
        raise RuntimeError(f"{op}(): Index tensor must have the same number of dimensions as src tensor "
                           f"({index.dim()} and {src.dim()})")
    for d in range(index.dim() if index.numel() > 0 else 0):
        too_large = (d != dim and index.shape[d] > input.shape[d]) or (src is not None and index.shape[d] > src.shape[d])
        if too_large:
            src_text = f" and to be no larger size than src {list(src.shape)}" if src is not None else ""
            raise RuntimeError(f"{op}(): Expected index {list(index.shape)} to be no larger than self "
                               f"{list(input.shape)} apart from dimension {dim}{src_text}")
    if index.numel() > 0:
        extent = input.shape[dim] if input.dim() else 1
        outside = (index < 0) | (index >= extent)
        if bool(outside.any()):
            bad = int(index.reshape(-1)[outside.reshape(-1)][0].item())
            raise RuntimeError(f"{op}(): index {bad} is out of bounds for dimension {dim} with size {extent}")
    return dim


def _flat_positions(input, dim, index):
    """The position in input.reshape(-1) each element of index addresses."""
    index = index.to(_C.int64)
    if input.dim() == 0:
        return index.reshape(-1)
    positions = index * _contiguous_stride(input.shape, dim)
    for d in range(index.dim()):
        if d == dim:
            continue
        view = [1] * index.dim()
        view[d] = index.shape[d]
        coordinate = _C._arange(0, index.shape[d], 1, _C.int64, index.device).reshape(view)
        positions = positions + coordinate * _contiguous_stride(input.shape, d)
    return positions.reshape(-1)


def _contiguous_stride(shape, dim):
    stride = 1
    for extent in shape[dim + 1:]:
        stride *= extent
    return stride


def _narrowed(src, shape):
    """src's leading corner of the given shape (src may be larger than index)."""
    for d, extent in enumerate(shape):
        if src.shape[d] != extent:
            src = src.narrow(d, 0, extent)
    return src.reshape(-1)


def _identity(reduce, dtype):
    if reduce == "prod":
        return 1
    if reduce in ("sum", "mean"):
        return 0
    if dtype.is_floating_point:
        return float("-inf") if reduce == "amax" else float("inf")
    if dtype == _C.bool:
        return reduce == "amin"
    limits = iinfo(dtype)
    return limits.min if reduce == "amax" else limits.max


def _combine(reduce, a, b):
    if reduce == "prod":
        return a * b
    return _C.maximum(a, b) if reduce == "amax" else _C.minimum(a, b)


def _segment_reduce(reduce, positions, values):
    """(the distinct positions, the reduction of each one's values): Note [Segmented scatter reductions]."""
    positions, order = _C.sort(positions, stable=True)
    values = values.index_select(0, order)
    count = positions.shape[0]
    shift = 1
    while shift < count:
        same_run = positions[shift:] == positions[:-shift]
        if not bool(same_run.any()):
            break
        combined = _combine(reduce, values[shift:], values[:-shift])
        values = _C.cat([values[:shift], _C.where(same_run, combined, values[shift:])])
        shift *= 2
    run_end = _C.cat([positions[1:] != positions[:-1], _C._ones([1], _C.bool, positions.device)])
    return positions[run_end], values[run_end]


def _scatter_reduce_flat(reduce, flat, positions, values, include_self):
    if reduce in ("sum", "mean"):
        base = flat if include_self else _C.index_put(flat, [positions], _C._zeros([1], flat.dtype, flat.device))
        total = _C.index_put(base, [positions], values, True)
        if reduce == "sum":
            return total
        ones = _C._ones([positions.shape[0]], flat.dtype, flat.device)
        start = 1 if include_self else 0
        counts = _C.index_put(_C._full([flat.shape[0]], start, flat.dtype, flat.device), [positions], ones, True)
        counts = counts.clamp(min=1)
        return total / counts if flat.dtype.is_floating_point else total.floor_divide(counts)
    targets, reduced = _segment_reduce(reduce, positions, values)
    if include_self:
        reduced = _combine(reduce, flat.index_select(0, targets), reduced)
    return _C.index_put(flat, [targets], reduced)


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """Reduces the elements of src into input at the positions index names
    along dim: reduce is "sum", "prod", "mean", "amax" or "amin"; with
    include_self=False a position's old value takes no part."""
    if reduce not in _REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    dim = _check_arguments("scatter_reduce", input, dim, index, src)
    positions = _flat_positions(input, dim, index)
    if positions.numel() == 0:
        return input.clone()
    values = _narrowed(src, list(index.shape))
    flat = input.reshape(-1)
    return _scatter_reduce_flat(reduce, flat, positions, values, include_self).reshape(list(input.shape))


def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    """input with src's elements (or the scalar value) written at the positions
    index names along dim; reduce="add" or "multiply" combines them with the
    old values instead. Where index repeats a position, which write lands is
    unspecified, as in PyTorch."""
    if src is None and value is None:
        raise TypeError("scatter() missing required argument 'src' or 'value'")
    if not isinstance(src, Tensor) and src is not None:
        src, value = None, src
    if reduce is not None and reduce not in ("add", "multiply"):
        raise RuntimeError(f"reduce argument must be either add or multiply, got {reduce}")
    dim = _check_arguments("scatter", input, dim, index, src)
    positions = _flat_positions(input, dim, index)
    if positions.numel() == 0:
        return input.clone()
    if src is not None:
        values = _narrowed(src, list(index.shape))
    else:
        if not input.dtype.is_floating_point:
            value = bool(value) if input.dtype == _C.bool else int(value)  # truncated, as PyTorch converts it
        values = _C._full([positions.shape[0]], value, input.dtype, input.device)
    flat = input.reshape(-1)
    if reduce == "add":
        result = _C.index_put(flat, [positions], values, True)
    elif reduce == "multiply":
        result = _scatter_reduce_flat("prod", flat, positions, values, True)
    else:
        result = _C.index_put(flat, [positions], values)
    return result.reshape(list(input.shape))


def in_place_method(function, name=None):
    """x.f_(...) for an out-of-place f whose result has x's shape and a dtype
    x can hold (PyTorch's can_cast), stored into x by the core's apply_inplace,
    which refuses any other result as PyTorch does and records the write."""
    op = name or function.__name__

    def store(self, *args, **kwargs):
        # The op reads a copy when autograd records it: what it saves for
        # backward is not the tensor the store overwrites. The core copies x
        # when x requires grad; a copy is taken here when only another
        # operand does.
        copy = not self.requires_grad and _C.is_grad_enabled() and any(
            isinstance(a, Tensor) and a.requires_grad for a in (*args, *kwargs.values()))
        return _C._apply_inplace(self, lambda x: function(x.clone() if copy else x, *args, **kwargs), op)

    store.__name__ = f"{op}_"
    return store


def put(input, index, source, accumulate=False):
    """input with source's elements written at the flat positions index names
    (negative ones from the end), as if input were 1-d; accumulate adds them
    to the old values instead."""
    if index.dtype != _C.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {_dtype_name(index.dtype)}")
    if source.dtype != input.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{_dtype_name(input.dtype)} and source.dtype = {_dtype_name(source.dtype)}")
    if index.numel() != source.numel():
        raise RuntimeError(f"put_(): Expected source and index to have the same number of elements, but got "
                           f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    positions = index.reshape(-1)
    count = input.numel()
    if positions.numel() and bool(((positions >= count) | (positions < -count)).any()):
        bad = int(positions[(positions >= count) | (positions < -count)][0])
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {count} elements.")
    positions = _C.where(positions < 0, positions + count, positions)
    flat = input.reshape(-1).index_put((positions,), source.reshape(-1), accumulate)
    return flat.reshape(list(input.shape))


Tensor.scatter = scatter
Tensor.scatter_ = in_place_method(scatter)
Tensor.scatter_reduce = scatter_reduce
Tensor.scatter_reduce_ = in_place_method(scatter_reduce)
Tensor.put = put
Tensor.put_ = in_place_method(put)


def _along(index, dim, like):
    """A 1-d index along dim, broadcast to like's shape (as scatter takes it)."""
    shape = [1] * like.dim()
    shape[dim] = -1
    return index.reshape(shape).expand(list(like.shape))


def index_add(input, dim, index, source, *, alpha=1):
    dim = dim % max(input.dim(), 1)
    added = source if alpha == 1 else source * alpha
    return input.scatter_add(dim, _along(index, dim, source), added)


def index_copy(input, dim, index, source):
    dim = dim % max(input.dim(), 1)
    return scatter(input, dim, _along(index, dim, source), source)


def index_fill(input, dim, index, value):
    from . import ones, zeros
    dim = dim % max(input.dim(), 1)
    hit = zeros(input.shape[dim], dtype=_C.bool, device=input.device)
    if index.numel():
        hit = hit.index_put((index.reshape([-1]),), ones(index.numel(), dtype=_C.bool, device=input.device))
    shape = [1] * input.dim()
    shape[dim] = -1
    return _C.where(hit.reshape(shape), value, input)


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """Reduces source's slices along dim into input's slices that index names
    ("prod", "mean", "amax" or "amin"): scatter_reduce with index laid along
    dim."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    if index.dtype not in (_C.int64, _C.int32):
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: {_dtype_name(index.dtype)}")
    if index.dim() > 1:
        raise IndexError(f"index_reduce_(): Index is supposed to be a vector, but got dim: {index.dim()} with size: "
                         f"{list(index.shape)}")
    if source.dtype != input.dtype:
        raise RuntimeError(f"index_reduce_(): self ({_dtype_name(input.dtype)}) and source "
                           f"({_dtype_name(source.dtype)}) must have the same scalar type")
    dim = _normalize_dim("index_reduce", input, dim)
    source_extent = source.shape[dim] if source.dim() else 1
    if index.numel() != source_extent:
        raise RuntimeError(f"index_reduce_(): Number of indices ({index.numel()}) should be equal to "
                           f"source.size(dim): ({source_extent}), for dim: {dim}")
    if input.dim() != source.dim() or any(a != b for d, (a, b) in enumerate(zip(input.shape, source.shape))
                                           if d != dim):
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {list(input.shape)} source.shape = {list(source.shape)}")
    along = _along(index.reshape([-1]), dim, source) if input.dim() else index.reshape([-1])
    return scatter_reduce(input, dim, along, source, reduce, include_self=include_self)


def masked_scatter(input, mask, source):
    """input with the elements where mask is true replaced, in row-major
    order, by source's first elements."""
    from ._shape_ops import broadcast_tensors
    if mask.dtype != _C.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{_dtype_name(mask.dtype).capitalize()}")
    if source.dtype != input.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got "
                           f"{_dtype_name(input.dtype)} and {_dtype_name(source.dtype)}")
    values, keep = broadcast_tensors(input, mask)
    keep = keep.reshape([-1])
    if int(keep.sum().item()) > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    if source.numel() == 0:
        return values.clone()
    # The k-th true element of the mask takes source's k-th element.
    taken = (keep.to(_C.int64).cumsum(0) - 1).clamp(min=0)
    picked = source.reshape([-1]).index_select(0, taken)
    return _C.where(keep, picked, values.reshape([-1])).reshape(list(values.shape))


def masked_select(input, mask):
    from ._shape_ops import broadcast_tensors
    values, keep = broadcast_tensors(input, mask)
    return values[keep]


_nonzero_indices = Tensor.nonzero


def nonzero(input, *, as_tuple=False):
    """The indices of the nonzero elements: an (n, dims) tensor, or with
    as_tuple one 1-d tensor per dim (a 0-d input counts as 1-d)."""
    indices = _nonzero_indices(input)
    if not as_tuple:
        return indices
    if input.dim() == 0:
        return (_C._zeros([indices.shape[0]], _C.int64, input.device),)
    return tuple(indices.unbind(1))


def where(condition, input=None, other=None):
    """where(condition, input, other) picks elementwise; where(condition)
    alone is nonzero(condition, as_tuple=True), as in PyTorch."""
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    return _C.where(condition, input, other)


def argwhere(input):
    return _nonzero_indices(input)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    from . import tensor
    elements = elements if isinstance(elements, Tensor) else tensor(elements)
    tests = test_elements if isinstance(test_elements, Tensor) else tensor(test_elements)
    found = (elements.unsqueeze(-1) == tests.reshape([-1])).any(-1)
    return ~found if invert else found


Tensor.index_add = index_add
Tensor.index_add_ = in_place_method(index_add)
Tensor.index_copy = index_copy
Tensor.index_copy_ = in_place_method(index_copy)
Tensor.index_fill = index_fill
Tensor.index_fill_ = in_place_method(index_fill)
Tensor.masked_select = masked_select
Tensor.index_reduce = index_reduce
Tensor.index_reduce_ = in_place_method(index_reduce)
Tensor.masked_scatter = masked_scatter
Tensor.masked_scatter_ = in_place_method(masked_scatter)
Tensor.argwhere = argwhere


def select_scatter(input, src, dim, index):
    """input with its slice `index` along dim replaced by src."""
    out = input.clone()
    out.select(dim, index).copy_(src)
    return out


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """input with input[..., start:end:step, ...] along dim replaced by src."""
    out = input.clone()
    out[(slice(None),) * (dim % input.dim()) + (slice(start, end, step),)] = src
    return out


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """input with its diagonal (offset, dim1, dim2) replaced by src."""
    out = input.clone()
    out.diagonal(offset, dim1, dim2).copy_(src)
    return out
