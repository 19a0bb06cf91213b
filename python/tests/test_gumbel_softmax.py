"""F.gumbel_softmax: its draws cannot be PyTorch's (another random stream),
so the tests check what defines them: samples are the softmax of noisy
logits over tau, hard ones are the one-hot of the soft sample's argmax with
its gradient (straight-through), the argmax follows softmax(logits) over
many draws (the Gumbel-max trick), and ember.manual_seed repeats them."""

import numpy
import pytest

import ember
import ember.nn.functional as F
from helpers import assert_close

LOGITS = numpy.array([[1.0, -0.5, 0.3, 2.0], [0.0, 0.0, -1.0, 0.5], [3.0, -2.0, 0.1, 0.2]])


def draw(seed, logits=LOGITS, **options):
    ember.manual_seed(seed)
    x = ember.tensor(logits).requires_grad_()
    return x, F.gumbel_softmax(x, **options)


def test_soft_samples_are_distributions_along_dim(torch):
    for dim in (-1, 0):
        _, sample = draw(1, tau=0.7, dim=dim)
        assert float(sample.min()) >= 0
        assert_close(sample.sum(dim), numpy.ones(LOGITS.shape[1 + dim]))
        expected = torch.nn.functional.gumbel_softmax(torch.tensor(LOGITS), tau=0.7, dim=dim)
        assert sample.shape == expected.shape and sample.dtype == ember.float64


def test_tau_divides_the_noisy_logits():
    # Under one seed the noise is the same, so the sample at tau 0.5 is the
    # sample at tau 1 sharpened: softmax(log(y) / 0.5).
    _, at_one = draw(2)
    _, at_half = draw(2, tau=0.5)
    assert_close(at_half, F.softmax(at_one.log() / 0.5, -1), rtol=1e-10, atol=1e-12)


def test_hard_samples_are_one_hot_with_the_soft_samples_gradient():
    upstream = ember.tensor(numpy.random.default_rng(4).standard_normal(LOGITS.shape))
    soft_logits, soft = draw(3, tau=0.8)
    hard_logits, hard = draw(3, tau=0.8, hard=True)
    values = hard.detach().numpy()
    assert set(numpy.unique(values)) == {0.0, 1.0}
    assert (values.sum(-1) == 1).all()
    assert (values.argmax(-1) == soft.detach().numpy().argmax(-1)).all()
    (soft * upstream).sum().backward()
    (hard * upstream).sum().backward()
    assert_close(hard_logits.grad, soft_logits.grad, rtol=1e-12, atol=1e-12)
    assert float(hard_logits.grad.abs().sum()) > 0


def test_the_argmax_follows_the_softmax_probabilities():
    logits = numpy.array([1.0, -0.5, 0.3, 2.0])
    draws = 20000
    _, samples = draw(5, numpy.tile(logits, (draws, 1)), tau=2.0, hard=True)
    frequencies = samples.detach().numpy().mean(0)
    probabilities = numpy.exp(logits) / numpy.exp(logits).sum()
    # Each frequency's standard deviation is at most 0.0036 for 20000 draws.
    assert numpy.abs(frequencies - probabilities).max() < 0.02


def test_manual_seed_repeats_the_draws():
    _, first = draw(7, tau=0.5)
    _, again = draw(7, tau=0.5)
    _, other = draw(8, tau=0.5)
    assert numpy.array_equal(first.detach().numpy(), again.detach().numpy())
    assert not numpy.array_equal(first.detach().numpy(), other.detach().numpy())


def test_eps_is_deprecated_as_in_pytorch(torch):
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated and has no effect"):
        F.gumbel_softmax(ember.tensor(LOGITS), eps=1e-5)
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated and has no effect"):
        torch.nn.functional.gumbel_softmax(torch.tensor(LOGITS), eps=1e-5)
