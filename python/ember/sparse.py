"""torch.sparse: products, sums and softmax of sparse COO tensors
(ember._sparse_coo describes them)."""

from ._sparse_coo import SparseCooTensor, mm, softmax, sparse_coo_tensor, sparse_sum as sum  # noqa: A004

__all__ = ["SparseCooTensor", "mm", "sum", "softmax", "log_softmax", "addmm", "sparse_coo_tensor"]


def log_softmax(input, dim, *, dtype=None):
    probabilities = softmax(input, dim, dtype=dtype)
    return SparseCooTensor(probabilities._indices(), probabilities._values().log(), input.shape,
                           probabilities.is_coalesced())


def addmm(mat, mat1, mat2, *, beta=1.0, alpha=1.0):
    """beta * mat + alpha * (mat1 @ mat2) for a sparse mat1."""
    return mat * beta + mm(mat1, mat2) * alpha
