"""Geometric(probs or logits): the number of failures before the first
success of Bernoulli(probs) trials."""

from .. import _factories
from .._type_info import finfo
from ..autograd.grad_mode import no_grad
from . import constraints
from .distribution import Distribution
from .utils import BinaryParameters, batch_shape_of, broadcast_all


class Geometric(BinaryParameters, Distribution):
    arg_constraints = {"probs": constraints.interval(0.0, 1.0), "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        given = self._given(probs, logits)
        (parameter,) = broadcast_all(given)
        self._keep("probs" if probs is not None else "logits", parameter)
        super().__init__(batch_shape_of([given], parameter), validate_args=validate_args)

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return self.probs * 0

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        tiny = finfo(self.probs.dtype).tiny
        with no_grad():
            uniform = _factories.rand(*shape, dtype=self.probs.dtype, device=self.probs.device).clamp(min=tiny)
            return (uniform.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        # 0 * log(1 - 1) is 0 here: a sure success has no failures before it.
        failures = _factories.zeros_like(value).where((probs == 1) & (value == 0), value * (-probs).log1p())
        return failures + probs.log()

    def entropy(self):
        return -(self.probs * self.probs.log() + (1 - self.probs) * (-self.probs).log1p()) / self.probs
