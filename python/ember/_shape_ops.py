"""Shape composites over views and index_select: broadcast_shapes,
broadcast_tensors, meshgrid, movedim, repeat_interleave, Tensor.unfold and
split_with_sizes."""

import builtins

from . import _C
from ._C import Tensor
from ._tensor import Size


def broadcast_shapes(*shapes):
    """The shape the given shapes broadcast to (PyTorch's rule, from the right)."""
    result = []
    for position, shape in enumerate(shapes):
        shape = [shape] if isinstance(shape, int) else list(shape)
        if len(shape) > len(result):
            result = [1] * (len(shape) - len(result)) + result
        for offset, extent in enumerate(reversed(shape), start=1):
            current = result[-offset]
            if extent != current and extent != 1 and current != 1:
                raise RuntimeError(f"The size of tensor a ({current}) must match the size of tensor b ({extent}) at "
                                   f"non-singleton dimension {len(result) - offset}")
            if current == 1:
                result[-offset] = extent
    return Size(result)


def broadcast_tensors(*tensors):
    """Views of the tensors expanded to their common broadcast shape."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    shape = list(broadcast_shapes(*(t.shape for t in tensors)))
    return tuple(t.expand(shape) for t in tensors)


def broadcast_to(input, size):
    return input.expand(list(broadcast_shapes(input.shape, size)))


def meshgrid(*tensors, indexing="ij"):
    """Coordinate grids of 0-d or 1-d tensors: with "ij" output k varies along
    dim k; with "xy" the first two dims swap (NumPy's Cartesian order)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a tensor of "
                               f"shape {list(t.shape)}")
    vectors = [t.reshape(-1) for t in tensors]
    swap = indexing == "xy" and len(vectors) >= 2
    if swap:
        vectors[0], vectors[1] = vectors[1], vectors[0]
    shape = [v.shape[0] for v in vectors]
    grids = []
    for k, vector in enumerate(vectors):
        view_shape = [1] * len(vectors)
        view_shape[k] = shape[k]
        grids.append(vector.reshape(view_shape).expand(shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def _repeat_positions(repeats):
    """repeat_interleave(repeats): i repeated repeats[i] times, without a loop:
    a mark at each run's first position, summed cumulatively."""
    device = repeats.device
    total = int(repeats.sum().item()) if repeats.numel() else 0
    if total == 0:
        return _C._zeros([0], _C.int64, device)
    starts = repeats.cumsum(0) - repeats
    # Runs of length 0 start where the next run does; a mark at a shared start
    # counts each of them, so the cumulative sum skips their indices.
    inside = starts < total
    marks = _C._zeros([total], _C.int64, device)
    marks = _C.index_put(marks, [starts[inside]], _C._ones([int(inside.sum().item())], _C.int64, device), True)
    return marks.cumsum(0) - 1


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element (or slice along ``dim``) repeated ``repeats`` times (an int,
    or a tensor of one count per element); repeat_interleave(counts) alone
    gives each index repeated its count."""
    if repeats is None:
        repeats, input = input, None
    if isinstance(repeats, Tensor):
        if repeats.dtype.is_floating_point or repeats.dtype == _C.bool:
            raise RuntimeError(f"repeat_interleave: repeats must be an integer tensor, got "
                               f"{str(repeats.dtype).removeprefix('ember.')}")
        if repeats.dim() > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        repeats = repeats.to(_C.int64).reshape(-1)
        if bool((repeats < 0).any()):
            raise RuntimeError("repeats can not be negative")
        if input is None:
            return _repeat_positions(repeats)
    elif input is None:
        raise TypeError("repeat_interleave() missing required argument 'repeats'")
    elif repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    if dim is None:
        input, dim = input.reshape(-1), 0
    dim = dim % builtins.max(input.dim(), 1)
    extent = input.shape[dim] if input.dim() else 1
    if isinstance(repeats, Tensor) and repeats.numel() == 1:
        repeats = int(repeats.item())
    if isinstance(repeats, int):
        if input.dim() == 0:
            input = input.reshape(1)
        shape = list(input.shape)
        expanded = input.unsqueeze(dim + 1).expand(shape[:dim + 1] + [repeats] + shape[dim + 1:])
        return expanded.reshape(shape[:dim] + [extent * repeats] + shape[dim + 1:])
    if repeats.shape[0] != extent:
        raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                           f"{repeats.shape[0]} and input.size({dim}) = {extent}")
    return input.index_select(dim, _repeat_positions(repeats.to(input.device)))


def movedim(input, source, destination):
    """A view with the dims ``source`` moved to the positions ``destination``,
    the other dims keeping their order."""
    source = [source] if isinstance(source, int) else list(source)
    destination = [destination] if isinstance(destination, int) else list(destination)
    if len(source) != len(destination):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({source} dims) should contain "
                           f"the same number of dims as destination ({destination} dims)")
    rank = builtins.max(input.dim(), 1)
    for d in source + destination:
        if not -rank <= d < rank:
            raise IndexError(f"movedim: dimension {d} is out of range for a tensor of {input.dim()} dims")
    source = [d % rank for d in source]
    destination = [d % rank for d in destination]
    if len(set(source)) != len(source) or len(set(destination)) != len(destination):
        raise RuntimeError(f"movedim: repeated dim in source ({source}) or destination ({destination})")
    if input.dim() == 0:
        return input
    order = [None] * input.dim()
    for s, d in zip(source, destination):
        order[d] = s
    rest = iter(d for d in range(input.dim()) if d not in source)
    return input.permute([d if d is not None else next(rest) for d in order])


def _unfold(self, dimension, size, step):
    """A view of every slice of ``size`` elements along ``dimension``, ``step``
    apart, as a new last dim."""
    if self.dim() == 0:
        if size > 1:
            raise RuntimeError(f"maximum size for tensor at dimension 0 is 1 but size is {size}")
        return self.reshape([1])
    dimension = dimension % self.dim()
    extent = self.shape[dimension]
    if size > extent:
        raise RuntimeError(f"maximum size for tensor at dimension {dimension} is {extent} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    shape, strides = list(self.shape), list(self.stride())
    shape[dimension] = (extent - size) // step + 1
    along = strides[dimension]
    strides[dimension] = along * step
    return self.as_strided(shape + [size], strides + [along], self.storage_offset())


def split_with_sizes(input, split_sizes, dim=0):
    total = input.shape[dim]
    if builtins.sum(split_sizes) != total or builtins.any(size < 0 for size in split_sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {total} (input tensor's size at "
                           f"dimension {dim}), but got split_sizes={list(split_sizes)}")
    return input.split(list(split_sizes), dim)


Tensor.repeat_interleave = repeat_interleave
Tensor.unfold = _unfold
Tensor.split_with_sizes = split_with_sizes
Tensor.broadcast_to = broadcast_to
Tensor.movedim = movedim
Tensor.moveaxis = movedim


def tile(input, dims):
    dims = list(dims) if not isinstance(dims, int) else [dims]
    if len(dims) < input.dim():
        dims = [1] * (input.dim() - len(dims)) + dims
    x = input.reshape([1] * (len(dims) - input.dim()) + list(input.shape))
    return x.repeat(*dims)


def ravel(input):
    return input.reshape([-1])


def swapdims(input, dim0, dim1):
    return input.transpose(dim0, dim1)


def swapaxes(input, axis0, axis1):
    return input.transpose(axis0, axis1)


def in_place_view(view, name):
    """x.v_(...) for a view op v: x itself takes the view's sizes and strides
    (_C._become_view, python/src/tensor_bindings.cpp), and is returned."""
    def restride(self, *args, **kwargs):
        return _C._become_view(self, view(self, *args, **kwargs), name)

    restride.__name__ = name
    return restride


def unflatten(input, dim, sizes):
    dim = dim + input.dim() if dim < 0 else dim
    shape = list(input.shape)
    return input.reshape(shape[:dim] + list(sizes) + shape[dim + 1:])


def diff(input, n=1, dim=-1, prepend=None, append=None):
    parts = [t for t in (prepend, input, append) if t is not None]
    x = _C.cat(parts, dim) if len(parts) > 1 else input
    for _ in range(n):
        length = x.shape[dim]
        if length == 0:
            break
        after, before = x.narrow(dim, 1, length - 1), x.narrow(dim, 0, length - 1)
        x = after ^ before if x.dtype == _C.bool else after - before
    return x


def rot90(input, k=1, dims=(0, 1)):
    if len(dims) != 2 or dims[0] == dims[1]:
        raise RuntimeError(f"rot90: expected two different dims, got {list(dims)}")
    k %= 4
    a, b = dims
    if k == 1:
        return input.flip([b]).transpose(a, b)
    if k == 2:
        return input.flip([a, b])
    if k == 3:
        return input.flip([a]).transpose(a, b)
    return input.clone()


def flipud(input):
    return input.flip([0])


def fliplr(input):
    if input.dim() < 2:
        raise RuntimeError("fliplr: input must be at least 2-d")
    return input.flip([1])


def tensor_split(input, indices_or_sections, dim=0):
    length = input.shape[dim]
    if isinstance(indices_or_sections, int):
        sections = indices_or_sections
        if sections <= 0:
            raise RuntimeError(f"tensor_split: number of sections must be larger than 0, got {sections}")
        small, extra = divmod(length, sections)
        sizes = [small + 1] * extra + [small] * (sections - extra)
        bounds, start = [], 0
        for size in sizes:
            bounds.append((start, size))
            start += size
    else:
        cuts = [min(max(i if i >= 0 else i + length, 0), length) for i in indices_or_sections]
        edges = [0] + cuts + [length]
        bounds = [(edges[j], max(edges[j + 1] - edges[j], 0)) for j in range(len(edges) - 1)]
    return tuple(input.narrow(dim, start, size) for start, size in bounds)


def hsplit(input, sections):
    return tensor_split(input, sections, 1 if input.dim() > 1 else 0)


def vsplit(input, sections):
    return tensor_split(input, sections, 0)


def dsplit(input, sections):
    return tensor_split(input, sections, 2)


def atleast_1d(*tensors):
    out = [t.reshape([1]) if t.dim() == 0 else t for t in _flat(tensors)]
    return out[0] if len(out) == 1 else tuple(out)


def atleast_2d(*tensors):
    out = [t.reshape([1] * (2 - t.dim()) + list(t.shape)) if t.dim() < 2 else t for t in _flat(tensors)]
    return out[0] if len(out) == 1 else tuple(out)


def atleast_3d(*tensors):
    def lift(t):
        if t.dim() == 0:
            return t.reshape([1, 1, 1])
        if t.dim() == 1:
            return t.reshape([1, t.shape[0], 1])
        if t.dim() == 2:
            return t.unsqueeze(-1)
        return t
    out = [lift(t) for t in _flat(tensors)]
    return out[0] if len(out) == 1 else tuple(out)


def _flat(tensors):
    return list(tensors[0]) if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else list(tensors)


def take_along_dim(input, indices, dim=None):
    if dim is None:
        return input.reshape([-1]).gather(0, indices.reshape([-1]))
    dim = dim % input.dim()
    input_shape, index_shape = list(input.shape), list(indices.shape)
    input_shape[dim] = index_shape[dim] = 1
    common = list(broadcast_shapes(tuple(input_shape), tuple(index_shape)))
    input_shape, index_shape = list(common), list(common)
    input_shape[dim], index_shape[dim] = input.shape[dim], indices.shape[dim]
    return input.expand(input_shape).gather(dim, indices.expand(index_shape))


def take(input, index):
    return input.reshape([-1]).index_select(0, index.reshape([-1])).reshape(list(index.shape))


def kron(input, other):
    a, b = input, other
    n = max(a.dim(), b.dim())
    a = a.reshape([1] * (n - a.dim()) + list(a.shape))
    b = b.reshape([1] * (n - b.dim()) + list(b.shape))
    product = a.reshape([s for i in range(n) for s in (a.shape[i], 1)]) * b.reshape(
        [s for i in range(n) for s in (1, b.shape[i])])
    return product.reshape([a.shape[i] * b.shape[i] for i in range(n)])


def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal of dims dim1 and dim2 as the last dim of a view."""
    n = input.dim()
    if n < 2:
        raise RuntimeError(f"diagonal: expected a tensor of at least 2 dimensions, got {n}")
    dim1, dim2 = dim1 % n, dim2 % n
    if dim1 == dim2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    sizes, strides = list(input.shape), list(input.stride())
    if offset >= 0:
        length, start = max(min(sizes[dim1], sizes[dim2] - offset), 0), offset * strides[dim2]
    else:
        length, start = max(min(sizes[dim1] + offset, sizes[dim2]), 0), -offset * strides[dim1]
    keep = [d for d in range(n) if d not in (dim1, dim2)]
    return input.as_strided([sizes[d] for d in keep] + [length],
                            [strides[d] for d in keep] + [strides[dim1] + strides[dim2]],
                            input.storage_offset() + (start if length > 0 else 0))


def dot(input, other):
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {other.dim()}D tensors")
    if input.shape[0] != other.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src [{other.shape[0]}] "
                           "to have the same number of elements, but got "
                           f"{input.shape[0]} and {other.shape[0]} elements respectively")
    return (input * other).sum()


def inner(input, other):
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    k = input.shape[-1]
    if other.shape[-1] != k:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input.shape)} and {list(other.shape)}")
    product = input.reshape([-1, k]).matmul(other.reshape([-1, k]).transpose(0, 1))
    return product.reshape(list(input.shape[:-1]) + list(other.shape[:-1]))


