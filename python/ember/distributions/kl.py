"""kl_divergence(p, q) and register_kl, PyTorch's registry of closed forms:
the most specific registered pair of types wins. The forms between two
distributions of one family are here, those across families in
kl_across_families."""

import math

from .. import autograd
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .laplace import Laplace
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .pareto import Pareto
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .utils import EULER_GAMMA, sum_rightmost

_KL_REGISTRY = {}


def register_kl(type_p, type_q):
    """Decorates fn(p, q) as KL(p || q) for distributions of these types."""
    def decorate(fn):
        _KL_REGISTRY[type_p, type_q] = fn
        return fn
    return decorate


def _lookup(type_p, type_q):
    matches = [(p, q) for p, q in _KL_REGISTRY if issubclass(type_p, p) and issubclass(type_q, q)]
    if not matches:
        return None
    # The pair closest to the arguments' own types (PyTorch picks by MRO distance).
    best = min(matches, key=lambda pair: (type_p.__mro__.index(pair[0]), type_q.__mro__.index(pair[1])))
    return _KL_REGISTRY[best]


def kl_divergence(p, q):
    fn = _lookup(type(p), type(q))
    if fn is None:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {type(p).__name__} and q type "
                                  f"{type(q).__name__}")
    return fn(p, q)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    variance_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (variance_ratio + t1 - 1 - variance_ratio.log())


@register_kl(HalfNormal, HalfNormal)
def _kl_half_normal_half_normal(p, q):
    return _kl_normal_normal(p._normal, q._normal)


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = t.masked_fill(q.probs == 0, math.inf).masked_fill(p.probs == 0, 0.0)
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_one_hot_categorical_one_hot_categorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    """p log(p/q) + (1-p) log((1-p)/(1-q)), with log p = -softplus(-logit)
    and log(1-p) = -softplus(logit); a term whose weight is 0 counts 0, and
    one whose q side is impossible counts inf."""
    from ..nn.functional import softplus

    ones_term = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    ones_term = ones_term.masked_fill(q.probs == 0, math.inf).masked_fill(p.probs == 0, 0.0)
    zeros_term = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    zeros_term = zeros_term.masked_fill(q.probs == 1, math.inf).masked_fill(p.probs == 1, 0.0)
    return ones_term + zeros_term


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return result.masked_fill((q.low > p.low) | (q.high < p.high), math.inf)


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError("KL between Independents with different reinterpreted_batch_ndims")
    return sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    return (p.mean * (p.logits - q.logits) + p._log_normalizer_of_probs() + (-p.probs).log1p()
            - q._log_normalizer_of_probs() - (-q.probs).log1p())


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    """Infinite where p puts mass below q's lower bound."""
    alpha_ratio = q.alpha / p.alpha
    result = q.alpha * (p.scale / q.scale).log() - alpha_ratio.log() + alpha_ratio - 1
    return result.masked_fill(p.scale < q.scale, math.inf)


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
@register_kl(LowRankMultivariateNormal, MultivariateNormal)
@register_kl(MultivariateNormal, LowRankMultivariateNormal)
@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_gaussian_gaussian(p, q):
    """(log det Sq - log det Sp + tr(Sq^-1 Sp) + d^T Sq^-1 d - n) / 2, d the
    difference of the means, through q's precision matrix."""
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two (Low Rank) Multivariate Normals with different event shapes "
                         "cannot be computed")
    precision = q.precision_matrix
    difference = (q.loc - p.loc).unsqueeze(-1)
    trace = (precision * p.covariance_matrix).sum((-2, -1))
    mahalanobis = (difference.mT @ precision @ difference)[..., 0, 0]
    return q._half_log_det() - p._half_log_det() + 0.5 * (trace + mahalanobis - p.event_shape[0])


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    """Infinite where p can count past q's total_count."""
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")
    result = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p())
    return result.masked_fill(p.total_count > q.total_count, math.inf)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    return -p.entropy() - (-q.probs).log1p() / p.probs - q.logits


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    rate_ratio = q.rate / p.rate
    return -rate_ratio.log() + rate_ratio - 1


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    return (q.concentration * (p.rate / q.rate).log() + q.concentration.lgamma() - p.concentration.lgamma()
            + (p.concentration - q.concentration) * p.concentration.digamma()
            + (q.rate - p.rate) * (p.concentration / p.rate))


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    p_total = p.concentration1 + p.concentration0
    q_total = q.concentration1 + q.concentration0
    t1 = q.concentration1.lgamma() + q.concentration0.lgamma() + p_total.lgamma()
    t2 = p.concentration1.lgamma() + p.concentration0.lgamma() + q_total.lgamma()
    t3 = (p.concentration1 - q.concentration1) * p.concentration1.digamma()
    t4 = (p.concentration0 - q.concentration0) * p.concentration0.digamma()
    t5 = (q_total - p_total) * p_total.digamma()
    return t1 - t2 + t3 + t4 + t5


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    p_total = p.concentration.sum(-1)
    q_total = q.concentration.sum(-1)
    t1 = p_total.lgamma() - q_total.lgamma()
    t2 = (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = p.concentration.digamma() - p_total.digamma().unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    scale_ratio = p.scale / q.scale
    q_loc, p_loc = q.loc / q.scale, p.loc / q.scale
    t1 = -scale_ratio.log() - q_loc + p_loc
    t2 = scale_ratio * EULER_GAMMA
    t3 = (q_loc + (1 + scale_ratio).lgamma() - p_loc).exp()
    return t1 + t2 + t3 - (1 + EULER_GAMMA)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    loc_distance = (p.loc - q.loc).abs()
    return -scale_ratio.log() + loc_distance / q.scale + scale_ratio * (-loc_distance / p.scale).exp() - 1


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    """Chyzak and Nielsen (2019)."""
    return ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log() - (4 * p.scale * q.scale).log()


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_exponential_family_exponential_family(p, q):
    """The Bregman divergence of the log normalizer A between q's and p's
    natural parameters: A(q) - A(p) - <q - p, grad A(p)>."""
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential families cannot be "
                                  "computed using Bregman divergences")
    p_natural = [parameter.detach().requires_grad_() for parameter in p._natural_params]
    q_natural = q._natural_params
    p_log_normalizer = p._log_normalizer(*p_natural)
    gradients = autograd.grad(p_log_normalizer.sum(), p_natural, create_graph=True)
    result = q._log_normalizer(*q_natural) - p_log_normalizer
    for p_parameter, q_parameter, gradient in zip(p_natural, q_natural, gradients):
        result = result - sum_rightmost((q_parameter - p_parameter) * gradient, len(q.event_shape))
    return result


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    """The KL of the bases, which the same transforms leave as it is."""
    if p.transforms != q.transforms or p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)
