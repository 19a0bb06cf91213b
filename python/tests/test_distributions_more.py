"""Exponential, Laplace, Geometric, OneHotCategorical, MixtureSameFamily,
Poisson and the distributions built on Gamma draws (Gamma, Chi2, Beta,
Dirichlet, StudentT) against torch.distributions: scores, moments, cdf and icdf,
shapes, sample statistics, gradients through rsample, validation."""

import math

import pytest

import ember
from helpers import assert_close, value_error_messages


def build(library, name):
    d, t = library.distributions, library.tensor
    return {
        "Exponential": lambda: d.Exponential(t([0.5, 2.0, 4.0])),
        "Laplace": lambda: d.Laplace(t([0.0, 1.0, -2.0]), t([1.0, 0.5, 3.0])),
        "Geometric": lambda: d.Geometric(t([0.2, 0.5, 0.9])),
        "Geometric logits": lambda: d.Geometric(logits=t([-1.0, 0.0, 2.0])),
        "OneHotCategorical": lambda: d.OneHotCategorical(t([[0.2, 0.3, 0.5], [1.0, 1.0, 2.0]])),
        "MixtureSameFamily": lambda: d.MixtureSameFamily(d.Categorical(t([0.3, 0.7])),
                                                         d.Normal(t([-1.0, 2.0]), t([0.5, 1.5]))),
        "Mixture of vectors": lambda: d.MixtureSameFamily(
            d.Categorical(logits=t([[0.0, 1.0], [2.0, -1.0]])),
            d.Independent(d.Normal(t([[[0.0, 1.0], [2.0, 3.0]], [[-1.0, 0.0], [1.0, 1.0]]]), t(0.5).expand(2, 2, 2)),
                          1)),
        "Gamma": lambda: d.Gamma(t([0.5, 2.0, 7.0]), t([1.0, 3.0, 0.5])),
        "Chi2": lambda: d.Chi2(t([1.0, 4.0, 9.0])),
        "Beta": lambda: d.Beta(t([0.5, 2.0, 5.0]), t([1.5, 3.0, 0.8])),
        "Dirichlet": lambda: d.Dirichlet(t([[0.5, 2.0, 1.0], [3.0, 3.0, 3.0]])),
        "StudentT": lambda: d.StudentT(t([1.5, 3.0, 5.0]), t([0.0, 1.0, -1.0]), t([1.0, 2.0, 0.5])),
        "Poisson": lambda: d.Poisson(t([0.5, 4.0, 30.0])),
        "Binomial": lambda: d.Binomial(t([5.0, 10.0, 3.0]), t([0.3, 0.5, 0.99])),
        "Binomial logits": lambda: d.Binomial(10, logits=t([-2.0, 0.0, 3.0])),
        "Multinomial": lambda: d.Multinomial(6, t([[0.2, 0.3, 0.5], [0.1, 0.0, 0.9]])),
        "Cauchy": lambda: d.Cauchy(t([0.0, 1.0]), t([1.0, 2.0])),
        "HalfNormal": lambda: d.HalfNormal(t([1.0, 2.0])),
        "Gumbel": lambda: d.Gumbel(t([0.0, 1.0]), t([1.0, 2.0])),
        "RelaxedBernoulli": lambda: d.RelaxedBernoulli(t(0.5), probs=t([0.2, 0.7])),
        "RelaxedOneHotCategorical": lambda: d.RelaxedOneHotCategorical(t(0.7), probs=t([0.2, 0.3, 0.5])),
    }[name]()