def mv(input, vec):
    if input.dim() != 2 or vec.dim() != 1:
        raise RuntimeError(f"mv: expected a matrix and a vector, got {input.dim()}D and {vec.dim()}D")
    return input.matmul(vec)


def cross(input, other, dim=None):
    if dim is None:
        dim = next((d for d in range(input.dim()) if input.shape[d] == 3), -1)
    if input.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[dim]}")
    a0, a1, a2 = input.unbind(dim)
    b0, b1, b2 = other.unbind(dim)
    return _C.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], dim)


def hstack(tensors):
    tensors = atleast_1d(*tensors) if len(tensors) > 1 else [atleast_1d(tensors[0])]
    return _C.cat(list(tensors), 0 if tensors[0].dim() == 1 else 1)


def vstack(tensors):
    tensors = atleast_2d(*tensors) if len(tensors) > 1 else [atleast_2d(tensors[0])]
    return _C.cat(list(tensors), 0)


def dstack(tensors):
    tensors = atleast_3d(*tensors) if len(tensors) > 1 else [atleast_3d(tensors[0])]
    return _C.cat(list(tensors), 2)


def column_stack(tensors):
    columns = [t.reshape([-1, 1]) if t.dim() <= 1 else t for t in tensors]
    return _C.cat(columns, 1)


