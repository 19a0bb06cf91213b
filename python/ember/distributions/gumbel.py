"""Gumbel(loc, scale): the distribution of the maximum (type I extreme values)."""

import math

from .. import _factories
from .._type_info import finfo
from .location_scale import LocationScale

_EULER = 0.57721566490153286060


class Gumbel(LocationScale):
    @property
    def mean(self):
        return self.loc + self.scale * _EULER

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        info = finfo(self.loc.dtype)
        uniform = _factories.rand(*shape, dtype=self.loc.dtype, device=self.loc.device).clamp(
            min=info.tiny, max=1 - info.eps)
        return self.loc - self.scale * (-uniform.log()).log()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (self.loc - value) / self.scale
        return z - z.exp() - self.scale.log()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (-(-(value - self.loc) / self.scale).exp()).exp()

    def icdf(self, value):
        return self.loc - self.scale * (-value.log()).log()

    def entropy(self):
        return self.scale.log() + (1 + _EULER)
