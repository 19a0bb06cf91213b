"""Exponential, Laplace, Geometric, OneHotCategorical and
MixtureSameFamily against torch.distributions: scores, moments, cdf and
icdf, shapes, sample statistics, gradients through rsample, validation."""

import pytest

import ember
from helpers import assert_close


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
    }[name]()


VALUES = {
    "Exponential": [[0.0, 1.5, 0.25], [3.0, 0.1, 2.0]],
    "Laplace": [[0.5, 1.0, -4.0], [-1.0, 2.0, 0.0]],
    "Geometric": [[0.0, 1.0, 3.0], [5.0, 0.0, 1.0]],
    "Geometric logits": [[0.0, 2.0, 1.0]],
    "OneHotCategorical": [[[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]], [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]],
    "MixtureSameFamily": [[-1.0], [0.5], [3.0]],
    "Mixture of vectors": [[0.0, 1.0], [1.0, 1.0]],
}
MOMENTS = {"Exponential": ("mean", "variance", "stddev", "mode"), "Laplace": ("mean", "variance", "stddev", "mode"),
           "Geometric": ("mean", "variance", "mode"), "Geometric logits": ("mean", "variance", "probs"),
           "OneHotCategorical": ("mean", "variance", "mode", "probs"), "MixtureSameFamily": ("mean", "variance"),
           "Mixture of vectors": ("mean", "variance")}


@pytest.mark.parametrize("name", list(VALUES))
def test_scores_moments_and_shapes_match_pytorch(torch, name):
    ours, theirs = build(ember, name), build(torch, name)
    assert (tuple(ours.batch_shape), tuple(ours.event_shape)) == (tuple(theirs.batch_shape), tuple(theirs.event_shape))
    assert ours.has_rsample == theirs.has_rsample
    value = VALUES[name]
    assert_close(ours.log_prob(ember.tensor(value)), theirs.log_prob(torch.tensor(value)), rtol=1e-5, atol=1e-6)
    if not name.startswith("Mixture"):
        assert_close(ours.entropy(), theirs.entropy(), rtol=1e-5, atol=1e-6)
    for moment in MOMENTS[name]:
        assert_close(getattr(ours, moment), getattr(theirs, moment), rtol=1e-5, atol=1e-6)
    if name in ("Exponential", "Laplace", "MixtureSameFamily"):
        assert_close(ours.cdf(ember.tensor(value)), theirs.cdf(torch.tensor(value)), rtol=1e-5, atol=1e-6)
    if name in ("Exponential", "Laplace"):
        quantiles = [[0.1, 0.5, 0.9]]
        assert_close(ours.icdf(ember.tensor(quantiles)), theirs.icdf(torch.tensor(quantiles)), rtol=1e-5, atol=1e-6)
    assert tuple(ours.sample((4, 5)).shape) == tuple(theirs.sample((4, 5)).shape)


@pytest.mark.parametrize("name, mean, variance", [
    ("Exponential", [2.0, 0.5, 0.25], [4.0, 0.25, 0.0625]),
    ("Laplace", [0.0, 1.0, -2.0], [2.0, 0.5, 18.0]),
    ("Geometric", [4.0, 1.0, 1 / 9], [20.0, 2.0, 0.1 / 0.81]),
    ("MixtureSameFamily", [1.1], [0.3 * 0.25 + 0.7 * 2.25 + 0.3 * 2.1 ** 2 + 0.7 * 0.9 ** 2]),
])
def test_samples_follow_the_distribution(name, mean, variance):
    ember.manual_seed(0)
    samples = build(ember, name).sample((40000,))
    assert samples.mean(0).reshape(-1).tolist() == pytest.approx(mean, rel=0.05, abs=0.02)
    assert samples.var(0).reshape(-1).tolist() == pytest.approx(variance, rel=0.08, abs=0.02)


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
                                             d.Normal(library.zeros(3, 2), library.ones(3, 2)))]
        found = []
        for call in calls:
            with pytest.raises(ValueError) as caught:
                call()
            found.append(str(caught.value).replace("torch.", "ember."))
        return found

    assert messages(ember) == messages(torch)
