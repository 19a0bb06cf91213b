"""kl_divergence(p, q) and register_kl, PyTorch's registry of closed forms:
the most specific registered pair of types wins."""

import math

from .bernoulli import Bernoulli
from .categorical import Categorical
from .continuous_bernoulli import ContinuousBernoulli
from .independent import Independent
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .pareto import Pareto
from .uniform import Uniform
from .utils import sum_rightmost

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


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = t.masked_fill(q.probs == 0, math.inf).masked_fill(p.probs == 0, 0.0)
    return t.sum(-1)


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