def _triangle_indices(row, col, offset, upper):
    from . import int64, tensor  # the package, once loaded
    rows, cols = [], []
    for i in range(row):
        for j in range(col):
            if (j - i >= offset) if upper else (j - i <= offset):
                rows.append(i)
                cols.append(j)
    return tensor([rows, cols], dtype=int64).reshape([2, len(rows)])


def tril_indices(row, col, offset=0, *, dtype=None, device=None):
    out = _triangle_indices(row, col, offset, upper=False)
    return out.to(device or "cpu", dtype or out.dtype)


def triu_indices(row, col, offset=0, *, dtype=None, device=None):
    out = _triangle_indices(row, col, offset, upper=True)
    return out.to(device or "cpu", dtype or out.dtype)


def cartesian_prod(*tensors):
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return _C.stack([g.reshape([-1]) for g in grids], 1)


def combinations(input, r=2, with_replacement=False):
    import itertools
    from . import int64, tensor
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = list(pick(range(input.shape[0]), r))
    if not rows:
        return input.new_empty([0, r] if r > 0 else [0])
    index = tensor(rows, dtype=int64)
    return input.index_select(0, index.reshape([-1])).reshape([len(rows), r])


def block_diag(*tensors):
    blocks = [t.reshape([1, -1]) if t.dim() == 1 else t.reshape([1, 1]) if t.dim() == 0 else t for t in tensors]
    for t in blocks:
        if t.dim() != 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input has "
                               f"{t.dim()} dimensions")
    rows = builtins.sum(t.shape[0] for t in blocks)
    cols = builtins.sum(t.shape[1] for t in blocks)
    from . import promote_types, zeros
    dtype = blocks[0].dtype if blocks else None
    for t in blocks[1:]:
        dtype = promote_types(dtype, t.dtype)
    out_rows, c = [], 0
    for t in blocks:
        left = t.new_zeros([t.shape[0], c], dtype=dtype)
        right = t.new_zeros([t.shape[0], cols - c - t.shape[1]], dtype=dtype)
        out_rows.append(_C.cat([left, t.to(dtype), right], 1))
        c += t.shape[1]
    return _C.cat(out_rows, 0) if out_rows else zeros(rows, cols)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """(..., k) -> (..., n, n), n = k + |offset|, input[..., i] at (i, i + offset),
    as the product rows^T diag(input) cols of two slices of the identity:
    differentiable, and zero elsewhere."""
    from . import eye
    k = input.shape[-1]
    n = k + builtins.abs(offset)
    rows = eye(n, dtype=input.dtype, device=input.device).narrow(0, builtins.max(-offset, 0), k)
    cols = eye(n, dtype=input.dtype, device=input.device).narrow(0, builtins.max(offset, 0), k)
    result = (rows.transpose(0, 1) * input.unsqueeze(-2)).matmul(cols)
    last = input.dim() + 1
    if (dim1 % last, dim2 % last) != (last - 2, last - 1):
        result = movedim(result, [-2, -1], [dim1, dim2])
    return result


def diagflat(input, offset=0):
    return diag_embed(input.reshape([-1]), offset)
