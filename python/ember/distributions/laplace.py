"""Laplace(loc, scale)."""

import math
import numbers

from .. import _factories
from .._type_info import finfo
from .._tensor import Size
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all


class Laplace(Distribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        scalars = isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number)
        super().__init__(Size() if scalars else self.loc.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return math.sqrt(2) * self.scale

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        # A uniform draw on (-1, 1), kept off -1 so that log1p stays finite.
        tiny = finfo(self.loc.dtype).eps - 1
        uniform = _factories.rand(*shape, dtype=self.loc.dtype, device=self.loc.device) * 2 - 1
        uniform = uniform.clamp(min=tiny)
        return self.loc - self.scale * uniform.sign() * (-uniform.abs()).log1p()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * (-(value - self.loc).abs() / self.scale).expm1()

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * (-2 * term.abs()).log1p()

    def entropy(self):
        return 1 + (2 * self.scale).log()
