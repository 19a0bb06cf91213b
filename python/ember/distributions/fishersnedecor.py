"""FisherSnedecor(df1, df2): the F distribution, (Chi2(df1) / df1) /
(Chi2(df2) / df2), drawn as a ratio of Gamma draws."""

import math

from .._type_info import finfo
from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import batch_shape_of, broadcast_all


class FisherSnedecor(Distribution):
    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        self.df1, self.df2 = broadcast_all(df1, df2)
        super().__init__(batch_shape_of([df1, df2], self.df1), validate_args=validate_args)

    @property
    def mean(self):
        return self.df2 / (self.df2 - 2).where(self.df2 > 2, self.df2.new_full((), math.nan))

    @property
    def mode(self):
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return mode.where(self.df1 > 2, mode.new_full((), math.nan))

    @property
    def variance(self):
        df1, df2 = self.df1, self.df2.where(self.df2 > 4, self.df2.new_full((), math.nan))
        return 2 * df2.pow(2) * (df1 + df2 - 2) / (df1 * (df2 - 2).pow(2) * (df2 - 4))

    def rsample(self, sample_shape=()):
        # Gamma(df / 2, df) is Chi2(df) / (2 df): the factors 2 cancel in the ratio.
        tiny = finfo(self.df1.dtype).tiny
        numerator = Gamma(self.df1 * 0.5, self.df1).rsample(sample_shape)
        denominator = Gamma(self.df2 * 0.5, self.df2).rsample(sample_shape).clamp(min=tiny)
        return (numerator / denominator).clamp(min=tiny)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        half1, half2, ratio = self.df1 * 0.5, self.df2 * 0.5, self.df1 / self.df2
        log_beta = half1.lgamma() + half2.lgamma() - (half1 + half2).lgamma()
        return half1 * ratio.log() + (half1 - 1) * value.log() - (half1 + half2) * (ratio * value).log1p() - log_beta
