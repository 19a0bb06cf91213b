"""The families built on other distributions or on closed forms (Weibull,
Pareto, HalfCauchy, InverseGamma, Kumaraswamy, GeneralizedPareto,
FisherSnedecor, NegativeBinomial, VonMises, ContinuousBernoulli,
LowRankMultivariateNormal, Wishart, LKJCholesky, LogisticNormal,
OneHotCategoricalStraightThrough) against torch.distributions: scores,
moments, cdf and icdf, entropy, shapes, expand, gradients, sample
statistics and validation."""

import math
import warnings

import numpy
import pytest

import ember
from helpers import assert_close, value_error_messages

LOW_RANK_FACTOR = [[[1.0, 0.5], [0.0, 1.0], [-0.5, 0.2]], [[0.3, 0.0], [1.0, 1.0], [0.1, -1.0]]]
SPD = [[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 1.5]]


def build(library, name, dtype_name="float32"):
    d = library.distributions
    dtype = getattr(library, dtype_name)

    def t(values):
        return library.tensor(values, dtype=dtype)

    return {
        "Weibull": lambda: d.Weibull(t([1.0, 2.0, 0.5]), t([0.7, 1.5, 3.0])),
        "Pareto": lambda: d.Pareto(t([1.0, 2.0, 0.5]), t([0.8, 2.5, 5.0])),
        "HalfCauchy": lambda: d.HalfCauchy(t([1.0, 2.5, 0.3])),
        "InverseGamma": lambda: d.InverseGamma(t([0.8, 2.5, 4.0]), t([1.0, 2.0, 0.5])),
        "Kumaraswamy": lambda: d.Kumaraswamy(t([0.7, 2.0, 5.0]), t([1.5, 3.0, 0.8])),
        "GeneralizedPareto": lambda: d.GeneralizedPareto(t([0.0, 1.0, -1.0]), t([1.0, 2.0, 0.5]),
                                                         t([0.3, 0.0, -0.2])),
        "FisherSnedecor": lambda: d.FisherSnedecor(t([1.5, 4.0, 10.0]), t([3.0, 6.0, 12.0])),
        "NegativeBinomial": lambda: d.NegativeBinomial(t([3.0, 1.5, 10.0]), t([0.2, 0.5, 0.65])),
        "NegativeBinomial logits": lambda: d.NegativeBinomial(4.0, logits=t([-1.0, 0.0, 1.5])),
        "VonMises": lambda: d.VonMises(t([0.0, 1.0, -2.0]), t([0.5, 2.0, 8.0])),
        "ContinuousBernoulli": lambda: d.ContinuousBernoulli(t([0.1, 0.4995, 0.8])),
        "ContinuousBernoulli logits": lambda: d.ContinuousBernoulli(logits=t([-2.0, 0.001, 1.0])),
        "LowRankMultivariateNormal": lambda: d.LowRankMultivariateNormal(
            t([[0.0, 1.0, -1.0], [2.0, 0.0, 0.5]]), t(LOW_RANK_FACTOR), t([[1.0, 0.5, 2.0], [0.3, 1.0, 1.0]])),
        "Wishart": lambda: d.Wishart(t([4.0, 6.5]), covariance_matrix=t(SPD)),
        "Wishart precision": lambda: d.Wishart(t(5.0), precision_matrix=t(SPD)),
        "LKJCholesky": lambda: d.LKJCholesky(3, t([0.5, 1.0, 3.0])),
        "LogisticNormal": lambda: d.LogisticNormal(t([[0.0, 1.0, -0.5], [0.5, 0.5, 0.5]]), t([1.0, 0.5, 2.0])),
        "OneHotCategoricalStraightThrough": lambda: d.OneHotCategoricalStraightThrough(t([[0.2, 0.3, 0.5]])),
    }[name]()


def _correlation_factor(library, angles, dtype):
    return library.distributions.transforms.CorrCholeskyTransform()(library.tensor(angles, dtype=dtype))


