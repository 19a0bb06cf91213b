"""ember.distributions against torch.distributions: log_prob, entropy,
moments and cdf to float32 rounding, sample shapes and statistics,
gradients through rsample, and the validation errors."""

import math

import pytest

import ember
from ember import distributions
from helpers import assert_close, value_error_messages


def both(torch, build):
    """build(lib) for ember and for PyTorch."""
    return build(ember), build(torch)


# (name, parameters as nested lists, values to score)
CASES = [
    ("Normal", dict(loc=[0.0, 1.0, -2.0], scale=[1.0, 0.5, 3.0]), [[0.5, 0.0, -2.0], [1.0, 1.0, 1.0]]),
    ("Normal", dict(loc=[[0.0], [1.0]], scale=[0.5, 2.0]), [0.25, -0.5]),
    ("Uniform", dict(low=[0.0, -1.0], high=[1.0, 3.0]), [[0.5, 2.5], [0.0, -1.0], [1.0, 3.0]]),
    ("Bernoulli", dict(probs=[0.2, 0.5, 0.99]), [[1.0, 0.0, 1.0], [0.0, 0.0, 0.0]]),
    ("Bernoulli", dict(logits=[-3.0, 0.0, 4.0]), [1.0, 1.0, 0.0]),
    ("Categorical", dict(probs=[[0.2, 0.3, 0.5], [1.0, 1.0, 2.0]]), [[2, 0], [1, 1]]),
    ("Categorical", dict(logits=[[0.0, 1.0, -1.0, 2.0]]), [3, 0, 1]),
]


def build_case(lib, name, parameters):
    tensors = {key: lib.tensor(value) for key, value in parameters.items()}
    return getattr(lib.distributions, name)(**tensors)


@pytest.mark.parametrize("name,parameters,values", CASES, ids=lambda v: str(v))
def test_scores_and_moments_match_pytorch(torch, name, parameters, values):
    ours, theirs = (build_case(lib, name, parameters) for lib in (ember, torch))
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape)
    assert ours.has_rsample == theirs.has_rsample
    assert repr(ours) == repr(theirs).replace("torch.", "ember.")
    assert_close(ours.log_prob(ember.tensor(values)), theirs.log_prob(torch.tensor(values)), rtol=1e-6, atol=1e-6)
    assert_close(ours.entropy(), theirs.entropy(), rtol=1e-6, atol=1e-6)
    properties = {"Normal": ("mean", "variance", "stddev"), "Uniform": ("mean", "variance", "stddev"),
                  "Bernoulli": ("mean", "variance", "probs", "logits"), "Categorical": ("probs", "logits", "mode")}
    for name_of_property in properties[name]:
        assert_close(getattr(ours, name_of_property), getattr(theirs, name_of_property), rtol=1e-6, atol=1e-6)
    if name in ("Normal", "Uniform"):
        assert_close(ours.cdf(ember.tensor(values)), theirs.cdf(torch.tensor(values)), rtol=1e-6, atol=1e-7)


def test_numbers_as_parameters_make_a_scalar_distribution(torch):
    for lib in (ember, torch):
        normal = lib.distributions.Normal(1.0, 2.0)
        assert tuple(normal.batch_shape) == () and tuple(normal.sample((5,)).shape) == (5,)
    ours = distributions.Normal(1.0, 2.0).log_prob(ember.tensor([0.0, 3.0]))
    assert_close(ours, torch.distributions.Normal(1.0, 2.0).log_prob(torch.tensor([0.0, 3.0])))
    assert distributions.Normal(ember.tensor([1.0], dtype=ember.float64), 2.0).scale.dtype == ember.float64


@pytest.mark.parametrize("make,mean,variance", [
    (lambda: distributions.Normal(ember.tensor([1.0, -2.0]), ember.tensor([0.5, 2.0])), [1.0, -2.0], [0.25, 4.0]),
    (lambda: distributions.Uniform(ember.tensor([0.0, 2.0]), ember.tensor([1.0, 6.0])), [0.5, 4.0], [1 / 12, 16 / 12]),
    (lambda: distributions.Bernoulli(ember.tensor([0.1, 0.7])), [0.1, 0.7], [0.09, 0.21]),
], ids=["Normal", "Uniform", "Bernoulli"])
def test_samples_follow_the_distribution(make, mean, variance):
    ember.manual_seed(0)
    distribution = make()
    samples = distribution.sample((20000,))
    assert tuple(samples.shape) == (20000, 2) and not samples.requires_grad
    assert samples.mean(0).tolist() == pytest.approx(mean, abs=0.05)
    assert samples.var(0).tolist() == pytest.approx(variance, rel=0.05, abs=0.005)
    assert tuple(distribution.sample().shape) == (2,) and tuple(distribution.sample((3, 4)).shape) == (3, 4, 2)


