"""kl_divergence for every pair of types PyTorch 2.13 registers, within a
family and across families, against PyTorch's values: the registries hold
the same pairs, and each pair's KL (finite, or infinite where p has mass
outside q's support) is PyTorch's."""

import pytest

import ember
from helpers import assert_close

SPD = [[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 1.5]]


def _family(library, name, variant):
    """A distribution of the family registered as `name`, batch (2,) where
    it has one; variant 0 and 1 differ in every parameter."""
    d = library.distributions

    def t(values):
        return library.tensor(values)

    v = variant
    families = {
        "Bernoulli": lambda: d.Bernoulli(t([0.3, 0.6][::1 - 2 * v])),
        "Beta": lambda: d.Beta(t([1.5 + v, 2.0]), t([2.0, 0.7 + v])),
        "Binomial": lambda: d.Binomial(5, t([0.3 + 0.2 * v, 0.6])),
        "Categorical": lambda: d.Categorical(t([[0.2, 0.3, 0.5], [0.6, 0.3 - 0.2 * v, 0.1 + 0.2 * v]])),
        "Cauchy": lambda: d.Cauchy(t([0.5, -1.0 + v]), t([1.0 + v, 0.5])),
        "ContinuousBernoulli": lambda: d.ContinuousBernoulli(t([0.2 + 0.3 * v, 0.7])),
        "Dirichlet": lambda: d.Dirichlet(t([[1.0, 2.0, 3.0], [0.5 + v, 1.5, 2.0]])),
        "Exponential": lambda: d.Exponential(t([1.5, 0.5 + v])),
        "ExponentialFamily": lambda: d.Wishart(t([4.0 + v, 6.5]), covariance_matrix=t(SPD)),
        "Gamma": lambda: d.Gamma(t([2.0, 0.8 + v]), t([1.5 + v, 3.0])),
        "Geometric": lambda: d.Geometric(t([0.3, 0.6 - 0.2 * v])),
        "Gumbel": lambda: d.Gumbel(t([0.2, -0.4 + v]), t([1.0 + v, 0.6])),
        "HalfNormal": lambda: d.HalfNormal(t([1.0 + v, 0.4])),
        "Independent": lambda: d.Independent(d.Normal(t([[0.0, 1.0], [v, 0.5]]), t([[1.0, 0.5 + v], [2.0, 1.0]])), 1),
        "Laplace": lambda: d.Laplace(t([0.3, -1.0 + v]), t([0.8, 1.2 + v])),
        "LowRankMultivariateNormal": lambda: d.LowRankMultivariateNormal(
            t([[0.0, 1.0, -1.0], [v, 0.0, 0.5]]), t([[[1.0, 0.5], [0.0, 1.0], [-0.5, 0.2 + v]]]),
            t([1.0, 0.5 + v, 2.0])),
        "MultivariateNormal": lambda: d.MultivariateNormal(t([0.0, 1.0 - v, 0.0]), t(SPD) + v * library.eye(3)),
        "Normal": lambda: d.Normal(t([0.1, -0.7 + v]), t([1.0, 0.4 + v])),
        "OneHotCategorical": lambda: d.OneHotCategorical(t([[0.2, 0.3, 0.5], [0.6, 0.3 - 0.2 * v, 0.1 + 0.2 * v]])),
        "Pareto": lambda: d.Pareto(t([1.0, 2.0 + v]), t([3.0, 2.5 + v])),
        "Poisson": lambda: d.Poisson(t([1.5, 0.5 + v])),
        "TransformedDistribution": lambda: d.LogNormal(t([0.1, 0.5 + v]), t([0.4 + v, 1.0])),
        # the second element reaches outside [0, 1] and below 0
        "Uniform": lambda: d.Uniform(t([0.2, -1.0 + v]), t([0.7, 2.0 + v])),
    }
    return families[name]()


def _registered_pairs():
    torch = pytest.importorskip("torch")
    return sorted((p.__name__, q.__name__) for p, q in torch.distributions.kl._KL_REGISTRY)


def test_the_registry_holds_pytorchs_pairs(torch):
    from ember.distributions.kl import _KL_REGISTRY

    assert sorted((p.__name__, q.__name__) for p, q in _KL_REGISTRY) == _registered_pairs()


@pytest.mark.parametrize("pair", _registered_pairs(), ids="-".join)
def test_kl_divergence_of_each_registered_pair_matches_pytorch(torch, pair):
    def divergence(library):
        return library.distributions.kl_divergence(_family(library, pair[0], 0), _family(library, pair[1], 1))

    assert_close(divergence(ember), divergence(torch), rtol=1e-5, atol=1e-5)


def test_kl_is_infinite_where_pytorchs_is(torch):
    def divergences(library):
        d, t = library.distributions, library.tensor
        pareto = d.Pareto(t([1.0, 1.0, 1.0]), t([0.8, 1.5, 3.0]))  # no mean, no variance, both
        normal, exponential = d.Normal(t(0.5), t(2.0)), d.Exponential(t(1.5))
        gamma = d.Gamma(t(2.0), t(1.0))
        binomials = d.Binomial(t([6.0, 5.0]), t([0.3, 0.3])), d.Binomial(t([5.0, 5.0]), t([0.4, 0.4]))
        unit = d.Uniform(t(0.0), t(1.0))
        return [d.kl_divergence(pareto, q) for q in (normal, exponential, gamma)] + [
            d.kl_divergence(*binomials), d.kl_divergence(unit, d.ContinuousBernoulli(t(0.3))),
            d.kl_divergence(d.ContinuousBernoulli(t(0.3)), unit), d.kl_divergence(normal, unit)]

    for ours, theirs in zip(divergences(ember), divergences(torch)):
        assert_close(ours, theirs, rtol=1e-5, atol=1e-5)


def test_kl_refusals_match_pytorch(torch):
    def refusals(library):
        d, t = library.distributions, library.tensor
        return [lambda: d.kl_divergence(d.Binomial(t(5.0), t(0.3)), d.Binomial(t(6.0), t(0.3))),
                lambda: d.kl_divergence(d.Poisson(t(1.0)), d.Normal(t(0.0), t(1.0))),
                lambda: d.kl_divergence(d.LogNormal(t(0.0), t(1.0)), d.Pareto(t(1.0), t(2.0))),
                lambda: d.kl_divergence(d.Wishart(t(4.0), covariance_matrix=t(SPD)),
                                        d.ContinuousBernoulli(t(0.3)))]

    for ours, theirs in zip(refusals(ember), refusals(torch)):
        with pytest.raises(NotImplementedError):
            theirs()
        with pytest.raises(NotImplementedError):
            ours()
