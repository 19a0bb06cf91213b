"""Binomial(total_count, probs or logits): successes in total_count
Bernoulli(probs) trials."""

from .. import _factories
from .._binomial import binomial
from ..autograd.grad_mode import no_grad
from . import constraints
from .distribution import Distribution
from .utils import BinaryParameters, broadcast_all


class Binomial(BinaryParameters, Distribution):
    arg_constraints = {"total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
                       "logits": constraints.real}
    param_shape = Distribution.batch_shape

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        given = self._given(probs, logits)
        self.total_count, parameter = broadcast_all(total_count, given)
        self.total_count = self.total_count.type_as(parameter)
        self._keep("probs" if probs is not None else "logits", parameter)
        super().__init__(parameter.shape, validate_args=validate_args)

    @property
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().minimum(self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = list(self._extended_shape(sample_shape))
        with no_grad():
            return binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._log_pmf(value)

    def _log_pmf(self, value):
        n = self.total_count
        combinations = (n + 1).lgamma() - (value + 1).lgamma() - (n - value + 1).lgamma()
        # value * log(p) + (n - value) * log(1 - p), from the logits so that p near 0 or 1 stays finite.
        log_one_minus = -(self.logits.clamp(min=0) + (-self.logits.abs()).exp().log1p())
        return combinations + value * self.logits + n * log_one_minus

    def entropy(self):
        count = int(self.total_count.max().item())
        if bool((self.total_count != count).any()):
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        values = _factories.arange(count + 1, dtype=self.probs.dtype, device=self.probs.device)
        values = values.reshape([-1] + [1] * len(self._batch_shape)).expand([count + 1] + list(self._batch_shape))
        log_probs = self._log_pmf(values)
        return -(log_probs.exp() * log_probs).sum(0)