VALUES = {
    "Exponential": [[0.0, 1.5, 0.25], [3.0, 0.1, 2.0]],
    "Laplace": [[0.5, 1.0, -4.0], [-1.0, 2.0, 0.0]],
    "Geometric": [[0.0, 1.0, 3.0], [5.0, 0.0, 1.0]],
    "Geometric logits": [[0.0, 2.0, 1.0]],
    "OneHotCategorical": [[[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]], [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]],
    "MixtureSameFamily": [[-1.0], [0.5], [3.0]],
    "Mixture of vectors": [[0.0, 1.0], [1.0, 1.0]],
    "Gamma": [[0.3, 1.2, 10.0], [0.0, 0.5, 2.0]],
    "Chi2": [[0.5, 3.0, 9.0]],
    "Beta": [[0.2, 0.7, 0.99], [0.5, 0.5, 0.5]],
    "Dirichlet": [[[0.2, 0.5, 0.3], [0.3, 0.3, 0.4]]],
    "StudentT": [[0.0, 2.0, -3.0], [10.0, -1.0, 0.5]],
    "Poisson": [[0.0, 3.0, 28.0], [2.0, 0.0, 40.0]],
    "Binomial": [[2.0, 5.0, 3.0], [0.0, 10.0, 1.0]],
    "Binomial logits": [[1.0, 5.0, 9.0]],
    "Multinomial": [[1.0, 2.0, 3.0], [0.0, 0.0, 6.0]],
    "Cauchy": [[0.5, 2.0], [-3.0, 1.0]],
    "HalfNormal": [[0.5, 2.0], [0.0, 1.0]],
    "Gumbel": [[0.5, 2.0], [-1.0, 4.0]],
    "RelaxedBernoulli": [[0.3, 0.9]],
    "RelaxedOneHotCategorical": [[0.1, 0.3, 0.6]],
}
MOMENTS = {"Exponential": ("mean", "variance", "stddev", "mode"), "Laplace": ("mean", "variance", "stddev", "mode"),
           "Geometric": ("mean", "variance", "mode"), "Geometric logits": ("mean", "variance", "probs"),
           "OneHotCategorical": ("mean", "variance", "mode", "probs"), "MixtureSameFamily": ("mean", "variance"),
           "Mixture of vectors": ("mean", "variance"), "Gamma": ("mean", "variance", "mode"),
           "Chi2": ("mean", "variance", "mode", "df"), "Beta": ("mean", "variance", "mode"),
           "Dirichlet": ("mean", "variance", "mode"), "StudentT": ("mean", "variance", "mode"),
           "Poisson": ("mean", "variance", "mode"), "Binomial": ("mean", "variance", "mode"),
           "Binomial logits": ("mean", "variance", "probs"), "Multinomial": ("mean", "variance"),
           "Cauchy": ("mean", "variance", "mode"), "HalfNormal": ("mean", "variance", "mode"),
           "Gumbel": ("mean", "variance", "stddev", "mode"), "RelaxedBernoulli": ("probs",),
           "RelaxedOneHotCategorical": ("probs",)}


@pytest.mark.parametrize("name", list(VALUES))
def test_scores_moments_and_shapes_match_pytorch(torch, name):
    ours, theirs = build(ember, name), build(torch, name)
    assert (tuple(ours.batch_shape), tuple(ours.event_shape)) == (tuple(theirs.batch_shape), tuple(theirs.event_shape))
    assert ours.has_rsample == theirs.has_rsample
    value = VALUES[name]
    assert_close(ours.log_prob(ember.tensor(value)), theirs.log_prob(torch.tensor(value)), rtol=1e-5, atol=1e-6)
    if not name.startswith(("Mixture", "Relaxed")) and name not in ("Poisson", "Binomial"):
        assert_close(ours.entropy(), theirs.entropy(), rtol=1e-5, atol=1e-6)
    for moment in MOMENTS[name]:
        assert_close(getattr(ours, moment), getattr(theirs, moment), rtol=1e-5, atol=1e-6)
    if name in ("Exponential", "Laplace", "MixtureSameFamily", "Gamma", "Cauchy", "HalfNormal", "Gumbel"):
        assert_close(ours.cdf(ember.tensor(value)), theirs.cdf(torch.tensor(value)), rtol=1e-5, atol=1e-6)
    if name in ("Exponential", "Laplace", "Cauchy", "HalfNormal", "Gumbel"):
        quantiles = [[0.1, 0.5, 0.9]] if ours.batch_shape == (3,) else [[0.3, 0.8]]
        assert_close(ours.icdf(ember.tensor(quantiles)), theirs.icdf(torch.tensor(quantiles)), rtol=1e-5, atol=1e-6)
    assert tuple(ours.sample((4, 5)).shape) == tuple(theirs.sample((4, 5)).shape)


