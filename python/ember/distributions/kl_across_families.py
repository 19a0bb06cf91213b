"""The closed forms of KL(p || q) for p and q of different families that
PyTorch registers. A p with mass where q has none (an unbounded p against a
bounded or positive q) has an infinite KL, in p's batch shape as PyTorch
gives it."""

import math

from .. import _C, _factories
from ..special import xlogy
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .continuous_bernoulli import ContinuousBernoulli
from .exponential import Exponential
from .gamma import Gamma
from .gumbel import Gumbel
from .kl import register_kl
from .laplace import Laplace
from .normal import Normal
from .pareto import Pareto
from .poisson import Poisson
from .uniform import Uniform
from .utils import EULER_GAMMA


def _x_log_x(tensor):
    return xlogy(tensor, tensor)


@register_kl(Beta, Pareto)
@register_kl(ContinuousBernoulli, Pareto)
@register_kl(Exponential, Beta)
@register_kl(Exponential, ContinuousBernoulli)
@register_kl(Exponential, Pareto)
@register_kl(Exponential, Uniform)
@register_kl(Gamma, Beta)
@register_kl(Gamma, ContinuousBernoulli)
@register_kl(Gamma, Pareto)
@register_kl(Gamma, Uniform)
@register_kl(Gumbel, Beta)
@register_kl(Gumbel, ContinuousBernoulli)
@register_kl(Gumbel, Exponential)
@register_kl(Gumbel, Gamma)
@register_kl(Gumbel, Pareto)
@register_kl(Gumbel, Uniform)
@register_kl(Laplace, Beta)
@register_kl(Laplace, ContinuousBernoulli)
@register_kl(Laplace, Exponential)
@register_kl(Laplace, Gamma)
@register_kl(Laplace, Pareto)
@register_kl(Laplace, Uniform)
@register_kl(Normal, Beta)
@register_kl(Normal, ContinuousBernoulli)
@register_kl(Normal, Exponential)
@register_kl(Normal, Gamma)
@register_kl(Normal, Pareto)
@register_kl(Normal, Uniform)
@register_kl(Pareto, Beta)
@register_kl(Pareto, ContinuousBernoulli)
@register_kl(Pareto, Uniform)
@register_kl(Poisson, Bernoulli)
@register_kl(Poisson, Binomial)
def _kl_infinity(p, q):
    """p has mass where q has none, wherever p's parameters put it."""
    return _factories.full_like(p.mean, math.inf)


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


def _continuous_bernoulli_expected_log_density(mean, q):
    """E_p[log q(x)] for p of this mean: q's log density is linear in x."""
    return mean * q.logits + (-q.probs).log1p() + q._log_normalizer_of_probs()


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p, q):
    return -p.entropy() - _continuous_bernoulli_expected_log_density(p.mean, q)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p, q):
    result = -p.entropy() - _continuous_bernoulli_expected_log_density(p.mean, q)
    # PyTorch counts a p that reaches either end of [0, 1] as outside it.
    return _C.where((p.high >= q.support.upper_bound) | (p.low <= q.support.lower_bound), math.inf, result)


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * (p.concentration1 / (p.concentration1 + p.concentration0))


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    total = p.concentration1 + p.concentration0
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (q.concentration - 1) * (p.concentration1.digamma() - total.digamma())
    return -p.entropy() + t2 - t3 + q.rate * p.concentration1 / total


