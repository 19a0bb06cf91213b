"""Helpers the distributions share: broadcasting their parameters, and the
conversions between probabilities and logits."""

import numbers

from .. import _C, _factories
from .._tensor import Size

EULER_GAMMA = 0.57721566490153286060

# finfo(dtype).eps of the floating dtypes, to keep probabilities off 0 and 1.
_EPS = {_C.float16: 2.0 ** -10, _C.bfloat16: 2.0 ** -7, _C.float32: 2.0 ** -23, _C.float64: 2.0 ** -52}
# finfo(dtype).min, the most negative finite value.
FLOAT_MIN = {_C.float16: -65504.0, _C.bfloat16: -3.3895313892515355e38, _C.float32: -3.4028234663852886e38,
             _C.float64: -1.7976931348623157e308}


def broadcast_shape(*shapes):
    result = []
    for extents in zip(*(reversed(([1] * (max(map(len, shapes)) - len(s))) + list(s)) for s in shapes)):
        sizes = {extent for extent in extents if extent != 1}
        if len(sizes) > 1:
            raise RuntimeError(f"shapes {[list(s) for s in shapes]} cannot be broadcast together")
        result.append(sizes.pop() if sizes else 1)
    return list(reversed(result))


def broadcast_all(*values):
    """The values as tensors of one shape: numbers take the dtype and device
    of the first tensor (the default dtype without one)."""
    if not all(isinstance(value, (_C.Tensor, numbers.Number)) for value in values):
        raise ValueError("Input arguments must all be instances of Number or ember.Tensor.")
    like = next((value for value in values if isinstance(value, _C.Tensor)), None)
    options = dict(dtype=like.dtype, device=like.device) if like is not None else {}
    tensors = [value if isinstance(value, _C.Tensor) else _factories.tensor(value, **options) for value in values]
    shape = broadcast_shape(*(tuple(tensor.shape) for tensor in tensors))
    return tuple(tensor.expand(shape) for tensor in tensors)


def batch_shape_of(given, broadcast):
    """The batch shape of a distribution built from the parameters `given`
    and broadcast to the tensor `broadcast`: () when all were numbers."""
    return Size() if all(isinstance(value, numbers.Number) for value in given) else broadcast.shape


def sum_rightmost(value, dims):
    """value summed over its `dims` rightmost dims, or over all of them where
    it has fewer, as PyTorch's _sum_rightmost (a number stays as it is)."""
    if dims <= 0 or not hasattr(value, "sum"):
        return value
    return value.sum(list(range(-dims, 0))) if value.dim() >= dims else value.sum()


def clamp_probs(probs):
    eps = _EPS[probs.dtype]
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    clamped = clamp_probs(probs)
    if is_binary:
        return clamped.log() - (-clamped).log1p()
    return clamped.log()


def logits_to_probs(logits, is_binary=False):
    return logits.sigmoid() if is_binary else logits.softmax(-1)


class lazy_property:
    """Computed on first read, then kept as the instance's attribute (so a
    distribution built from logits computes its probs only when asked)."""

    def __init__(self, compute):
        self.compute = compute
        self.__doc__ = compute.__doc__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = self.compute(instance)
        instance.__dict__[self.compute.__name__] = value
        return value


class BinaryParameters:
    """probs and logits of a two-outcome distribution, either given and the
    other computed from it on first use (Bernoulli, Binomial, Geometric,
    LogitRelaxedBernoulli)."""

    @staticmethod
    def _given(probs, logits):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        return probs if probs is not None else logits

    def _keep(self, name, parameter):
        """Stores the given parameter under its name, as the lazy properties expect."""
        self.__dict__[name] = parameter

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)


class CategoricalParameters:
    """probs, logits and param_shape of a distribution built on a Categorical
    in self._categorical (OneHotCategorical, Multinomial,
    ExpRelaxedCategorical)."""

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def param_shape(self):
        return self._categorical.param_shape


def _tril_positions(size, diag, device):
    """Flat positions, row by row, of the entries of a size x size matrix on
    or below its diag-th diagonal."""
    from .._shape_ops import tril_indices

    rows, cols = tril_indices(size, size, diag, device=device)
    return rows * size + cols


def tril_matrix_to_vec(matrix, diag=0):
    """The entries on or below the diag-th diagonal, row by row, as the last dim."""
    size = matrix.shape[-1]
    flat = matrix.reshape(tuple(matrix.shape[:-2]) + (size * size,))
    return flat.index_select(-1, _tril_positions(size, diag, matrix.device))


def vec_to_tril_matrix(vec, diag=0):
    """The inverse of tril_matrix_to_vec: a square matrix, zero above the diag-th diagonal."""
    count = vec.shape[-1]
    # The size n whose triangle on or below diagonal diag holds count entries: n^2 + (2 diag + 1) n
    # + diag (diag + 1) = 2 count.
    size = round((-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * count + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2)
    positions = _tril_positions(size, diag, vec.device)
    source = _factories.full((size * size,), count, dtype=positions.dtype, device=vec.device)
    source = source.index_put((positions,), _factories.arange(count, dtype=positions.dtype, device=vec.device))
    padded = _C.cat([vec, vec.new_zeros(tuple(vec.shape[:-1]) + (1,))], -1)
    return padded.index_select(-1, source).reshape(tuple(vec.shape[:-1]) + (size, size))
