"""Lookups in an embedding table: F.embedding, and F.embedding_bag, which
reduces bags of looked-up rows by sum, mean or max (Note [Embedding bags as
segment reductions]). Both renormalise the rows they read with max_norm and
scale gradients by frequency as PyTorch does."""

from .. import _C, _factories, _searching
from .._C import _nn
from ..autograd.grad_mode import no_grad
from .._dtype_names import dtype_name as _dtype_name

__all__ = ["embedding", "embedding_bag"]

# Note [Embedding bags as segment reductions]
# Each element of the (flattened) input belongs to one bag: a row of a 2-d
# input, or for a 1-d input the stretch from its bag's offset to the next
# (searchsorted of the element's position among the offsets). Elements at
# padding_idx are dropped before the reduction, so they neither count in a
# mean nor win a max, and their row gets no gradient. The rows read go into
# their bags by index_add (sum, and mean over the count of elements left)
# or scatter_reduce's amax over an empty start, so an empty bag stays zero,
# as in PyTorch. Every step is differentiable: the gradient of the table
# and of per_sample_weights come out of autograd.

_MODES = ("sum", "mean", "max")


def _renorm_rows_(weight, indices, max_norm, norm_type):
    """Scales, in place, the rows of weight that indices reads whose norm
    passes max_norm to norm max_norm, PyTorch's embedding_renorm_."""
    with no_grad():
        rows = indices.reshape(-1).unique()
        read = weight.index_select(0, rows)
        norms = read.norm(norm_type, 1, keepdim=True)
        scale = _C.where(norms > max_norm, max_norm / (norms + 1e-7), norms.new_ones(()))
        weight.index_copy_(0, rows, read * scale)


def _scale_grad_by_frequency(rows, indices):
    """rows (read at indices) pass back their gradient divided by how many
    times their index occurs in indices."""
    _, inverse, counts = indices.unique(return_inverse=True, return_counts=True)
    frequency = counts.index_select(0, inverse).to(rows.dtype).unsqueeze(-1)
    rows.register_hook(lambda grad: grad / frequency)
    return rows


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False):
    if sparse:
        raise NotImplementedError("embedding: sparse gradients are not supported (Ember's gradients are dense); "
                                  "pass sparse=False")
    if padding_idx is not None:
        if not -weight.size(0) <= padding_idx < weight.size(0):
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx %= weight.size(0)
    if max_norm is not None:
        _renorm_rows_(weight, input, max_norm, norm_type)
    out = _nn.embedding(weight, input)
    if scale_grad_by_freq and out.requires_grad:
        out = _scale_grad_by_frequency(out.reshape([-1, weight.size(1)]), input.reshape(-1)).reshape(out.shape)
    if padding_idx is not None:
        # The padding row gets no gradient: its entries are cut from the graph.
        keep = (input != padding_idx).unsqueeze(-1)
        out = _C.where(keep, out, out.detach())
    return out


def _check_bag_arguments(input, weight, offsets, mode, scale_grad_by_freq, sparse, per_sample_weights):
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                         f"must have the same shape as the input ({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2 and offsets is not None:
        raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed "
                         f"length sequences. However, found offsets of type {type(offsets)}")
    if input.dim() == 1 and offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    if input.dim() == 1 and offsets.dim() != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    if input.dim() not in (1, 2):
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if sparse:
        raise NotImplementedError("embedding_bag: sparse gradients are not supported (Ember's gradients are dense); "
                                  "pass sparse=False")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    for name, indices in (("input", input), ("offsets", offsets)):
        if indices is not None and indices.dtype not in (_C.int64, _C.int32):
            raise RuntimeError(f"embedding_bag: expected {name} of dtype int64 or int32, but got "
                               f"{_dtype_name(indices.dtype)}")
    if not weight.is_floating_point():
        raise RuntimeError(f"embedding_bag: expected a floating weight, but got {_dtype_name(weight.dtype)}")
    if per_sample_weights is not None and per_sample_weights.dtype != weight.dtype:
        raise RuntimeError(f"embedding_bag: expected per_sample_weights of weight's dtype "
                           f"{_dtype_name(weight.dtype)}, but got {_dtype_name(per_sample_weights.dtype)}")


def _check_indices(indices, num_embeddings):
    outside = (indices < 0) | (indices >= num_embeddings)
    if bool(outside.any()):
        position = int(outside.to(_C.int64).argmax())
        raise RuntimeError(f"Index {position} of input takes value {int(indices[position])} which is not in the valid "
                           f"range [0, {num_embeddings})")


def _bags_of_offsets(offsets, length, include_last_offset):
    """(number of bags, how many leading elements the bags hold) for a 1-d
    input of `length` elements, after PyTorch's checks of the offsets."""
    bounds = offsets.tolist()
    if bounds and bounds[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {bounds[0]}")
    if bounds and bounds[-1] > length:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {length} but got offsets[-1] of "
                           f"{bounds[-1]}")
    for bag, (start, end) in enumerate(zip(bounds, bounds[1:])):
        if end < start:
            raise RuntimeError(f"embedding_bag: offsets have to be non-decreasing, but offsets[{bag}] = {start} is "
                               f"greater than offsets[{bag + 1}] = {end}")
    if include_last_offset:
        return max(len(bounds) - 1, 0), bounds[-1] if bounds else 0
    return len(bounds), length if bounds else 0


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Sums, averages or takes the max of each bag of rows of weight that
    input indexes (Note [Embedding bags as segment reductions])."""
    _check_bag_arguments(input, weight, offsets, mode, scale_grad_by_freq, sparse, per_sample_weights)
    num_embeddings = weight.size(0)
    if padding_idx is not None:
        if not -num_embeddings <= padding_idx < num_embeddings:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, -{num_embeddings} through "
                               f"{num_embeddings - 1}, but got {padding_idx}")
        padding_idx %= num_embeddings
    indices = input.reshape(-1).to(_C.int64)
    positions = _factories.arange(indices.numel(), dtype=_C.int64, device=input.device)
    if input.dim() == 2:
        num_bags, held = input.size(0), indices.numel()
        bag_of = positions // max(input.size(1), 1)
    else:
        num_bags, held = _bags_of_offsets(offsets, indices.numel(), include_last_offset)
        starts = offsets.to(_C.int64).narrow(0, 0, num_bags)
        bag_of = _searching.searchsorted(starts, positions, right=True) - 1
    _check_indices(indices, num_embeddings)
    if max_norm is not None:
        _renorm_rows_(weight, indices, max_norm, norm_type)
    kept = positions < held
    if padding_idx is not None:
        kept = kept & (indices != padding_idx)
    indices, bag_of = indices[kept], bag_of[kept]
    rows = weight.index_select(0, indices)
    if scale_grad_by_freq and rows.requires_grad:
        rows = _scale_grad_by_frequency(rows, indices)
    bags = weight.new_zeros((num_bags, weight.size(1)))
    if mode == "max":
        spread = bag_of.unsqueeze(1).expand(list(rows.shape))
        return bags.scatter_reduce(0, spread, rows, "amax", include_self=False)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.reshape(-1)[kept].unsqueeze(1)
    sums = bags.index_add(0, bag_of, rows)
    if mode == "sum":
        return sums
    counts = weight.new_zeros((num_bags,)).index_add(0, bag_of, weight.new_ones((indices.numel(),)))
    return sums / counts.clamp(min=1).unsqueeze(1)
