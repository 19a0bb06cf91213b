"""Laplace(loc, scale)."""

import math

from .. import _factories
from .._type_info import finfo
from .location_scale import LocationScale


class Laplace(LocationScale):
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
