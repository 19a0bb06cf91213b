"""Matrix composites over mm/bmm: addmm, addbmm, baddbmm, outer, diag,
fill_diagonal_, cdist, tensordot, vdot."""

import builtins
import math

from . import _C
from ._C import Tensor
from ._autocast_lists import lower_precision_op
from ._dtype_names import dtype_name as _dtype_name
from ._shape_ops import dot


def _check_same_dtype(op, input, product_operand):
    if input.dtype != product_operand.dtype:
        raise RuntimeError(f"{op}: input and the matrices must have the same dtype, but got "
                           f"{_dtype_name(input.dtype)} and {_dtype_name(product_operand.dtype)}")


def _scaled_sum(op, input, product, beta, alpha):
    """beta * input + alpha * product, with input broadcast to the product's
    shape; beta == 0 ignores input's values (NaN and inf included), as PyTorch does."""
    shape = list(product.shape)
    try:
        input = input.expand(shape)
    except RuntimeError:
        raise RuntimeError(f"{op}: input of shape {list(input.shape)} does not broadcast to the product's shape "
                           f"{shape}") from None
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        return product
    return product + (input if beta == 1 else input * beta)


@lower_precision_op
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """beta * input + alpha * (mat1 @ mat2)."""
    _check_same_dtype("addmm", input, mat1)
    return _scaled_sum("addmm", input, _C.mm(mat1, mat2), beta, alpha)


@lower_precision_op
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta * input + alpha * bmm(batch1, batch2)."""
    _check_same_dtype("baddbmm", input, batch1)
    return _scaled_sum("baddbmm", input, _C.bmm(batch1, batch2), beta, alpha)


@lower_precision_op
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta * input + alpha * the sum over the batch of batch1[i] @ batch2[i]."""
    _check_same_dtype("addbmm", input, batch1)
    for name, batch in (("batch1", batch1), ("batch2", batch2)):
        if batch.dim() != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    return _scaled_sum("addbmm", input, _C.bmm(batch1, batch2).sum(0), beta, alpha)


def _fill_diagonal_(self, fill_value, wrap=False):
    """Fills the main diagonal of a matrix (or of a tensor whose dims are all
    equal) with fill_value; wrap continues a tall matrix's diagonal after
    every columns + 1 rows, as PyTorch does."""
    if self.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.dim() > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    # Flat positions in a contiguous layout: the diagonal's step is the sum
    # of the strides; wrapping, it runs on through the whole tensor.
    step, stride = 0, 1
    for extent in reversed(self.shape):
        step, stride = step + stride, stride * extent
    length = min(self.shape)
    if wrap and self.dim() == 2 and self.shape[0] > self.shape[1] + 1:
        length = (self.numel() + step - 1) // step
    positions = _C._arange(0, self.numel(), 1, _C.int64, self.device)
    hit = ((positions % step == 0) & (positions < length * step)).reshape(list(self.shape))
    if self.dtype == _C.bool:
        fill_value = bool(fill_value)
    elif not self.dtype.is_floating_point:
        fill_value = int(fill_value)  # truncated, as PyTorch converts it
    return _C._apply_inplace(self, lambda x: x.masked_fill(hit, fill_value), "fill_diagonal")


def outer(input, vec2):
    """input[i] * vec2[j]: the outer product of two vectors."""
    for name, vector in (("self", input), ("vec2", vec2)):
        if vector.dim() != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {vector.dim()}-D")
    return input.unsqueeze(1) * vec2.unsqueeze(0)


def diag(input, diagonal=0):
    """A 1-D input becomes a square matrix with it on the given diagonal; a
    2-D input gives a copy of that diagonal."""
    if input.dim() == 1:
        size = input.shape[0] + builtins.abs(diagonal)
        positions = _C._arange(0, input.shape[0], 1, _C.int64, input.device)
        rows, columns = (positions, positions + diagonal) if diagonal >= 0 else (positions - diagonal, positions)
        matrix = _C._zeros([size, size], input.dtype, input.device)
        return _C.index_put(matrix, [rows, columns], input)
    if input.dim() != 2:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.dim()}D")
    rows, columns = input.shape
    row_stride, column_stride = input.stride()
    length = builtins.max(0, builtins.min(rows + builtins.min(diagonal, 0), columns - builtins.max(diagonal, 0)))
    start = input.storage_offset() + (diagonal * column_stride if diagonal >= 0 else -diagonal * row_stride)
    if length == 0:
        start = input.storage_offset()
    return input.as_strided([length], [row_stride + column_stride], start).clone()