@register_kl(Beta, Normal)
def _kl_beta_normal(p, q):
    total = p.concentration1 + p.concentration0
    mean = p.concentration1 / total
    variance = q.scale.pow(2)
    second_moment = (mean * (1 - mean) / (total + 1) + mean.pow(2)) * 0.5
    return (-p.entropy() + 0.5 * (variance * 2 * math.pi).log()
            + (second_moment - q.loc * mean + q.loc.pow(2) * 0.5) / variance)


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    return result.masked_fill((q.low > p.support.lower_bound) | (q.high < p.support.upper_bound), math.inf)


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p, q):
    t2 = 0.5 * (math.log(2.0 * math.pi) + (q.loc / q.scale).square()) + q.scale.log()
    t3 = (p.variance + p.mean.square() - 2.0 * q.loc * p.mean) / (2.0 * q.scale.square())
    return -p.entropy() + t2 + t3


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    # PyTorch counts a q that reaches into [0, 1] from either end as not covering it.
    return _C.where((q.low >= p.support.lower_bound) | (q.high <= p.support.upper_bound), math.inf, result)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    ratio = q.rate / p.rate
    return (-q.concentration * ratio.log() + ratio + q.concentration.lgamma() + q.concentration * EULER_GAMMA
            - (1 + EULER_GAMMA))


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    scale_rate = p.rate * q.scale
    loc_scale = q.loc / q.scale
    t2 = loc_scale.exp() * scale_rate / (scale_rate + 1)
    return scale_rate.log() - 1 - loc_scale + t2 + scale_rate.reciprocal()


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    variance = q.scale.pow(2)
    rate_squared = p.rate.pow(2)
    t1 = 0.5 * (rate_squared * variance * 2 * math.pi).log()
    return t1 - 1 + (rate_squared.reciprocal() - q.loc / p.rate + q.loc.pow(2) * 0.5) / variance


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.concentration / p.rate


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p, q):
    rate_scale = p.rate * q.scale
    loc_scale = q.loc / q.scale
    t1 = (p.concentration - 1) * p.concentration.digamma() - p.concentration.lgamma() - p.concentration
    t2 = rate_scale.log() + p.concentration / rate_scale
    t3 = loc_scale.exp() * (1 + rate_scale.reciprocal()).pow(-p.concentration) - loc_scale
    return t1 + t2 + t3


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p, q):
    variance = q.scale.pow(2)
    rate_squared = p.rate.pow(2)
    t1 = 0.5 * (rate_squared * variance * 2 * math.pi).log() - p.concentration - p.concentration.lgamma()
    t2 = 0.5 * (p.concentration.pow(2) + p.concentration) / rate_squared
    t3 = q.loc * p.concentration / p.rate
    return t1 + (p.concentration - 1) * p.concentration.digamma() + (t2 - t3 + 0.5 * q.loc.pow(2)) / variance


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p, q):
    scale_ratio = p.scale / q.scale
    t1 = (scale_ratio / math.sqrt(2 * math.pi)).log()
    t2 = (math.pi * scale_ratio * 0.5).pow(2) / 3
    t3 = ((p.loc + p.scale * EULER_GAMMA - q.loc) / q.scale).pow(2) * 0.5
    return -t1 + t2 + t3 - (EULER_GAMMA + 1)


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    variance = q.scale.pow(2)
    scale_ratio_squared = p.scale.pow(2) / variance
    t1 = 0.5 * (2 * scale_ratio_squared / math.pi).log()
    return -t1 + scale_ratio_squared + (0.5 * p.loc.pow(2) - p.loc * q.loc + 0.5 * q.loc.pow(2)) / variance - 1


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    mean_scale = p.loc / q.scale
    variance_ratio = (p.scale / q.scale).pow(2)
    loc_scale = q.loc / q.scale
    t3 = (-mean_scale + 0.5 * variance_ratio + loc_scale).exp()
    return -variance_ratio.log() * 0.5 + mean_scale - loc_scale + t3 - (0.5 * (1 + math.log(2 * math.pi)))


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    loc_difference = p.loc - q.loc
    standardized = loc_difference / p.scale
    t2 = math.sqrt(2 / math.pi) * p.scale * (-0.5 * standardized.pow(2)).exp()
    t3 = loc_difference * (math.sqrt(0.5) * standardized).erf()
    return -(p.scale / q.scale).log() + (t2 + t3) / q.scale - (0.5 * (1 + math.log(0.5 * math.pi)))


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p, q):
    """Infinite where p's mean is (alpha <= 1)."""
    scale_rate = p.scale * q.rate
    result = (p.alpha / scale_rate).log() - p.alpha.reciprocal() + p.alpha * scale_rate / (p.alpha - 1) - 1
    return result.masked_fill(p.alpha <= 1, math.inf)


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p, q):
    """Infinite where p's mean is (alpha <= 1)."""
    common = p.scale.log() + p.alpha.reciprocal()
    t1 = p.alpha.log() - common
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * common
    t4 = q.rate * p.alpha * p.scale / (p.alpha - 1)
    return (t1 + t2 + t3 + t4 - 1).masked_fill(p.alpha <= 1, math.inf)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p, q):
    """Infinite where p's variance is (alpha <= 2)."""
    twice_variance = 2 * q.scale.pow(2)
    common = p.scale / (p.alpha - 1)
    t1 = (math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log()
    t3 = p.alpha * common.pow(2) / (p.alpha - 2)
    t4 = (p.alpha * common - q.loc).pow(2)
    result = t1 - p.alpha.reciprocal() + (t3 + t4) / twice_variance - 1
    return result.masked_fill(p.alpha <= 2, math.inf)


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    width = p.high - p.low
    t2 = (q.concentration1 - 1) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    t3 = (q.concentration0 - 1) * (_x_log_x(1 - p.high) - _x_log_x(1 - p.low) + width) / width
    t4 = q.concentration1.lgamma() + q.concentration0.lgamma() - (q.concentration1 + q.concentration0).lgamma()
    result = t3 + t4 - width.log() - t2
    return result.masked_fill((p.high > q.support.upper_bound) | (p.low < q.support.lower_bound), math.inf)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    return result.masked_fill(p.low < q.support.lower_bound, math.inf)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    width = p.high - p.low
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    result = -width.log() + t2 + t3 + q.rate * (p.high + p.low) / 2
    return result.masked_fill(p.low < q.support.lower_bound, math.inf)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    scale_width = q.scale / (p.high - p.low)
    high, low = (p.high - q.loc) / q.scale, (p.low - q.loc) / q.scale
    return scale_width.log() + 0.5 * (high + low) - scale_width * ((-high).exp() - (-low).exp())


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    width = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / width).log()
    return t1 + 0.5 * (width.pow(2) / 12 + ((p.high + p.low - 2 * q.loc) / 2).pow(2)) / q.scale.pow(2)


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    width = p.high - p.low
    t1 = (q.alpha * q.scale.pow(q.alpha) * width).log()
    t2 = (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    result = t2 * (q.alpha + 1) - t1
    return result.masked_fill(p.low < q.support.lower_bound, math.inf)
