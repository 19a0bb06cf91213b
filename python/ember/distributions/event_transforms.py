"""Transforms that arrange other transforms over a tensor's dims:
IndependentTransform (batch dims read as event dims), ReshapeTransform,
CatTransform (one transform per slice along a dim) and StackTransform (one
per index along a dim)."""

from .. import _C
from .._tensor import Size
from . import constraints
from .transforms import Transform
from .utils import sum_rightmost


class IndependentTransform(Transform):
    """base_transform with its last reinterpreted_batch_ndims batch dims read
    as event dims: its log-det-Jacobian sums over them."""

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims, cache_size=cache_size)

    @property
    def domain(self):
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @property
    def codomain(self):
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    bijective = property(lambda self: self.base_transform.bijective)
    sign = property(lambda self: self.base_transform.sign)

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y), self.reinterpreted_batch_ndims)

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)

    def __repr__(self):
        return f"IndependentTransform({self.base_transform!r}, {self.reinterpreted_batch_ndims})"


class ReshapeTransform(Transform):
    """The rightmost in_shape dims reshaped to out_shape (a volume-preserving bijection)."""

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape, self.out_shape = Size(in_shape), Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    domain = property(lambda self: constraints.independent(constraints.real, len(self.in_shape)))
    codomain = property(lambda self: constraints.independent(constraints.real, len(self.out_shape)))

    def _call(self, x):
        return x.reshape(tuple(x.shape[:x.dim() - len(self.in_shape)]) + tuple(self.out_shape))

    def _inverse(self, y):
        return y.reshape(tuple(y.shape[:y.dim() - len(self.out_shape)]) + tuple(self.in_shape))

    def log_abs_det_jacobian(self, x, y):
        return x.new_zeros(tuple(x.shape[:x.dim() - len(self.in_shape)]))

    def forward_shape(self, shape):
        return _swap_trailing(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return _swap_trailing(shape, self.out_shape, self.in_shape)


def _swap_trailing(shape, old, new):
    if len(shape) < len(old):
        raise ValueError("Too few dimensions on input")
    cut = len(shape) - len(old)
    if tuple(shape[cut:]) != tuple(old):
        raise ValueError(f"Shape mismatch: expected {Size(shape[cut:])} but got {old}")
    return Size(tuple(shape[:cut]) + tuple(new))


class _PiecewiseTransform(Transform):
    """A transform applied piece by piece along `dim` (CatTransform,
    StackTransform): pieces(z) splits a tensor, join(pieces) puts it back."""

    def __init__(self, tseq, dim, cache_size):
        if not all(isinstance(t, Transform) for t in tseq):
            raise TypeError("All elements of tseq must be Transform instances")
        super().__init__(cache_size)
        self.transforms = [t.with_cache(cache_size) for t in tseq] if cache_size else list(tseq)
        self.dim = dim

    bijective = property(lambda self: all(t.bijective for t in self.transforms))

    def _checked_pieces(self, z):
        if not -z.dim() <= self.dim < z.dim():
            raise ValueError(f"dim {self.dim} out of range for a tensor with {z.dim()} dimensions")
        if z.shape[self.dim] != self._extent:
            raise ValueError(f"Expected size {self._extent} along dim {self.dim}, got {z.shape[self.dim]}")
        return self._pieces(z)

    def _call(self, x):
        return self._join([t(piece) for t, piece in zip(self.transforms, self._checked_pieces(x))])

    def _inverse(self, y):
        return self._join([t.inv(piece) for t, piece in zip(self.transforms, self._checked_pieces(y))])


class CatTransform(_PiecewiseTransform):
    """transforms[i] applied to the i-th slice (of lengths[i], 1 by default) along dim."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        super().__init__(tseq, dim, cache_size)
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.transforms)
        if len(self.lengths) != len(self.transforms):
            raise ValueError(f"lengths ({len(self.lengths)}) must match transforms ({len(self.transforms)})")

    def with_cache(self, cache_size=1):
        return self if self._cache_size == cache_size else CatTransform(self.transforms, self.dim, self.lengths,
                                                                         cache_size)

    @property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self):
        return sum(self.lengths)

    _extent = length

    domain = property(lambda self: constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths))
    codomain = property(lambda self: constraints.cat([t.codomain for t in self.transforms], self.dim,
                                                     self.lengths))

    def _pieces(self, z):
        starts = [sum(self.lengths[:i]) for i in range(len(self.lengths))]
        return [z.narrow(self.dim, start, length) for start, length in zip(starts, self.lengths)]

    def _join(self, pieces):
        return _C.cat(pieces, self.dim)

    def log_abs_det_jacobian(self, x, y):
        event_dim = self.event_dim
        terms = [sum_rightmost(t.log_abs_det_jacobian(x_piece, y_piece), event_dim - t.event_dim)
                 for t, x_piece, y_piece in zip(self.transforms, self._checked_pieces(x), self._checked_pieces(y))]
        # Whether `dim` lies among the batch dims of the result decides between joining and summing the terms.
        dim = (self.dim - x.dim() if self.dim >= 0 else self.dim) + event_dim
        return _C.cat(terms, dim) if dim < 0 else sum(terms)


class StackTransform(_PiecewiseTransform):
    """transforms[i] applied to index i along dim."""

    def __init__(self, tseq, dim=0, cache_size=0):
        super().__init__(tseq, dim, cache_size)

    def with_cache(self, cache_size=1):
        return self if self._cache_size == cache_size else StackTransform(self.transforms, self.dim, cache_size)

    _extent = property(lambda self: len(self.transforms))

    domain = property(lambda self: constraints.stack([t.domain for t in self.transforms], self.dim))
    codomain = property(lambda self: constraints.stack([t.codomain for t in self.transforms], self.dim))

    def _pieces(self, z):
        return [z.select(self.dim, i) for i in range(z.shape[self.dim])]

    def _join(self, pieces):
        return _C.stack(pieces, self.dim)

    def log_abs_det_jacobian(self, x, y):
        return _C.stack([t.log_abs_det_jacobian(x_piece, y_piece) for t, x_piece, y_piece in
                         zip(self.transforms, self._checked_pieces(x), self._checked_pieces(y))], self.dim)
