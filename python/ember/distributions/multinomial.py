"""Multinomial(total_count, probs or logits): counts of total_count
Categorical draws over the last dim."""

import math

from .. import _C, _factories
from ..autograd.grad_mode import no_grad
from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .utils import CategoricalParameters, broadcast_all


class _Multinomial(constraints.Constraint):
    """Non-negative counts along the last dim summing to at most total_count (PyTorch's check)."""

    def __init__(self, total_count):
        self.total_count = total_count

    def check(self, value):
        return (value >= 0).all(-1) & (value.sum(-1) <= self.total_count)


class Multinomial(CategoricalParameters, Distribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self._categorical.probs)
        shape = self._categorical.param_shape
        super().__init__(shape[:-1], shape[-1:], validate_args=validate_args)

    @property
    def support(self):
        return _Multinomial(self.total_count)

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        with no_grad():
            drawn = self._categorical.sample((self.total_count,) + tuple(sample_shape))
            order = list(range(1, drawn.dim())) + [0]
            drawn = drawn.permute(order)
            counts = _factories.zeros(*self._extended_shape(sample_shape), dtype=self.probs.dtype,
                                      device=self.probs.device)
            return counts.scatter_add(-1, drawn, _factories.ones_like(drawn, dtype=self.probs.dtype))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        # A category of probability 0 drawn 0 times adds nothing (0 * -inf is 0 here).
        logits = _C.where((value == 0) & (logits == float("-inf")), logits * 0, logits)
        return (value.sum(-1) + 1).lgamma() - (value + 1).lgamma().sum(-1) + (logits * value).sum(-1)

    def entropy(self):
        n = float(self.total_count)
        first = n * self._categorical.entropy() - math.lgamma(n + 1)
        counts = _factories.arange(1, self.total_count + 1, dtype=self.probs.dtype, device=self.probs.device)
        counts = counts.reshape([-1] + [1] * len(self._binomial.batch_shape))
        second = (self._binomial._log_pmf(counts).exp() * (counts + 1).lgamma()).sum([0, -1])
        return first + second
