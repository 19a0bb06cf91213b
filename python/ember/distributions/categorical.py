"""Categorical(probs or logits) over 0 .. K-1, K the last dim's size."""

import math

from .. import _C, _factories
from .._tensor import Size
from ..autograd.grad_mode import no_grad
from . import constraints
from .distribution import Distribution
from .utils import FLOAT_MIN, broadcast_shape, lazy_property, logits_to_probs, probs_to_logits


class Categorical(Distribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.__dict__["probs"] = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.__dict__["logits"] = logits - logits.logsumexp(-1, keepdim=True)
        param = probs if probs is not None else logits
        self._num_events = param.shape[-1]
        super().__init__(param.shape[:-1], validate_args=validate_args)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def param_shape(self):
        return Size(tuple(self._batch_shape) + (self._num_events,))

    @property
    def mean(self):
        return _factories.full(tuple(self._extended_shape()), math.nan, dtype=self.probs.dtype,
                               device=self.probs.device)

    variance = mean

    @property
    def mode(self):
        return self.probs.argmax(-1)

    def sample(self, sample_shape=()):
        """Inverse-CDF sampling: the first category whose cumulative
        probability passes a uniform draw (a category of probability 0 is
        never drawn)."""
        shape = Size(sample_shape)
        with no_grad():
            cumulative = self.probs.reshape(-1, self._num_events).cumsum(-1)
            uniform = _factories.rand(shape.numel(), cumulative.shape[0], 1, dtype=cumulative.dtype,
                                      device=cumulative.device) * cumulative[:, -1:]
            drawn = (cumulative < uniform).sum(-1).clamp(max=self._num_events - 1)
            return drawn.to(_C.int64).reshape(tuple(self._extended_shape(shape)))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = value.to(_C.int64).unsqueeze(-1)
        shape = broadcast_shape(tuple(value.shape), tuple(self.logits.shape))
        return self.logits.expand(shape).gather(-1, value.expand(shape[:-1] + [1])).squeeze(-1)

    def entropy(self):
        logits = self.logits.clamp(min=FLOAT_MIN[self.logits.dtype])
        return -(logits * self.probs).sum(-1)