VALUES = {
    "Weibull": [[0.5, 1.0, 0.3], [2.0, 0.1, 0.6]],
    "Pareto": [[1.5, 2.0, 0.7], [10.0, 3.0, 0.5]],
    "HalfCauchy": [[0.5, 0.0, 2.0], [3.0, 1.0, 0.1]],
    "InverseGamma": [[0.5, 1.0, 0.2], [3.0, 0.1, 1.5]],
    "Kumaraswamy": [[0.3, 0.5, 0.9], [0.01, 0.99, 0.5]],
    "GeneralizedPareto": [[0.5, 1.0, -0.5], [4.0, 10.0, 0.5]],
    "FisherSnedecor": [[0.5, 1.0, 2.0], [3.0, 0.1, 1.0]],
    "NegativeBinomial": [[0.0, 3.0, 12.0], [5.0, 0.0, 1.0]],
    "NegativeBinomial logits": [[0.0, 2.0, 7.0]],
    "VonMises": [[0.0, 1.0, 3.0], [-3.0, 0.5, -2.0]],
    "ContinuousBernoulli": [[0.0, 0.3, 1.0], [0.7, 0.5, 0.2]],
    "ContinuousBernoulli logits": [[0.1, 0.9, 0.5]],
    "LowRankMultivariateNormal": [[[0.5, 0.0, 1.0], [1.0, -1.0, 0.0]]],
    "Wishart": [SPD, [[1.0, 0.0, 0.0], [0.0, 2.0, 0.5], [0.0, 0.5, 1.0]]],
    "Wishart precision": [SPD],
    "LogisticNormal": [[[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.25, 0.25]]],
    "OneHotCategoricalStraightThrough": [[[0.0, 1.0, 0.0]]],
}
CORRELATION_ANGLES = [[0.3, -1.0, 0.5], [1.5, 0.2, -0.3], [0.0, 0.0, 0.0]]
MOMENTS = {
    "Weibull": ("mean", "mode", "variance", "stddev"), "Pareto": ("mean", "mode", "variance"),
    "HalfCauchy": ("mean", "mode", "variance"), "InverseGamma": ("mean", "mode", "variance"),
    "Kumaraswamy": ("mean", "mode", "variance"), "GeneralizedPareto": ("mean", "mode", "variance"),
    "FisherSnedecor": ("mean", "mode", "variance"), "NegativeBinomial": ("mean", "mode", "variance", "logits"),
    "NegativeBinomial logits": ("mean", "mode", "variance", "probs"), "VonMises": ("mean", "mode", "variance"),
    "ContinuousBernoulli": ("mean", "variance", "stddev", "logits"),
    "ContinuousBernoulli logits": ("mean", "variance", "probs"),
    "LowRankMultivariateNormal": ("mean", "mode", "variance", "scale_tril", "covariance_matrix",
                                  "precision_matrix"),
    "Wishart": ("mean", "mode", "variance", "scale_tril", "precision_matrix"),
    "Wishart precision": ("mean", "variance", "covariance_matrix"), "LKJCholesky": (),
    "LogisticNormal": ("loc", "scale"), "OneHotCategoricalStraightThrough": ("mean", "variance", "probs"),
}
WITH_CDF = ("Weibull", "Pareto", "HalfCauchy", "Kumaraswamy", "GeneralizedPareto", "ContinuousBernoulli",
            "ContinuousBernoulli logits")
WITH_ICDF = ("HalfCauchy", "Kumaraswamy", "GeneralizedPareto", "ContinuousBernoulli", "Weibull", "Pareto")
WITHOUT_ENTROPY = ("FisherSnedecor", "NegativeBinomial", "NegativeBinomial logits", "VonMises", "LKJCholesky",
                   "LogisticNormal")


def _values(library, name, dtype_name):
    if name == "LKJCholesky":
        return _correlation_factor(library, CORRELATION_ANGLES, getattr(library, dtype_name))
    return library.tensor(VALUES[name], dtype=getattr(library, dtype_name))


def _tolerance(dtype_name, name):
    # Ember's VonMises normalizer uses the exact log I0 (from i0e); PyTorch's, a polynomial fit good to ~2e-7.
    if name == "VonMises":
        return dict(rtol=1e-6, atol=1e-6)
    return dict(rtol=1e-5, atol=1e-5) if dtype_name == "float32" else dict(rtol=1e-10, atol=1e-11)


# PyTorch's GeneralizedPareto.log_prob fails in float64 (it compares with a float32 zero).
@pytest.mark.parametrize("name, dtype_name", [(name, dtype_name) for name in MOMENTS for dtype_name in
                                              ("float32", "float64")
                                              if (name, dtype_name) != ("GeneralizedPareto", "float64")])
