"""Distances and similarities of torch.nn.functional."""

from .. import _C

__all__ = ["cosine_similarity", "pairwise_distance", "pdist"]


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    # PyTorch's form: each norm clamped on its own, then the product.
    dot = (x1 * x2).sum(dim)
    norms = x1.norm(2, dim).clamp(min=eps) * x2.norm(2, dim).clamp(min=eps)
    return dot / norms


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    difference = x1 - x2 + eps
    return difference.norm(p, -1, keepdim=keepdim)


def pdist(input, p=2):
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    n = input.shape[0]
    if n < 2:
        return input.new_empty([0])
    rows, cols = [], []
    for i in range(n - 1):
        rows.extend([i] * (n - 1 - i))
        cols.extend(range(i + 1, n))
    from .. import int64, tensor  # the package, once loaded
    a = input.index_select(0, tensor(rows, dtype=int64))
    b = input.index_select(0, tensor(cols, dtype=int64))
    return (a - b).norm(p, -1)
