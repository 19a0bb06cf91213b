"""Transforms onto the probability simplex of the last dim: SoftmaxTransform
(not injective: shifting the input changes nothing) and
StickBreakingTransform (a bijection from K - 1 reals onto K probabilities)."""

from .. import _factories
from .._tensor import Size
from .._type_info import finfo
from . import constraints
from .transforms import _clipped_sigmoid, _Stateless


def _last_dim_checked(shape):
    if len(shape) < 1:
        raise ValueError("Too few dimensions on input")
    return Size(shape)


class SoftmaxTransform(_Stateless):
    """exp(x) normalized along the last dim; its inverse is log, the representative summing to 0 in exp."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def _call(self, x):
        probs = (x - x.amax(-1, keepdim=True)).exp()
        return probs / probs.sum(-1, keepdim=True)

    def _inverse(self, y):
        return y.log()

    forward_shape = inverse_shape = staticmethod(_last_dim_checked)


def _offsets(count, like):
    """log(count), log(count - 1), ..., log(1): subtracted so that x = 0 breaks the stick evenly."""
    return (count + 1 - _factories.ones(count, dtype=like.dtype, device=like.device).cumsum(-1)).log()


class StickBreakingTransform(_Stateless):
    """Each of K - 1 inputs, through a sigmoid, takes its fraction of the
    stick the earlier ones left; the last probability is what remains."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def _call(self, x):
        from ..nn.functional import pad

        fractions = _clipped_sigmoid(x - _offsets(x.shape[-1], x))
        remaining = (1 - fractions).cumprod(-1)
        return pad(fractions, [0, 1], value=1.0) * pad(remaining, [1, 0], value=1.0)

    def _inverse(self, y):
        head = y[..., :-1]
        remaining = (1 - head.cumsum(-1)).clamp(min=finfo(y.dtype).tiny)
        return head.log() - remaining.log() + _offsets(head.shape[-1], y)

    def log_abs_det_jacobian(self, x, y):
        from ..nn.functional import logsigmoid

        shifted = x - _offsets(x.shape[-1], x)
        return (-shifted + logsigmoid(shifted) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        shape = _last_dim_checked(shape)
        return Size(tuple(shape[:-1]) + (shape[-1] + 1,))

    def inverse_shape(self, shape):
        shape = _last_dim_checked(shape)
        return Size(tuple(shape[:-1]) + (shape[-1] - 1,))