def test_categorical_samples_follow_the_probabilities():
    ember.manual_seed(1)
    categorical = distributions.Categorical(probs=ember.tensor([[0.2, 0.0, 0.8], [0.5, 0.5, 0.0]]))
    samples = categorical.sample((20000,))
    assert samples.dtype == ember.int64 and tuple(samples.shape) == (20000, 2)
    for row, probabilities in enumerate(([0.2, 0.0, 0.8], [0.5, 0.5, 0.0])):
        counts = [(samples[:, row] == k).sum().item() / 20000 for k in range(3)]
        assert counts == pytest.approx(probabilities, abs=0.02)
        assert counts[probabilities.index(0.0)] == 0  # a category of probability 0 never comes
    assert tuple(distributions.Categorical(logits=ember.zeros(4)).sample((2, 3)).shape) == (2, 3)


def test_rsample_is_differentiable_in_the_parameters():
    ember.manual_seed(2)
    loc = ember.tensor([0.5, -1.0], requires_grad=True)
    scale = ember.tensor([1.0, 2.0], requires_grad=True)
    ember.manual_seed(3)
    drawn = distributions.Normal(loc, scale).rsample((4,))
    drawn.sum().backward()
    noise = (drawn.detach() - loc.detach()) / scale.detach()
    assert loc.grad.tolist() == [4.0, 4.0]
    assert_close(scale.grad, noise.sum(0), rtol=1e-5, atol=1e-6)
    low, high = ember.tensor([0.0], requires_grad=True), ember.tensor([2.0], requires_grad=True)
    distributions.Uniform(low, high).rsample((5,)).sum().backward()
    assert_close(low.grad + high.grad, ember.tensor([5.0]))
    with pytest.raises(NotImplementedError, match="Bernoulli has no reparameterized sample"):
        distributions.Bernoulli(ember.tensor([0.5])).rsample()


def test_validation_errors_match_pytorch(torch):
    def build(lib):
        d = lib.distributions
        calls = [
            lambda: d.Normal(lib.tensor([0.0]), lib.tensor([-1.0])),
            lambda: d.Normal(0.0, 0.0),
            lambda: d.Uniform(lib.tensor([1.0]), lib.tensor([0.0])),
            lambda: d.Bernoulli(probs=lib.tensor([1.5])),
            lambda: d.Bernoulli(probs=lib.tensor([0.5]), logits=lib.tensor([0.0])),
            lambda: d.Bernoulli(),
            lambda: d.Categorical(probs=lib.tensor(1.0)),
            lambda: d.Categorical(probs=lib.tensor([-0.5, 1.5])),
            lambda: d.Normal(0.0, 1.0).log_prob(1.0),
            lambda: d.Normal(lib.zeros(2), lib.ones(2)).log_prob(lib.zeros(3)),
            lambda: d.Uniform(0.0, 1.0).log_prob(lib.tensor([2.0])),
            lambda: d.Bernoulli(lib.tensor([0.5])).log_prob(lib.tensor([0.5])),
            lambda: d.Categorical(logits=lib.zeros(3)).log_prob(lib.tensor([3])),
        ]
        return value_error_messages(calls)

    ours, theirs = both(torch, build)
    for our_message, their_message in zip(ours, theirs):
        assert our_message == their_message


def test_validate_args_false_skips_the_checks():
    normal = distributions.Normal(ember.tensor([0.0]), ember.tensor([-1.0]), validate_args=False)
    assert math.isnan(normal.log_prob(ember.tensor([0.0])).item())
    assert distributions.Uniform(0.0, 1.0, validate_args=False).log_prob(ember.tensor([2.0])).item() == -math.inf