def cdist(x1, x2, p=2.0, compute_mode=None):
    """The p-norm distance between each row of x1 [..., P, M] and of x2
    [..., R, M] (leading dims broadcast): [..., P, R]."""
    if x1.dim() < 2 or x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D, X2 got: {x2.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if not x1.dtype.is_floating_point or not x2.dtype.is_floating_point:
        raise RuntimeError(f"cdist only supports floating-point dtypes, X1 got: {_dtype_name(x1.dtype)}, "
                           f"X2 got: {_dtype_name(x2.dtype)}")
    if p < 0:
        raise RuntimeError(f"cdist only supports non-negative p values, got {p}")
    difference = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    return _C.norm(difference, float(p), [-1])


Tensor.addmm = addmm
Tensor.baddbmm = baddbmm
Tensor.addbmm = addbmm
Tensor.outer = outer
Tensor.ger = outer
Tensor.diag = diag


@lower_precision_op
def addmv(input, mat, vec, *, beta=1, alpha=1):
    """beta * input + alpha * (mat @ vec)."""
    _check_same_dtype("addmv", input, mat)
    return _scaled_sum("addmv", input, mat.matmul(vec), beta, alpha)


@lower_precision_op
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """beta * input + alpha * outer(vec1, vec2)."""
    _check_same_dtype("addr", input, vec1)
    return _scaled_sum("addr", input, outer(vec1, vec2), beta, alpha)


def matrix_power(input, n):
    if input.dim() < 2 or input.shape[-1] != input.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{input.shape[-2] if input.dim() >= 2 else 1} by {input.shape[-1]} matrices")
    if n < 0:
        from . import linalg
        return matrix_power(linalg.inv(input), -n)
    from . import eye
    result = eye(input.shape[-1], dtype=input.dtype, device=input.device).expand(list(input.shape)).clone()
    base = input
    # Squaring: log2(n) products.
    while n:
        if n & 1:
            result = result.matmul(base)
        n >>= 1
        if n:
            base = base.matmul(base)
    return result


def chain_matmul(*matrices):
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    result = matrices[0]
    for m in matrices[1:]:
        result = result.matmul(m)
    return result


Tensor.fill_diagonal_ = _fill_diagonal_


def tensordot(a, b, dims=2):
    """Sums products over dims of a and b: the last `dims` of a with the
    first `dims` of b, or the dims of a pair of lists; one mm over the
    operands permuted so that the summed dims meet."""
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        dims_a, dims_b = list(range(a.dim() - dims, a.dim())), list(range(dims))
    else:
        dims_a, dims_b = ([listed] if isinstance(listed, int) else list(listed) for listed in dims)
        if len(dims_a) != len(dims_b):
            raise RuntimeError("both dimension lists should have same length")
    dims_a = [d % a.dim() if a.dim() else d for d in dims_a]
    dims_b = [d % b.dim() if b.dim() else d for d in dims_b]
    for da, db in zip(dims_a, dims_b):
        if a.shape[da] != b.shape[db]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[da]} in dim "
                               f"{da} and second has size {b.shape[db]} in dim {db}")
    kept_a = [d for d in range(a.dim()) if d not in dims_a]
    kept_b = [d for d in range(b.dim()) if d not in dims_b]
    summed = math.prod(a.shape[d] for d in dims_a)
    left = a.permute(*kept_a, *dims_a).reshape(-1, summed)
    right = b.permute(*dims_b, *kept_b).reshape(summed, -1)
    shape = [a.shape[d] for d in kept_a] + [b.shape[d] for d in kept_b]
    return _C.mm(left, right).reshape(shape)


def vdot(input, other):
    """The dot product of two 1-d tensors (no conjugation: Ember has no complex dtypes)."""
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {other.dim()}D tensors")
    return dot(input, other)
