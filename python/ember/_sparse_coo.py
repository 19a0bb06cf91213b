"""Sparse COO tensors (torch.sparse_coo_tensor): indices [sparse_dim, nnz]
and values [nnz, *dense_dims] of a tensor of `size`, kept as two dense
Ember tensors, with the operations graph and sparse-matrix programs use
(to_dense, coalesce, transposes, scaling, sums, and products with dense
matrices through ember.sparse.mm, torch.spmm or `@`).

Every operation is built from dense ops on the indices and values
(index_add, gathers, sorting), so gradients reach the values and the
dense operands, and every device works. A sparse tensor is its own Python
class, not an ember.Tensor: functions that take only dense tensors (mm,
add, ...) refuse it; its methods and ember.sparse's functions take it.
Unlike PyTorch's, the indices are always checked against the size."""

import math

from . import _C
from ._factories import tensor as _tensor, zeros
from ._searching import unique, unravel_index
from ._tensor import Size


class _Layout:
    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torch.{self._name}"


sparse_coo = _Layout("sparse_coo")


def _check(indices, values, size):
    if indices.dim() != 2 or indices.dtype != _C.int64:
        raise RuntimeError(f"sparse_coo_tensor: indices must be an int64 tensor of shape [sparse_dim, nnz], got "
                           f"{str(indices.dtype).removeprefix('ember.')} of shape {list(indices.shape)}")
    sparse_dim, nnz = indices.shape
    if values.dim() < 1 or values.shape[0] != nnz:
        raise RuntimeError(f"sparse_coo_tensor: values must have nnz={nnz} rows, got shape {list(values.shape)}")
    if len(size) != sparse_dim + values.dim() - 1 or list(size[sparse_dim:]) != list(values.shape[1:]):
        raise RuntimeError(f"sparse_coo_tensor: size {list(size)} does not fit {sparse_dim} sparse dims and values "
                           f"of shape {list(values.shape)}")
    if nnz:
        low, high = indices.min(1).values.tolist(), indices.max(1).values.tolist()
        for dim in range(sparse_dim):
            if low[dim] < 0 or high[dim] >= size[dim]:
                raise RuntimeError(f"sparse_coo_tensor: index {high[dim] if high[dim] >= size[dim] else low[dim]} "
                                   f"is out of bounds for dimension {dim} with size {size[dim]}")