@pytest.mark.parametrize("name, mean, variance", [
    ("Exponential", [2.0, 0.5, 0.25], [4.0, 0.25, 0.0625]),
    ("Laplace", [0.0, 1.0, -2.0], [2.0, 0.5, 18.0]),
    ("Geometric", [4.0, 1.0, 1 / 9], [20.0, 2.0, 0.1 / 0.81]),
    ("MixtureSameFamily", [1.1], [0.3 * 0.25 + 0.7 * 2.25 + 0.3 * 2.1 ** 2 + 0.7 * 0.9 ** 2]),
    ("Gamma", [0.5, 2 / 3, 14.0], [0.5, 2 / 9, 28.0]),
    ("Beta", [0.25, 0.4, 5 / 5.8], [0.25 * 0.75 / 3, 6 / 150, 4 / (5.8 ** 2 * 6.8)]),
    ("Dirichlet", [1 / 7, 4 / 7, 2 / 7, 1 / 3, 1 / 3, 1 / 3],
     [0.5 * 3 / (3.5 ** 2 * 4.5), 2 * 1.5 / (3.5 ** 2 * 4.5), 2.5 / (3.5 ** 2 * 4.5), 2 / 90, 2 / 90, 2 / 90]),
    ("StudentT", [0.0, 1.0, -1.0], [None, 12.0, 0.25 * 5 / 3]),
    ("Poisson", [0.5, 4.0, 30.0], [0.5, 4.0, 30.0]),
    ("Binomial", [1.5, 5.0, 2.97], [1.05, 2.5, 0.0297]),
    ("HalfNormal", [0.79788, 1.59577], [0.36338, 1.45352]),
    ("Gumbel", [0.57722, 2.15443], [1.64493, 6.57974]),
])
def test_samples_follow_the_distribution(name, mean, variance):
    ember.manual_seed(0)
    samples = build(ember, name).sample((40000,))
    # StudentT with 1.5 degrees of freedom has no variance: its column is left out.
    kept = [i for i, v in enumerate(variance) if v is not None]
    assert samples.mean(0).reshape(-1).tolist()[kept[0]:] == pytest.approx(mean[kept[0]:], rel=0.05, abs=0.02)
    assert [samples.var(0).reshape(-1).tolist()[i] for i in kept] == pytest.approx(
        [variance[i] for i in kept], rel=0.08, abs=0.02)


@pytest.mark.parametrize("rate", [3.0, 40.0])  # Knuth's method below 10, transformed rejection above
def test_poisson_draws_follow_the_probabilities(rate):
    ember.manual_seed(1)
    draws = ember.poisson(ember.full((100000,), rate))
    assert draws.dtype == ember.float32 and bool((draws == draws.floor()).all()) and bool((draws >= 0).all())
    for k in range(int(rate - 2 * math.sqrt(rate)), int(rate + 2 * math.sqrt(rate)) + 1):
        probability = math.exp(k * math.log(rate) - rate - math.lgamma(k + 1))
        frequency = (draws == k).float().mean().item()
        assert abs(frequency - probability) < 5 * math.sqrt(probability / 100000)
    assert ember.poisson(ember.zeros(3)).tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(RuntimeError, match="invalid Poisson rate, expected rate to be non-negative"):
        ember.poisson(ember.tensor([1.0, -1.0]))


@pytest.mark.parametrize("count, probability", [(30, 0.25), (1000, 0.4), (200, 0.97)])  # inversion, then BTRS
def test_binomial_draws_follow_the_probabilities(count, probability):
    ember.manual_seed(2)
    draws = ember.binomial(ember.full((100000,), float(count)), ember.full((100000,), probability))
    mean, spread = count * probability, math.sqrt(count * probability * (1 - probability))
    for k in range(int(mean - 2 * spread), int(mean + 2 * spread) + 1):
        log_pmf = (math.lgamma(count + 1) - math.lgamma(k + 1) - math.lgamma(count - k + 1)
                   + k * math.log(probability) + (count - k) * math.log(1 - probability))
        frequency = (draws == k).float().mean().item()
        assert abs(frequency - math.exp(log_pmf)) < 5 * math.sqrt(math.exp(log_pmf) / 100000)
    multinomial = ember.distributions.Multinomial(6, ember.tensor([0.2, 0.3, 0.5])).sample((20000,))
    assert bool((multinomial.sum(-1) == 6).all())
    assert multinomial.mean(0).tolist() == pytest.approx([1.2, 1.8, 3.0], abs=0.05)


