"""Independent and kl_divergence against PyTorch 2.13."""

import pytest

import ember

from helpers import assert_close


def _pair(T):
    base = T.distributions.Normal(T.tensor([[0.5, -1.0, 2.0], [0.0, 0.3, 1.0]]),
                                  T.tensor([[1.0, 0.5, 2.0], [0.2, 1.5, 0.7]]))
    return T.distributions.Independent(base, 1)


def test_independent_reinterprets_batch_dims(torch):
    ours, theirs = _pair(ember), _pair(torch)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape) == (2,)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape) == (3,)
    value = [[0.1, 0.2, 0.3], [-1.0, 0.0, 2.0]]
    assert_close(ours.log_prob(ember.tensor(value)), theirs.log_prob(torch.tensor(value)))
    assert_close(ours.entropy(), theirs.entropy())
    assert tuple(ours.rsample((4,)).shape) == (4, 2, 3) and ours.has_rsample
    with pytest.raises(ValueError):
        ember.distributions.Independent(ember.distributions.Normal(ember.zeros(2), ember.ones(2)), 2)


@pytest.mark.parametrize("make", [
    lambda T: (T.distributions.Normal(T.tensor([0.0, 1.0]), T.tensor([1.0, 2.0])),
               T.distributions.Normal(T.tensor([0.5, -1.0]), T.tensor([0.5, 1.0]))),
    lambda T: (T.distributions.Categorical(probs=T.tensor([[0.2, 0.3, 0.5], [0.0, 0.5, 0.5]])),
               T.distributions.Categorical(probs=T.tensor([[0.4, 0.4, 0.2], [0.3, 0.3, 0.4]]))),
    lambda T: (T.distributions.Bernoulli(probs=T.tensor([0.3, 0.9, 0.0, 1.0])),
               T.distributions.Bernoulli(probs=T.tensor([0.5, 0.2, 0.4, 0.7]))),
    lambda T: (T.distributions.Uniform(T.tensor([0.0, 0.0]), T.tensor([1.0, 2.0])),
               T.distributions.Uniform(T.tensor([-1.0, 0.5]), T.tensor([2.0, 3.0]))),
    lambda T: (_pair(T), T.distributions.Independent(
        T.distributions.Normal(T.zeros(2, 3), T.ones(2, 3)), 1)),
], ids=["normal", "categorical", "bernoulli", "uniform", "independent"])
def test_kl_divergence_matches_pytorch(make, torch):
    assert_close(ember.distributions.kl_divergence(*make(ember)), torch.distributions.kl_divergence(*make(torch)))


def test_kl_of_an_unregistered_pair_is_not_implemented(torch):
    for library in (torch, ember):
        with pytest.raises(NotImplementedError):
            library.distributions.kl_divergence(library.distributions.Normal(0.0, 1.0),
                                                library.distributions.Bernoulli(probs=library.tensor(0.5)))


def _transformed(T):
    D = T.distributions
    base = D.Normal(T.tensor([0.2, -0.5]), T.tensor([0.7, 1.3]))
    return {
        "tanh": (D.TransformedDistribution(base, [D.TanhTransform(cache_size=1)]), [0.3, -0.9]),
        "sigmoid-affine": (D.TransformedDistribution(base, [D.SigmoidTransform(), D.AffineTransform(0.0, 2.0)]),
                           [0.4, 1.5]),
        "affine-event": (D.TransformedDistribution(D.Independent(base, 1), [D.AffineTransform(
            T.tensor([1.0, 2.0]), T.tensor([2.0, -3.0]), event_dim=1)]), [0.5, 1.0]),
        "lognormal": (D.LogNormal(T.tensor([0.1, 0.5]), T.tensor([0.4, 1.0])), [1.2, 0.3]),
    }


@pytest.mark.parametrize("name", ["tanh", "sigmoid-affine", "affine-event", "lognormal"])
def test_transformed_distributions_match_pytorch(name, torch):
    (ours, value), (theirs, _) = _transformed(ember)[name], _transformed(torch)[name]
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape)
    assert_close(ours.log_prob(ember.tensor(value)), theirs.log_prob(torch.tensor(value)))
    sample = ours.rsample((3,))
    assert tuple(sample.shape) == (3,) + tuple(theirs.batch_shape) + tuple(theirs.event_shape)
    if name == "lognormal":
        for attribute in ("mean", "mode", "variance"):
            assert_close(getattr(ours, attribute), getattr(theirs, attribute))
        assert_close(ours.entropy(), theirs.entropy())


def test_a_tanh_squashed_sample_backpropagates_to_the_base_parameters():
    loc = ember.tensor([0.2, -0.5], requires_grad=True)
    policy = ember.distributions.TransformedDistribution(
        ember.distributions.Normal(loc, ember.tensor([0.7, 1.3])), [ember.distributions.TanhTransform(cache_size=1)])
    action = policy.rsample()
    assert (action.abs() < 1).all()
    policy.log_prob(action).sum().backward()
    assert loc.grad is not None and ember.isfinite(loc.grad).all()