class SparseCooTensor:
    """A sparse COO tensor; see the module's description."""

    is_sparse = True
    layout = sparse_coo

    def __init__(self, indices, values, size, coalesced=False):
        self._indices_tensor, self._values_tensor, self._size = indices, values, Size(size)
        self._coalesced = coalesced

    # --- what it is
    @property
    def shape(self):
        return self._size

    def size(self, dim=None):
        return self._size if dim is None else self._size[dim]

    def dim(self):
        return len(self._size)

    ndim = property(dim)

    @property
    def dtype(self):
        return self._values_tensor.dtype

    @property
    def device(self):
        return self._values_tensor.device

    @property
    def requires_grad(self):
        return self._values_tensor.requires_grad

    def requires_grad_(self, requires_grad=True):
        self._values_tensor.requires_grad_(requires_grad)
        return self

    def sparse_dim(self):
        return self._indices_tensor.shape[0]

    def dense_dim(self):
        return self._values_tensor.dim() - 1

    def _nnz(self):
        return self._indices_tensor.shape[1]

    def _indices(self):
        return self._indices_tensor

    def _values(self):
        return self._values_tensor

    def indices(self):
        self._require_coalesced("indices")
        return self._indices_tensor

    def values(self):
        self._require_coalesced("values")
        return self._values_tensor

    def _require_coalesced(self, what):
        if not self._coalesced:
            raise RuntimeError(f"Cannot get {what} on an uncoalesced tensor, please call .coalesce() first")

    def is_coalesced(self):
        return self._coalesced

    # --- conversions
    def _linear_indices(self):
        """Each entry's position in the sparse dims flattened row-major."""
        strides = [math.prod(self._size[d + 1:self.sparse_dim()]) for d in range(self.sparse_dim())]
        stride_tensor = _tensor(strides, dtype=_C.int64, device=self._indices_tensor.device) if strides else None
        if stride_tensor is None:
            return zeros(self._nnz(), dtype=_C.int64, device=self.device)
        return (self._indices_tensor * stride_tensor.unsqueeze(1)).sum(0)

    def coalesce(self):
        """Entries sorted by index, duplicates summed."""
        if self._coalesced:
            return self
        linear = self._linear_indices()
        distinct, inverse = unique(linear, sorted=True, return_inverse=True) if self._nnz() else (linear, linear)
        summed = zeros((distinct.shape[0], *self._values_tensor.shape[1:]), dtype=self.dtype, device=self.device)
        summed = summed.index_add(0, inverse, self._values_tensor)
        return SparseCooTensor(_coordinates(distinct, self._size[:self.sparse_dim()]), summed, self._size,
                               coalesced=True)

    def to_dense(self, dtype=None, *, masked_grad=None):
        flat = zeros((math.prod(self._size[:self.sparse_dim()]), *self._values_tensor.shape[1:]), dtype=self.dtype,
                     device=self.device)
        dense = flat.index_add(0, self._linear_indices(), self._values_tensor).reshape(list(self._size))
        return dense if dtype is None else dense.to(dtype)

    def to(self, *args, **kwargs):
        values = self._values_tensor.to(*args, **kwargs)
        return SparseCooTensor(self._indices_tensor.to(values.device), values, self._size, self._coalesced)

    def cpu(self):
        return self.to("cpu")

    def float(self):
        return self.to(_C.float32)

    def double(self):
        return self.to(_C.float64)

    def detach(self):
        return SparseCooTensor(self._indices_tensor, self._values_tensor.detach(), self._size, self._coalesced)

    def clone(self):
        return SparseCooTensor(self._indices_tensor.clone(), self._values_tensor.clone(), self._size, self._coalesced)

    def to_sparse(self):
        return self

    # --- arithmetic
    def t(self):
        return self.transpose(0, 1)

    def transpose(self, dim0, dim1):
        if max(dim0, dim1) >= self.sparse_dim():
            raise RuntimeError("transpose: only sparse dims of a sparse tensor can be transposed")
        order = list(range(self.sparse_dim()))
        order[dim0], order[dim1] = order[dim1], order[dim0]
        size = list(self._size)
        size[dim0], size[dim1] = size[dim1], size[dim0]
        return SparseCooTensor(self._indices_tensor[order], self._values_tensor, size)

    def __mul__(self, other):
        if isinstance(other, SparseCooTensor) or (isinstance(other, _C.Tensor) and other.dim() > 0):
            return self.to_dense() * (other.to_dense() if isinstance(other, SparseCooTensor) else other)
        return SparseCooTensor(self._indices_tensor, self._values_tensor * other, self._size, self._coalesced)

    __rmul__ = __mul__

    def __truediv__(self, other):
        return SparseCooTensor(self._indices_tensor, self._values_tensor / other, self._size, self._coalesced)

    def __neg__(self):
        return self * -1

    def __add__(self, other):
        if isinstance(other, SparseCooTensor):
            if list(other.shape) != list(self._size):
                raise RuntimeError(f"add: sparse sizes {list(self._size)} and {list(other.shape)} differ")
            return SparseCooTensor(_C.cat([self._indices_tensor, other._indices_tensor], 1),
                                   _C.cat([self._values_tensor, other._values_tensor], 0), self._size).coalesce()
        return self.to_dense() + other

    __radd__ = __add__

    def __sub__(self, other):
        return self + (-other)

    def mm(self, dense):
        return mm(self, dense)

    def __matmul__(self, other):
        if isinstance(other, _C.Tensor) and other.dim() == 1:
            return mm(self, other.unsqueeze(1)).squeeze(1)
        return mm(self, other)

    def __rmatmul__(self, other):
        return mm(self.t(), other.t()).t()

    def sum(self, dim=None):
        return sparse_sum(self, dim)

    def __repr__(self):
        indices = repr(self._indices_tensor).replace("\n", "\n" + " " * 15)
        values = repr(self._values_tensor).replace("\n", "\n" + " " * 7)
        grad = ", requires_grad=True" if self.requires_grad else ""
        return (f"tensor(indices={indices},\n       values={values},\n       size={tuple(self._size)}, "
                f"nnz={self._nnz()}, layout=torch.sparse_coo{grad})")