def test_one_hot_samples_are_one_hot_with_the_probabilities():
    ember.manual_seed(1)
    samples = build(ember, "OneHotCategorical").sample((20000,))
    assert tuple(samples.shape) == (20000, 2, 3) and bool((samples.sum(-1) == 1).all())
    assert samples.mean(0)[0].tolist() == pytest.approx([0.2, 0.3, 0.5], abs=0.02)
    support = build(ember, "OneHotCategorical").enumerate_support()
    assert tuple(support.shape) == (3, 2, 3) and support[:, 0].tolist() == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]


def test_rsample_is_differentiable_in_the_parameters():
    rate = ember.tensor([0.5, 2.0], requires_grad=True)
    drawn = ember.distributions.Exponential(rate).rsample((3,))
    drawn.sum().backward()
    assert_close(rate.grad, -(drawn.detach() / rate.detach()).sum(0), rtol=1e-5, atol=1e-6)
    loc, scale = ember.tensor([0.0], requires_grad=True), ember.tensor([2.0], requires_grad=True)
    ember.distributions.Laplace(loc, scale).rsample((5,)).sum().backward()
    assert loc.grad.tolist() == [5.0] and scale.grad is not None


def test_gamma_draws_have_pytorchs_reparameterized_gradient(torch):
    # The implicit gradient dz/da of each draw matches PyTorch's formula for the same (a, z),
    # and its average over draws is d E[z] / da = 1.
    concentration = ember.tensor([0.05, 0.5, 2.0, 7.0, 50.0], dtype=ember.float64, requires_grad=True)
    draws = ember.distributions.Gamma(concentration, 1.0).rsample()
    draws.sum().backward()
    expected = torch._standard_gamma_grad(torch.tensor(concentration.tolist(), dtype=torch.float64),
                                          torch.tensor(draws.tolist(), dtype=torch.float64))
    assert_close(concentration.grad, expected, rtol=1e-4, atol=1e-8)
    ember.manual_seed(3)
    shape = ember.full((50000,), 2.5, requires_grad=True)
    ember.distributions.Gamma(shape, 1.0).rsample().sum().backward()
    assert shape.grad.mean().item() == pytest.approx(1.0, abs=0.02)
    alpha = ember.tensor([2.0, 3.0], requires_grad=True)
    ember.distributions.Beta(alpha[0], alpha[1]).rsample((4,)).sum().backward()
    assert alpha.grad is not None and bool((alpha.grad != 0).all())


def test_validation_errors_match_pytorch(torch):
    def messages(library):
        d, t = library.distributions, library.tensor
        calls = [lambda: d.Exponential(t([-1.0])), lambda: d.Laplace(t([0.0]), t([0.0])),
                 lambda: d.Geometric(t([1.5])), lambda: d.Geometric(), lambda: d.Exponential(t([1.0])).log_prob(
                     t([-1.0])), lambda: d.Geometric(t([0.5])).log_prob(t([0.5])),
                 lambda: d.OneHotCategorical(t([0.5, 0.5])).log_prob(t([1.0, 1.0])),
                 lambda: d.MixtureSameFamily(d.Normal(0.0, 1.0), d.Normal(t([0.0]), t([1.0]))),
                 lambda: d.MixtureSameFamily(d.Categorical(t([0.5, 0.5])), 3),
                 lambda: d.MixtureSameFamily(d.Categorical(t([0.5, 0.5])), d.Normal(t([0.0] * 3), t([1.0] * 3))),
                 lambda: d.MixtureSameFamily(d.Categorical(library.ones(2, 2)),
                                             d.Normal(library.zeros(3, 2), library.ones(3, 2))),
                 lambda: d.Gamma(t([1.0]), t([-1.0])), lambda: d.Gamma(t([1.0]), t([1.0])).log_prob(t([-1.0])),
                 lambda: d.Dirichlet(t(1.0)), lambda: d.Dirichlet(t([1.0, -1.0])),
                 lambda: d.Beta(t([0.5]), t([0.5])).log_prob(t([1.5])), lambda: d.StudentT(t([0.0]))]
        return value_error_messages(calls)

    assert messages(ember) == messages(torch)
