"""NegativeBinomial(total_count, probs | logits): the number of successes
(each of probability probs) before total_count failures, drawn as a
Poisson count with a Gamma(total_count, (1 - probs) / probs) rate."""

from .._poisson import poisson
from ..autograd.grad_mode import no_grad
from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import BinaryParameters, broadcast_all


class NegativeBinomial(BinaryParameters, Distribution):
    arg_constraints = {"total_count": constraints.greater_than_eq(0), "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer
    param_shape = Distribution.batch_shape

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        given = self._given(probs, logits)
        total_count, parameter = broadcast_all(total_count, given)
        self.total_count = total_count.type_as(parameter)
        self._keep("probs" if probs is not None else "logits", parameter)
        super().__init__(parameter.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.total_count * self.logits.exp()

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / (-self.logits).sigmoid()

    def sample(self, sample_shape=()):
        with no_grad():
            rate = Gamma(self.total_count, (-self.logits).exp(), validate_args=False).sample(sample_shape)
            return poisson(rate)

    def log_prob(self, value):
        from ..nn.functional import logsigmoid

        if self._validate_args:
            self._validate_sample(value)
        unnormalized = self.total_count * logsigmoid(-self.logits) + value * logsigmoid(self.logits)
        log_normalization = -(self.total_count + value).lgamma() + (1.0 + value).lgamma() + self.total_count.lgamma()
        # No failures and no successes is certain: its terms are lgamma(0) - lgamma(0), taken as 0.
        return unnormalized - log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
