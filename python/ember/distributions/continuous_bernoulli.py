"""ContinuousBernoulli(probs | logits, lims): the density proportional to
p^x (1 - p)^(1 - x) on [0, 1] (Loaiza-Ganem and Cunningham, 2019)."""

import math

from .. import _C, _factories
from . import constraints
from .exp_family import ExponentialFamily
from .utils import BinaryParameters, batch_shape_of, broadcast_all, clamp_probs, lazy_property, logits_to_probs

# Note [Continuous Bernoulli near one half]
# The normalizer 2 atanh(1 - 2p) / (1 - 2p), the mean and the variance are
# 0/0 at p = 1/2, so inside the band `lims` around it (0.499 to 0.501 by
# default) they are Taylor polynomials in (p - 1/2), and the closed forms are
# evaluated at lims[0] instead so that their gradients stay finite; cdf and
# icdf are the identity there (the density is nearly flat).


class ContinuousBernoulli(BinaryParameters, ExponentialFamily):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True
    _mean_carrier_measure = 0
    param_shape = ExponentialFamily.batch_shape

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        given = self._given(probs, logits)
        (parameter,) = broadcast_all(given)
        if probs is not None:
            if validate_args is not None and not constraints.all_true(constraints.unit_interval.check(parameter)):
                raise ValueError("The parameter probs has invalid values")
            parameter = clamp_probs(parameter)
        self._keep("probs" if probs is not None else "logits", parameter)
        self._lims = lims
        super().__init__(batch_shape_of([given], parameter), validate_args=validate_args)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    def _outside_unstable_region(self):
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self):
        """probs, with lims[0] inside the band (Note [Continuous Bernoulli near one half])."""
        return self.probs.where(self._outside_unstable_region(), self.probs.new_full((), self._lims[0]))

    def _log_normalizer_of_probs(self):
        cut = self._cut_probs()
        below_half = cut.where(cut <= 0.5, cut.new_zeros(()))
        above_half = cut.where(cut >= 0.5, cut.new_ones(()))
        closed = ((-cut).log1p() - cut.log()).abs().log() - _C.where(
            cut <= 0.5, (-2.0 * below_half).log1p(), (2.0 * above_half - 1.0).log())
        x = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return closed.where(self._outside_unstable_region(), taylor)

    @property
    def mean(self):
        cut = self._cut_probs()
        closed = cut / (2.0 * cut - 1.0) + 1.0 / ((-cut).log1p() - cut.log())
        x = self.probs - 0.5
        return closed.where(self._outside_unstable_region(), 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x)

    @property
    def variance(self):
        cut = self._cut_probs()
        closed = cut * (cut - 1.0) / (1.0 - 2.0 * cut).pow(2) + 1.0 / ((-cut).log1p() - cut.log()).pow(2)
        x = (self.probs - 0.5).pow(2)
        return closed.where(self._outside_unstable_region(), 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x)

    def rsample(self, sample_shape=()):
        uniform = _factories.rand(*self._extended_shape(sample_shape), dtype=self.probs.dtype,
                                  device=self.probs.device)
        return self.icdf(uniform)

    def log_prob(self, value):
        from ..nn.functional import softplus

        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return value * logits - softplus(logits) + self._log_normalizer_of_probs()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        closed = (cut.pow(value) * (1.0 - cut).pow(1.0 - value) + cut - 1.0) / (2.0 * cut - 1.0)
        inside = closed.where(self._outside_unstable_region(), value)
        return inside.where(value > 0.0, value * 0).where(value < 1.0, value * 0 + 1)

    def icdf(self, value):
        cut = self._cut_probs()
        closed = (((-cut) + value * (2.0 * cut - 1.0)).log1p() - (-cut).log1p()) / (cut.log() - (-cut).log1p())
        return closed.where(self._outside_unstable_region(), value)

    def entropy(self):
        log_probs0, log_probs1 = (-self.probs).log1p(), self.probs.log()
        return self.mean * (log_probs0 - log_probs1) - self._log_normalizer_of_probs() - log_probs0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        outside = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut = x.where(outside, x.new_full((), self._lims[0] - 0.5))
        closed = cut.expm1().abs().log() - cut.abs().log()
        return closed.where(outside, 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0)
