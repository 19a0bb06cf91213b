"""torch.linalg's functions that are compositions of products and of the
other linalg functions: cond, multi_dot, vecdot, vander, tensorinv,
tensorsolve, and its names for ops Ember has elsewhere (cross, diagonal,
matmul, matrix_power)."""

import math

from . import _C
from ._factories import ones_like
from ._linalg_factorizations import inv, inv_ex, solve, svdvals


def cross(input, other, *, dim=-1):
    from ._shape_ops import cross as cross_product
    return cross_product(input, other, dim=dim)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):  # noqa: N803  (PyTorch's names)
    return A.diagonal(offset, dim1, dim2)


def matmul(input, other):
    return _C.matmul(input, other)


def matrix_power(A, n):  # noqa: N803
    return A.matrix_power(n)


def vander_1d(x, N=None, increasing=False):  # noqa: N803
    """torch.vander: the Vandermonde matrix of a 1-d x, its columns running
    from x^(N-1) down to x^0 (up from x^0 with increasing)."""
    if x.dim() != 1:
        raise RuntimeError(f"x must be a one-dimensional tensor, got {x.dim()} dimensions")
    if N is not None and N < 0:
        raise RuntimeError(f"N must be non-negative, got {N}")
    count = x.shape[0] if N is None else N
    if count == 0:
        return x.new_empty((x.shape[0], 0))
    powers = vander(x, N=count) if count > 1 else ones_like(x).unsqueeze(-1)
    return powers if increasing else powers.flip(-1)


def vecdot(x, y, *, dim=-1):
    """The dot product of x and y along dim (broadcasting the other dims)."""
    if x.shape[dim] != y.shape[dim]:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same size along dim {dim}, got "
                           f"{x.shape[dim]} and {y.shape[dim]}")
    return (x * y).sum(dim)


def vander(x, *, N=None):  # noqa: N803
    """The Vandermonde matrix of x along its last dim: columns x^0, x^1, ...,
    x^(N-1)."""
    if x.dim() < 1:
        raise RuntimeError("linalg.vander: x must have at least one dimension")
    count = x.shape[-1] if N is None else N
    if count <= 1:
        raise RuntimeError(f"linalg.vander: N must be greater than 1, got {count}")
    # Repeated products, as PyTorch's cumprod of [1, x, x, ...] forms them.
    columns = x.unsqueeze(-1).expand(*x.shape, count - 1)
    powers = columns.cumprod(-1)
    return _C.cat([ones_like(x).unsqueeze(-1).to(powers.dtype), powers], -1)


def cond(A, p=None):  # noqa: N803
    """The condition number of A in the norm p: the ratio of its extreme
    singular values for p None, 2 and -2; norm(A) * norm(inv(A)) otherwise."""
    from .linalg import matrix_norm
    if A.dim() < 2:
        raise RuntimeError("linalg.cond: The input tensor A must have at least 2 dimensions.")
    if p is None or p in (2, -2):
        values = svdvals(A)
        largest, smallest = values.amax(-1), values.amin(-1)
        return largest / smallest if p != -2 else smallest / largest
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.cond: A must be batches of square matrices for norm {p}, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    # A singular matrix has an infinite condition number, as in PyTorch.
    inverse, info = inv_ex(A)
    return _C.where(info != 0, math.inf, matrix_norm(A, p) * matrix_norm(inverse, p))


def _chain_cost(shapes):
    """The cheapest bracketing of a chain of matrices of `shapes` (the
    classic dynamic programme): split[i][j] is where the product i..j splits."""
    n = len(shapes)
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            j = i + length - 1
            cost[i][j] = math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + shapes[i][0] * shapes[k][1] * shapes[j][1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def multi_dot(tensors):
    """The product of a chain of matrices in the cheapest order; the first
    and the last may be vectors (taken as a row and a column)."""
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    first, last = tensors[0], tensors[-1]
    matrices = [first.unsqueeze(0) if first.dim() == 1 else first, *tensors[1:-1],
                last.unsqueeze(-1) if last.dim() == 1 else last]
    for position, m in enumerate(matrices):
        if m.dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {position} must be 2D but got {tensors[position].dim()}D")
    for position in range(1, len(matrices)):
        if matrices[position - 1].shape[1] != matrices[position].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {position - 1} and {position} with shapes "
                               f"{list(tensors[position - 1].shape)} and {list(tensors[position].shape)} cannot be "
                               f"multiplied")
    split = _chain_cost([tuple(m.shape) for m in matrices])

    def product(i, j):
        if i == j:
            return matrices[i]
        k = split[i][j]
        return product(i, k) @ product(k + 1, j)

    result = product(0, len(matrices) - 1)
    if first.dim() == 1:
        result = result.squeeze(0)
    if last.dim() == 1:
        result = result.squeeze(-1)
    return result


def tensorinv(A, ind=2):  # noqa: N803
    """The inverse of A taken as a matrix of its first `ind` dims by the rest."""
    if ind <= 0:
        raise RuntimeError(f"linalg.tensorinv: Expected a strictly positive integer for 'ind', but got {ind}")
    rows, columns = list(A.shape[:ind]), list(A.shape[ind:])
    if math.prod(rows) != math.prod(columns):
        raise RuntimeError(f"linalg.tensorinv: Expected self to satisfy the requirement "
                           f"prod(self.shape[ind:]) == prod(self.shape[:ind]), but got {math.prod(columns)} != "
                           f"{math.prod(rows)}")
    return inv(A.reshape(math.prod(rows), math.prod(columns))).reshape(*columns, *rows)


def tensorsolve(A, B, dims=None):  # noqa: N803
    """X with tensordot(A, X, X.dim()) = B: A taken as a matrix of B's dims by
    the rest (after moving `dims` of A to its end)."""
    if dims is not None:
        kept = [d for d in range(A.dim()) if d not in [d % A.dim() for d in dims]]
        A = A.permute(*kept, *[d % A.dim() for d in dims])  # noqa: N806
    result_shape = list(A.shape[B.dim():])
    if math.prod(A.shape[:B.dim()]) != math.prod(result_shape) or list(A.shape[:B.dim()]) != list(B.shape):
        raise RuntimeError(f"linalg.tensorsolve: Expected self to satisfy the requirement "
                           f"prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), but got "
                           f"{math.prod(result_shape)} != {math.prod(A.shape[:B.dim()])}")
    square = A.reshape(math.prod(B.shape), math.prod(result_shape))
    return solve(square, B.reshape(-1)).reshape(*result_shape)