def test_scores_and_moments_match_pytorch(torch, name, dtype_name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = build(ember, name, dtype_name), build(torch, name, dtype_name)
    tolerance = _tolerance(dtype_name, name)
    assert (tuple(ours.batch_shape), tuple(ours.event_shape)) == (tuple(theirs.batch_shape), tuple(theirs.event_shape))
    assert ours.has_rsample == theirs.has_rsample
    assert repr(ours.support) == repr(theirs.support).replace("torch.", "ember.")
    value, their_value = _values(ember, name, dtype_name), _values(torch, name, dtype_name)
    assert_close(ours.log_prob(value), theirs.log_prob(their_value), **tolerance)
    for moment in MOMENTS[name]:
        assert_close(getattr(ours, moment), getattr(theirs, moment), **tolerance)
    if name not in WITHOUT_ENTROPY:
        assert_close(ours.entropy(), theirs.entropy(), **tolerance)
    if name in WITH_CDF:
        assert_close(ours.cdf(value), theirs.cdf(their_value), **tolerance)
    if name in WITH_ICDF:
        quantiles = [[0.1, 0.5, 0.9], [0.01, 0.3, 0.999]]
        assert_close(ours.icdf(ember.tensor(quantiles, dtype=getattr(ember, dtype_name))),
                     theirs.icdf(torch.tensor(quantiles, dtype=getattr(torch, dtype_name))), **tolerance)


@pytest.mark.parametrize("name", list(MOMENTS))
def test_sample_and_expand_shapes_match_pytorch(torch, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = build(ember, name), build(torch, name)
        assert tuple(ours.sample((4, 2)).shape) == tuple(theirs.sample((4, 2)).shape)
        if ours.has_rsample:
            assert tuple(ours.rsample((3,)).shape) == tuple(theirs.rsample((3,)).shape)
        batch = (5,) + tuple(theirs.batch_shape)
        wide, their_wide = ours.expand(batch), theirs.expand(batch)
        assert (tuple(wide.batch_shape), tuple(wide.event_shape)) == (tuple(their_wide.batch_shape),
                                                                      tuple(their_wide.event_shape))
        assert tuple(wide.sample((2,)).shape) == tuple(their_wide.sample((2,)).shape)
        # One value per event, broadcast over the new leading batch dim.
        value, their_value = _values(ember, name, "float32")[0], _values(torch, name, "float32")[0]
        assert_close(wide.log_prob(value.unsqueeze(0)), their_wide.log_prob(their_value.unsqueeze(0)), rtol=1e-5,
                     atol=1e-5)


@pytest.mark.parametrize("name, parameters", [
    ("Weibull", ("scale", "concentration")), ("Pareto", ("scale", "alpha")), ("HalfCauchy", ("scale",)),
    ("InverseGamma", ("concentration", "rate")), ("Kumaraswamy", ("concentration1", "concentration0")),
    ("GeneralizedPareto", ("loc", "scale", "concentration")), ("FisherSnedecor", ("df1", "df2")),
    ("NegativeBinomial", ("total_count", "probs")), ("VonMises", ("loc", "concentration")),
    ("ContinuousBernoulli logits", ("logits",)), ("LowRankMultivariateNormal", ("loc", "cov_factor", "cov_diag")),
    ("Wishart", ("df", "covariance_matrix")), ("LKJCholesky", ("concentration",)),
    ("LogisticNormal", ("loc", "scale")),
])
def test_log_prob_gradients_match_pytorch(torch, name, parameters):
    dtype_name = "float32" if name == "GeneralizedPareto" else "float64"

    def gradients(library):
        template = build(library, name, dtype_name)
        family = type(template)
        leaves = {p: getattr(template, p).detach().clone().requires_grad_() for p in parameters}
        keywords = {"Wishart": lambda: family(leaves["df"], covariance_matrix=leaves["covariance_matrix"]),
                    "LKJCholesky": lambda: family(3, leaves["concentration"]),
                    "ContinuousBernoulli logits": lambda: family(logits=leaves["logits"])}
        distribution = keywords[name]() if name in keywords else family(*leaves.values())
        distribution.log_prob(_values(library, name, dtype_name)).sum().backward()
        return [leaves[p].grad for p in parameters]

    tolerance = dict(rtol=1e-8, atol=1e-10) if dtype_name == "float64" and name != "VonMises" else dict(
        rtol=1e-5, atol=1e-5)
    for ours, theirs in zip(gradients(ember), gradients(torch)):
        assert_close(ours, theirs, **tolerance)


@pytest.mark.parametrize("name, mean, variance", [
    ("Weibull", None, None), ("InverseGamma", None, [None, None, None]), ("Kumaraswamy", None, None),
    ("GeneralizedPareto", None, None), ("FisherSnedecor", [None, 1.5, 1.2], [None, None, 0.72]),
    ("NegativeBinomial", None, None), ("ContinuousBernoulli", None, None), ("HalfCauchy", None, None),
])
def test_samples_follow_the_distribution(torch, name, mean, variance):
    # Sample moments against PyTorch's closed forms (None: a moment whose sample estimate converges too slowly
    # to test, a heavy tail), and for HalfCauchy, which has none, the median against icdf(1/2).
    ember.manual_seed(0)
    ours, theirs = build(ember, name, "float64"), build(torch, name, "float64")
    samples = ours.sample((30000,))
    assert bool(theirs.support.check(torch.tensor(samples.tolist(), dtype=torch.float64)).all())
    if name == "HalfCauchy":
        median = numpy.median(numpy.array(samples.tolist()), axis=0)
        assert median.tolist() == pytest.approx(theirs.icdf(torch.tensor(0.5, dtype=torch.float64)).tolist(),
                                                rel=0.05)
        return
    expected_mean = mean or theirs.mean.tolist()
    expected_variance = variance or theirs.variance.tolist()
    for i, (m, v) in enumerate(zip(expected_mean, expected_variance)):
        if m is not None and math.isfinite(m):
            assert samples[:, i].mean().item() == pytest.approx(m, rel=0.05, abs=0.02)
        if v is not None and math.isfinite(v):
            assert samples[:, i].var().item() == pytest.approx(v, rel=0.1, abs=0.01)


def test_von_mises_draws_follow_the_circular_moments(torch):
    ember.manual_seed(1)
    loc, concentration = ember.tensor([0.5, -3.0, 2.0]), ember.tensor([0.3, 4.0, 1e-6])
    samples = ember.distributions.VonMises(loc, concentration).sample((40000,))
    assert samples.dtype == ember.float32 and bool((samples.abs() <= math.pi).all())
    # E[cos(x - loc)] = I1(kappa) / I0(kappa), the resultant length; 0 for a uniform angle.
    resultant = (samples - loc).cos().mean(0).tolist()
    expected = (torch.special.i1(torch.tensor([0.3, 4.0, 1e-6])) / torch.special.i0(torch.tensor([0.3, 4.0, 1e-6])))
    assert resultant == pytest.approx(expected.tolist(), abs=0.015)
    assert (samples - loc).sin().mean(0).tolist() == pytest.approx([0.0, 0.0, 0.0], abs=0.015)


def test_multivariate_samples_have_the_moments():
    ember.manual_seed(2)
    low_rank = build(ember, "LowRankMultivariateNormal", "float64")
    draws = low_rank.rsample((40000,))
    centered = draws - draws.mean(0)
    covariance = (centered.unsqueeze(-1) * centered.unsqueeze(-2)).mean(0)
    assert_close(draws.mean(0), low_rank.mean, rtol=0, atol=0.05)
    assert_close(covariance, low_rank.covariance_matrix, rtol=0.05, atol=0.05)
    wishart = build(ember, "Wishart", "float64")
    matrices = wishart.rsample((20000,))
    assert bool(ember.distributions.constraints.positive_definite.check(matrices).all())
    assert_close(matrices.mean(0), wishart.mean, rtol=0.05, atol=0.1)
    lkj = build(ember, "LKJCholesky", "float64")
    factors = lkj.sample((20000,))
    assert bool(ember.distributions.constraints.corr_cholesky.check(factors).all())
    # Off-diagonal correlations of an LKJ(eta) matrix in dim d have variance 1 / (2 eta + d - 1).
    correlations = (factors @ factors.mT)[..., 1, 0]
    assert correlations.var(0).tolist() == pytest.approx([1 / 3, 1 / 4, 1 / 8], rel=0.06)
    simplex = build(ember, "LogisticNormal", "float64").sample((1000,))
    assert bool(ember.distributions.constraints.simplex.check(simplex).all())


def test_straight_through_gradient_is_pytorchs(torch):
    def gradient(library):
        probs = library.tensor([0.2, 0.3, 0.5], requires_grad=True)
        straight = library.distributions.OneHotCategoricalStraightThrough(probs).rsample((4,))
        assert bool((straight.detach().sum(-1) == 1).all())
        (straight * library.tensor([1.0, 2.0, 3.0])).sum().backward()
        return probs.grad

    assert_close(gradient(ember), gradient(torch), rtol=1e-6, atol=1e-6)


def test_rsample_gradients_reach_the_parameters():
    scale, concentration = ember.tensor([1.0, 2.0], requires_grad=True), ember.tensor([1.5, 0.7], requires_grad=True)
    draws = ember.distributions.Weibull(scale, concentration).rsample((5,))
    draws.sum().backward()
    assert_close(scale.grad, (draws.detach() / scale.detach()).sum(0), rtol=1e-5, atol=1e-6)
    assert concentration.grad is not None
    for family, parameters in [("Kumaraswamy", ("concentration1", "concentration0")), ("InverseGamma", ("rate",)),
                               ("LowRankMultivariateNormal", ("cov_factor",)), ("Wishart", ("df",))]:
        template = build(ember, family, "float64")
        leaves = [getattr(template, p).detach().clone().requires_grad_() for p in parameters]
        if family == "Wishart":
            distribution = type(template)(leaves[0], covariance_matrix=template.covariance_matrix)
        elif family == "LowRankMultivariateNormal":
            distribution = type(template)(template.loc, leaves[0], template.cov_diag)
        elif family == "InverseGamma":
            distribution = type(template)(template.concentration, leaves[0])
        else:
            distribution = type(template)(*leaves)
        distribution.rsample((3,)).sum().backward()
        assert all(leaf.grad is not None and bool(leaf.grad.isfinite().all()) for leaf in leaves), family


def test_kl_divergences_match_pytorch(torch):
    def divergences(library):
        d, t = library.distributions, library.tensor
        pairs = [(d.Pareto(t([1.0, 2.0]), t([3.0, 1.5])), d.Pareto(t([0.5, 1.0]), t([2.0, 2.5]))),
                 (d.ContinuousBernoulli(t([0.2, 0.7])), d.ContinuousBernoulli(t([0.6, 0.4999]))),
                 (build(library, "LowRankMultivariateNormal"),
                  d.LowRankMultivariateNormal(t([0.0, 0.0, 0.0]), t([[1.0], [2.0], [0.0]]), t([1.0, 1.0, 2.0]))),
                 (build(library, "LowRankMultivariateNormal"), d.MultivariateNormal(t([0.0, 1.0, 0.0]), t(SPD))),
                 (d.MultivariateNormal(t([0.0, 1.0, 0.0]), t(SPD)), build(library, "LowRankMultivariateNormal"))]
        return [library.distributions.kl_divergence(p, q) for p, q in pairs]

    for ours, theirs in zip(divergences(ember), divergences(torch)):
        assert_close(ours, theirs, rtol=1e-5, atol=1e-5)


def test_validation_errors_match_pytorch(torch):
    def messages(library):
        d, t = library.distributions, library.tensor
        calls = [lambda: d.Weibull(t([1.0]), t([-1.0])), lambda: d.Weibull(t([1.0]), t([1.0])).log_prob(t([-1.0])),
                 lambda: d.Pareto(t([1.0]), t([2.0])).log_prob(t([0.5])), lambda: d.HalfCauchy(t([0.0])),
                 lambda: d.InverseGamma(t([1.0]), t([0.0])), lambda: d.Kumaraswamy(t([1.0]), t([1.0])).log_prob(
                     t([1.5])), lambda: d.FisherSnedecor(t([1.0]), t([1.0])).log_prob(t([-1.0])),
                 lambda: d.NegativeBinomial(t([2.0]), t([1.0])), lambda: d.NegativeBinomial(t([2.0])),
                 lambda: d.NegativeBinomial(t([2.0]), t([0.5])).log_prob(t([0.5])),
                 lambda: d.VonMises(t([0.0]), t([0.0])), lambda: d.GeneralizedPareto(t([0.0]), t([-1.0]), t([0.0])),
                 lambda: d.ContinuousBernoulli(t([0.5])).log_prob(t([2.0])), lambda: d.ContinuousBernoulli(),
                 lambda: d.LowRankMultivariateNormal(t(0.0), t([[1.0]]), t([1.0])),
                 lambda: d.LowRankMultivariateNormal(t([0.0, 0.0]), t([1.0, 1.0]), t([1.0, 1.0])),
                 lambda: d.LowRankMultivariateNormal(t([0.0, 0.0]), t([[1.0, 1.0]]), t([1.0, 1.0])),
                 lambda: d.LowRankMultivariateNormal(t([0.0, 0.0]), t([[1.0], [1.0]]), t([1.0])),
                 lambda: d.LowRankMultivariateNormal(t([0.0, 0.0]), t([[1.0], [1.0]]), t([1.0, -1.0])),
                 lambda: d.Wishart(t(1.0), covariance_matrix=t(SPD)), lambda: d.Wishart(t(4.0), scale_tril=t([1.0])),
                 lambda: d.Wishart(t(4.0), covariance_matrix=t([[1.0, 2.0], [2.0, 1.0]])),
                 lambda: d.LKJCholesky(1), lambda: d.LKJCholesky(3).log_prob(library.eye(3) * 2),
                 lambda: d.LogisticNormal(t([0.0]), t([-1.0]))]
        return value_error_messages(calls)

    assert messages(ember) == messages(torch)


@pytest.mark.parametrize("name", ["ContinuousBernoulli logits", "Wishart"])
def test_exponential_family_entropy_from_the_log_normalizer(torch, name):
    # The generic Bregman form of ExponentialFamily, against each family's closed form.
    ours, theirs = build(ember, name, "float64"), build(torch, name, "float64")
    assert isinstance(ours, ember.distributions.ExponentialFamily)
    assert_close(ember.distributions.ExponentialFamily.entropy(ours), theirs.entropy(), rtol=1e-8, atol=1e-9)


def test_expand_of_the_earlier_families_matches_pytorch(torch):
    # Distribution.expand also serves the families that hold inner distributions (HalfNormal, Beta, StudentT).
    def families(library):
        d, t = library.distributions, library.tensor
        return [d.Categorical(t([0.2, 0.8])), d.Binomial(5, t([0.3])), d.Beta(t([1.0, 2.0]), t([2.0, 3.0])),
                d.StudentT(t([3.0])), d.HalfNormal(t([1.0])), d.MultivariateNormal(t([0.0, 1.0]), library.eye(2)),
                d.LogNormal(t([0.0]), t([1.0])), d.Independent(d.Normal(t([0.0, 1.0]), t([1.0, 1.0])), 1)]

    for ours, theirs in zip(families(ember), families(torch)):
        batch = (4,) + tuple(theirs.batch_shape)
        wide, their_wide = ours.expand(batch), theirs.expand(batch)
        sample = their_wide.sample((2,))
        assert tuple(wide.batch_shape) == tuple(their_wide.batch_shape)
        assert tuple(wide.sample((2,)).shape) == tuple(sample.shape)
        assert_close(wide.log_prob(ember.tensor(sample.tolist())), their_wide.log_prob(sample), rtol=1e-5, atol=1e-5)


def test_param_shape_follows_expand_as_pytorchs(torch):
    def families(library):
        d, t = library.distributions, library.tensor
        probs, temperature = t([[0.2, 0.8], [0.5, 0.5], [0.1, 0.9]]), t(0.5)
        return [d.Categorical(probs), d.Categorical(logits=probs), d.OneHotCategorical(probs),
                d.OneHotCategoricalStraightThrough(probs), d.Multinomial(3, probs),
                d.relaxed_categorical.ExpRelaxedCategorical(temperature, probs), d.Bernoulli(probs),
                d.Bernoulli(0.3), d.Binomial(5, logits=probs), d.NegativeBinomial(2.0, probs),
                d.ContinuousBernoulli(probs), d.relaxed_bernoulli.LogitRelaxedBernoulli(temperature, probs),
                d.Geometric(probs)]

    for ours, theirs in zip(families(ember), families(torch)):
        assert hasattr(ours, "param_shape") == hasattr(theirs, "param_shape"), type(theirs).__name__
        if hasattr(theirs, "param_shape"):
            batch = (4,) + tuple(theirs.batch_shape)
            assert tuple(ours.param_shape) == tuple(theirs.param_shape)
            assert tuple(ours.expand(batch).param_shape) == tuple(theirs.expand(batch).param_shape)
