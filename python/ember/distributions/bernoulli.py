"""Bernoulli(probs or logits): 1 with probability probs, else 0."""

from .. import _factories
from ..autograd.grad_mode import no_grad
from ..nn.functional import binary_cross_entropy_with_logits
from . import constraints
from .distribution import Distribution
from .utils import BinaryParameters, batch_shape_of, broadcast_all


class Bernoulli(BinaryParameters, Distribution):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    param_shape = Distribution.batch_shape

    def __init__(self, probs=None, logits=None, validate_args=None):
        given = self._given(probs, logits)
        (param,) = broadcast_all(given)
        self._keep("probs" if probs is not None else "logits", param)
        super().__init__(batch_shape_of([given], param), validate_args=validate_args)

    @property
    def mean(self):
        return self.probs

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            uniform = _factories.rand(*shape, dtype=self.probs.dtype, device=self.probs.device)
            return (uniform < self.probs.expand(shape)).to(self.probs.dtype)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")
