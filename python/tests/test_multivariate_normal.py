"""distributions.MultivariateNormal against torch.distributions': each
parametrization, batch shapes, log_prob, entropy, mean, variance, the
derived matrices, sample moments, gradients through rsample, and errors."""

import numpy
import pytest

import ember
from ember.distributions import MultivariateNormal
from helpers import assert_close

RNG = numpy.random.default_rng(0)


def covariance(batch, k):
    a = RNG.standard_normal(batch + (k, k))
    return a @ numpy.swapaxes(a, -1, -2) + k * numpy.eye(k)


def both(torch, array):
    return ember.tensor(array), torch.tensor(array)


@pytest.mark.parametrize("parametrization", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_matches_pytorch_for_each_parametrization(torch, parametrization):
    cov = covariance((2,), 3)
    matrix = {"covariance_matrix": cov, "precision_matrix": numpy.linalg.inv(cov),
              "scale_tril": numpy.linalg.cholesky(cov)}[parametrization]
    loc, tloc = both(torch, RNG.standard_normal((4, 1, 3)))  # broadcasts against the matrices' batch
    m, tm = both(torch, matrix)
    ours = MultivariateNormal(loc, **{parametrization: m})
    theirs = torch.distributions.MultivariateNormal(tloc, **{parametrization: tm})
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape) == (4, 2)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape) == (3,)
    value, tvalue = both(torch, RNG.standard_normal((5, 4, 2, 3)))
    assert_close(ours.log_prob(value), theirs.log_prob(tvalue), rtol=1e-10, atol=1e-10)
    assert_close(ours.entropy(), theirs.entropy(), rtol=1e-10, atol=1e-10)
    assert_close(ours.mean, theirs.mean)
    assert_close(ours.variance, theirs.variance, rtol=1e-10, atol=1e-10)
    for name in ("covariance_matrix", "precision_matrix", "scale_tril"):
        assert_close(getattr(ours, name), getattr(theirs, name), rtol=1e-9, atol=1e-9)
    assert tuple(ours.sample((6,)).shape) == tuple(theirs.sample((6,)).shape) == (6, 4, 2, 3)


def test_samples_have_the_distributions_moments():
    cov = covariance((), 2)
    ember.manual_seed(0)
    d = MultivariateNormal(ember.tensor([1.0, -2.0], dtype=ember.float64), covariance_matrix=ember.tensor(cov))
    samples = d.sample((20000,)).numpy()
    assert numpy.allclose(samples.mean(0), [1.0, -2.0], atol=0.1)
    assert numpy.allclose(numpy.cov(samples.T), cov, rtol=0.1, atol=0.15)


def test_gradients_reach_the_parameters_as_in_pytorch(torch):
    cov = covariance((), 3)
    loc, tloc = both(torch, RNG.standard_normal(3))
    tril, ttril = both(torch, numpy.linalg.cholesky(cov))
    value, tvalue = both(torch, RNG.standard_normal((2, 3)))
    for x in (loc, tril, tloc, ttril):
        x.requires_grad_()
    MultivariateNormal(loc, scale_tril=tril).log_prob(value).sum().backward()
    torch.distributions.MultivariateNormal(tloc, scale_tril=ttril).log_prob(tvalue).sum().backward()
    assert_close(loc.grad, tloc.grad, rtol=1e-9, atol=1e-10)
    assert_close(tril.grad, ttril.grad, rtol=1e-9, atol=1e-10)
    cov_e = ember.tensor(cov).requires_grad_()
    cov_t = torch.tensor(cov, requires_grad=True)
    MultivariateNormal(loc.detach(), covariance_matrix=cov_e).entropy().backward()
    torch.distributions.MultivariateNormal(tloc.detach(), covariance_matrix=cov_t).entropy().backward()
    assert_close(cov_e.grad, cov_t.grad, rtol=1e-9, atol=1e-10)
    sample = MultivariateNormal(loc, scale_tril=tril).rsample((4,))
    assert sample.requires_grad


@pytest.mark.parametrize("kwargs", [
    "dict(loc=L, covariance_matrix=C, scale_tril=C)",
    "dict(loc=L)",
    "dict(loc=L.sum(), covariance_matrix=C)",
    "dict(loc=L, covariance_matrix=L)",
    "dict(loc=L, covariance_matrix=-C)",
    "dict(loc=L, scale_tril=C)",
])
def test_bad_arguments_raise_value_error_as_in_pytorch(torch, kwargs):
    cov = covariance((), 2)
    for library in (torch, ember):
        arguments = eval(kwargs, {"L": library.zeros(2, dtype=library.float64),  # noqa: S307 - fixed test data
                                  "C": library.tensor(cov)})
        with pytest.raises(ValueError):
            library.distributions.MultivariateNormal(**arguments)