def _coordinates(linear, extents):
    """[len(extents), n] indices of flat row-major positions in the sparse dims of `extents`."""
    if not extents:
        return linear.new_zeros((0, linear.shape[0]))
    return _C.stack(list(unravel_index(linear, list(extents))))


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, requires_grad=False,
                      check_invariants=None, is_coalesced=None):
    """A sparse COO tensor from indices [sparse_dim, nnz] and values [nnz, *dense_dims]; without a size, the
    smallest that holds the indices."""
    indices = indices if isinstance(indices, _C.Tensor) else _tensor(indices, dtype=_C.int64)
    values = values if isinstance(values, _C.Tensor) else _tensor(values)
    indices = indices.to(_C.int64)
    if dtype is not None or device is not None:
        values = values.to(device=device, dtype=dtype)
    if size is None:
        extents = (indices.max(1).values + 1).tolist() if indices.shape[1] else [0] * indices.shape[0]
        size = [*extents, *values.shape[1:]]
    _check(indices, values, list(size))
    values = values.detach().requires_grad_() if requires_grad else values
    return SparseCooTensor(indices.to(values.device), values, size, coalesced=bool(is_coalesced))


def to_sparse(tensor, sparse_dim=None):
    """The nonzero entries of a dense tensor as a coalesced sparse COO tensor (its first sparse_dim dims sparse)."""
    sparse_dim = tensor.dim() if sparse_dim is None else sparse_dim
    flat_rows = tensor.reshape(math.prod(tensor.shape[:sparse_dim]), -1)
    kept = (flat_rows != 0).any(1).nonzero().reshape(-1)
    values = flat_rows.index_select(0, kept).reshape(-1, *tensor.shape[sparse_dim:])
    return SparseCooTensor(_coordinates(kept, tensor.shape[:sparse_dim]), values, tensor.shape, coalesced=True)


def mm(sparse, dense):
    """sparse [n, m] @ dense [m, k] as a dense [n, k]: each entry's value times its column's row of dense,
    added into its row."""
    if not isinstance(sparse, SparseCooTensor) or sparse.sparse_dim() != 2 or sparse.dense_dim() != 0:
        raise RuntimeError("sparse.mm: the first operand must be a 2-d sparse COO matrix without dense dims")
    if not isinstance(dense, _C.Tensor) or dense.dim() != 2 or dense.shape[0] != sparse.shape[1]:
        shape = list(dense.shape) if isinstance(dense, _C.Tensor) else type(dense).__name__
        raise RuntimeError(f"sparse.mm: mat1 and mat2 shapes cannot be multiplied ({sparse.shape[0]}x"
                           f"{sparse.shape[1]} and {shape})")
    rows, columns = sparse._indices_tensor[0], sparse._indices_tensor[1]
    contributions = dense.index_select(0, columns) * sparse._values_tensor.unsqueeze(1).to(dense.dtype)
    out = zeros((sparse.shape[0], dense.shape[1]), dtype=contributions.dtype, device=dense.device)
    return out.index_add(0, rows, contributions)


def sparse_sum(input, dim=None):
    """The sum of all entries (a dense 0-d tensor), or over `dim`: dense dims summed stay sparse, as in
    PyTorch, where the result keeps sparse dims."""
    if dim is None:
        return input._values_tensor.sum()
    dims = sorted(d % input.dim() for d in ((dim,) if isinstance(dim, int) else dim))
    dense = input.to_dense().sum(dims)
    kept_sparse = input.sparse_dim() - sum(1 for d in dims if d < input.sparse_dim())
    return to_sparse(dense, kept_sparse) if kept_sparse else dense


def softmax(input, dim, *, dtype=None):
    """Softmax over the specified entries of each row (dim=1) or column (dim=0) of a 2-d sparse matrix, the
    unspecified ones counting as -inf: a sparse matrix with the same indices."""
    if not isinstance(input, SparseCooTensor) or input.sparse_dim() != 2 or input.dense_dim() != 0:
        raise RuntimeError("sparse.softmax: expected a 2-d sparse COO matrix without dense dims")
    values = input._values_tensor if dtype is None else input._values_tensor.to(dtype)
    groups = input._indices_tensor[1 - dim % 2]
    count = input.shape[1 - dim % 2]
    peaks = zeros(count, dtype=values.dtype, device=values.device).scatter_reduce(0, groups, values.detach(),
                                                                                  "amax", include_self=False)
    exponentials = (values - peaks.index_select(0, groups)).exp()
    totals = zeros(count, dtype=values.dtype, device=values.device).index_add(0, groups, exponentials)
    return SparseCooTensor(input._indices_tensor, exponentials / totals.index_select(0, groups), input.shape,
                           input._coalesced)
