"""F.pad's non-constant modes (reflect, replicate, circular): each padded dim
reads the input through index_select with indices that mirror, clamp or wrap
around its edges, so gradients and every device come from index_select."""

from .. import _C, _factories

_SUPPORTED = ("Supported combinations for non-constant padding:\n"
              "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
              "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
              "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def _source_indices(mode, size, before, after):
    """The input position each output position reads along one dim."""
    positions = range(-before, size + after)  # negative pads crop
    if mode == "replicate":
        return [min(max(j, 0), size - 1) for j in positions]
    if mode == "reflect":
        return [-j if j < 0 else 2 * (size - 1) - j if j >= size else j for j in positions]
    # Negative pads crop first; the rest wraps around what is left (PyTorch's rule).
    start, stop = max(-before, 0), size - max(-after, 0)
    return [start + j % (stop - start) for j in range(-max(before, 0), stop - start + max(after, 0))]


def pad_by_index(input, pad, mode):  # noqa: A002  (PyTorch's names)
    dims = len(pad) // 2
    if dims not in (1, 2, 3) or input.dim() not in (dims + 1, dims + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {input.dim()}D input tensor.\n"
                                  f"{_SUPPORTED}")
    result = input
    for k in range(dims):
        dim = input.dim() - 1 - k
        before, after, size = pad[2 * k], pad[2 * k + 1], input.shape[dim]
        if mode == "reflect" and (before >= size or after >= size):
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, "
                               f"but got: padding ({before}, {after}) at dimension {dim} of input "
                               f"{list(input.shape)}")
        if mode == "replicate" and size == 0 and before + after > 0:
            raise RuntimeError(f"pad: cannot replicate the edge of dimension {dim}, which is empty, in input "
                               f"{list(input.shape)}")
        if mode == "circular" and (before > size or after > size):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if before == 0 and after == 0:
            continue
        index = _factories.tensor(_source_indices(mode, size, before, after), dtype=_C.int64, device=input.device)
        result = result.index_select(dim, index)
    return result
