"""The transforms of ember.distributions.transforms, the constraints they
map between, and the biject_to / transform_to registries, against
torch.distributions: values, inverses, log-det-Jacobians, event dims,
shapes, caching and the mapping from each constraint to its transform."""

import pytest

import ember
from helpers import assert_close

X = [[0.3, -1.2, 2.0], [0.05, 0.7, -0.4]]
X_SQUARE = [[[0.3, -1.2, 2.0], [0.1, 0.7, -0.4], [1.0, 0.5, -0.2]]]


def transform(library, name):
    T = library.distributions.transforms

    def t(values):
        return library.tensor(values, dtype=library.float64)

    return {
        "Exp": T.ExpTransform(), "Sigmoid": T.SigmoidTransform(), "Tanh": T.TanhTransform(),
        "Softplus": T.SoftplusTransform(), "Abs": T.AbsTransform(), "Power": T.PowerTransform(t(2.5)),
        "Power negative": T.PowerTransform(t([-1.0, 0.5, 3.0])),
        "Affine": T.AffineTransform(t([1.0, 0.0, -1.0]), t([2.0, -0.5, 1.5])),
        "Affine event": T.AffineTransform(1.0, t([2.0, -0.5, 1.5]), event_dim=1),
        "Compose": T.ComposeTransform([T.ExpTransform(), T.AffineTransform(1.0, 3.0), T.PowerTransform(t(0.5))]),
        "Identity": T.identity_transform,
        "Softmax": T.SoftmaxTransform(), "StickBreaking": T.StickBreakingTransform(),
        "LowerCholesky": T.LowerCholeskyTransform(), "PositiveDefinite": T.PositiveDefiniteTransform(),
        "CorrCholesky": T.CorrCholeskyTransform(),
        "Independent": T.IndependentTransform(T.SigmoidTransform(), 1),
        "Reshape": T.ReshapeTransform((3,), (3, 1)),
        "Cat": T.CatTransform([T.ExpTransform(), T.identity_transform, T.SigmoidTransform()], dim=-1,
                              lengths=[1, 1, 1]),
        "Cat event": T.CatTransform([T.IndependentTransform(T.ExpTransform(), 1),
                                     T.IndependentTransform(T.SigmoidTransform(), 1)], dim=-1, lengths=[2, 1]),
        "Stack": T.StackTransform([T.ExpTransform(), T.TanhTransform()], dim=0),
        "CumulativeDistribution": T.CumulativeDistributionTransform(library.distributions.Normal(t(0.5), t(2.0))),
        "Inverse": T.SigmoidTransform().inv,
    }[name]


POSITIVE = [[0.3, 1.2, 2.0], [0.1, 0.7, 4.0]]
INPUTS = {"Power": POSITIVE, "Power negative": POSITIVE, "Compose": X, "LowerCholesky": X_SQUARE,
          "PositiveDefinite": X_SQUARE, "Inverse": [[0.2, 0.5, 0.9]]}
# inv gives one preimage only (the matrix transforms read only the lower triangle).
NOT_INVERTIBLE = ("Softmax", "Abs", "LowerCholesky", "PositiveDefinite")


@pytest.mark.parametrize("name", ["Exp", "Sigmoid", "Tanh", "Softplus", "Abs", "Power", "Power negative", "Affine",
                                  "Affine event", "Compose", "Identity", "Softmax", "StickBreaking", "LowerCholesky",
                                  "PositiveDefinite", "CorrCholesky", "Independent", "Reshape", "Cat", "Cat event",
                                  "Stack", "CumulativeDistribution", "Inverse"])
def test_transform_matches_pytorch(torch, name):
    ours, theirs = transform(ember, name), transform(torch, name)
    values = INPUTS.get(name, X)
    x, their_x = ember.tensor(values, dtype=ember.float64), torch.tensor(values, dtype=torch.float64)
    y, their_y = ours(x), theirs(their_x)
    assert_close(y, their_y, rtol=1e-10, atol=1e-12)
    assert_close(ours.inv(y), theirs.inv(their_y), rtol=1e-9, atol=1e-10)
    if name not in NOT_INVERTIBLE:
        assert_close(ours.inv(y), x, rtol=1e-7, atol=1e-8)
    if name not in NOT_INVERTIBLE:  # PyTorch has no log-det for these
        assert_close(ours.log_abs_det_jacobian(x, y), theirs.log_abs_det_jacobian(their_x, their_y), rtol=1e-9,
                     atol=1e-10)
    assert (ours.domain.event_dim, ours.codomain.event_dim) == (theirs.domain.event_dim, theirs.codomain.event_dim)
    assert repr(ours.domain).replace("ember.", "torch.") == repr(theirs.domain)
    assert repr(ours.codomain).replace("ember.", "torch.") == repr(theirs.codomain)
    assert ours.bijective == theirs.bijective
    shape = tuple(their_x.shape)
    assert tuple(ours.forward_shape(shape)) == tuple(theirs.forward_shape(torch.Size(shape)))
    assert tuple(ours.inverse_shape(tuple(y.shape))) == tuple(theirs.inverse_shape(their_y.shape))
    assert bool(theirs.codomain.check(torch.tensor(y.tolist(), dtype=torch.float64)).all())


def test_log_det_jacobian_is_the_derivative():
    # For the elementwise transforms, log |dy/dx| from autograd.
    transforms = ember.distributions.transforms
    x = ember.tensor([0.3, -1.2, 2.0, 0.01], dtype=ember.float64, requires_grad=True)
    for t in [transforms.SoftplusTransform(), transforms.TanhTransform(), transforms.SigmoidTransform(),
              transforms.AffineTransform(0.5, -3.0)]:
        y = t(x)
        (derivative,) = ember.autograd.grad(y.sum(), [x])
        assert_close(t.log_abs_det_jacobian(x, y), derivative.abs().log(), rtol=1e-9, atol=1e-12)


def test_signs_equality_and_caching(torch):
    T = ember.distributions.transforms
    assert T.ExpTransform().sign == 1 and T.AffineTransform(0.0, -2.0).sign == -1
    assert T.ComposeTransform([T.AffineTransform(0.0, -2.0), T.ExpTransform()]).sign == -1
    assert T.PowerTransform(ember.tensor(-2.0)).sign.item() == -1.0
    assert T.ExpTransform() == T.ExpTransform() and T.ExpTransform() != T.SigmoidTransform()
    assert T.AffineTransform(1.0, 2.0) == T.AffineTransform(1.0, 2.0) != T.AffineTransform(1.0, 3.0)
    assert T.ExpTransform().inv == T.ExpTransform().inv and T.ExpTransform().inv.inv == T.ExpTransform()
    with pytest.raises(NotImplementedError):
        T.AbsTransform().sign
    cached = T.TanhTransform(cache_size=1)
    x = ember.tensor([30.0])
    y = cached(x)
    assert cached.inv(y) is x and cached.inv.inv is cached
    composed = T.ComposeTransform([T.ExpTransform(), T.TanhTransform()], cache_size=1)
    assert all(part._cache_size == 1 for part in composed.parts)
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        T.ExpTransform(cache_size=2)
    with pytest.raises(ValueError, match="in_shape, out_shape have different numbers of elements"):
        T.ReshapeTransform((2, 3), (5,))
    with pytest.raises(ValueError, match="Please use either .domain.event_dim or .codomain.event_dim"):
        T.ReshapeTransform((4,), (2, 2)).event_dim
    with pytest.raises(ValueError, match="Input is not a flattened lower-diagonal number"):
        T.CorrCholeskyTransform().forward_shape((4,))


CONSTRAINTS = ["real", "real_vector", "positive", "nonnegative", "greater_than", "greater_than_eq", "less_than",
               "unit_interval", "interval", "half_open_interval", "simplex", "lower_cholesky", "positive_definite",
               "positive_semidefinite", "corr_cholesky", "independent", "cat", "stack"]


def constraint(library, name):
    c = library.distributions.constraints
    return {"greater_than": c.greater_than(2.0), "greater_than_eq": c.greater_than_eq(-1.0),
            "less_than": c.less_than(3.0), "interval": c.interval(-2.0, 5.0),
            "half_open_interval": c.half_open_interval(0.0, 4.0), "independent": c.independent(c.positive, 2),
            "cat": c.cat([c.positive, c.unit_interval, c.real], dim=-1, lengths=[1, 1, 1]),
            "stack": c.stack([c.positive, c.interval(-1.0, 1.0)], dim=0)}.get(name) or getattr(c, name)


def _unconstrained(library, name):
    shapes = {"lower_cholesky": (2, 3, 3), "positive_definite": (2, 3, 3), "positive_semidefinite": (2, 3, 3),
              "corr_cholesky": (2, 3)}
    values = [[0.3, -1.2, 2.0], [0.1, 0.7, -0.4], [1.0, 0.5, -0.2], [0.2, -0.3, 0.4], [0.9, -0.8, 0.0],
              [0.6, 0.1, -1.0]]
    shape = shapes.get(name, (2, 3))
    tensor = library.tensor(values, dtype=library.float64)
    return tensor.reshape(shape) if len(shape) == 3 else tensor[:2]


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("name", CONSTRAINTS)
def test_constraint_registries_match_pytorch(torch, registry, name):
    their_constraint = constraint(torch, name)
    try:
        theirs = getattr(torch.distributions, registry)(their_constraint)
    except NotImplementedError as error:
        with pytest.raises(NotImplementedError, match=str(error)):
            getattr(ember.distributions, registry)(constraint(ember, name))
        return
    ours = getattr(ember.distributions, registry)(constraint(ember, name))
    assert repr(ours) == repr(theirs)
    x, their_x = _unconstrained(ember, name), _unconstrained(torch, name)
    y, their_y = ours(x), theirs(their_x)
    assert_close(y, their_y, rtol=1e-10, atol=1e-12)
    assert bool(constraint(ember, name).check(y).all()) and bool(their_constraint.check(their_y).all())
    if theirs.bijective:
        assert_close(ours.inv(y), x, rtol=1e-7, atol=1e-8)
        assert_close(ours.log_abs_det_jacobian(x, y), theirs.log_abs_det_jacobian(their_x, their_y), rtol=1e-9,
                     atol=1e-10)


def test_registry_lookup_and_registration():
    distributions = ember.distributions
    with pytest.raises(NotImplementedError, match="Cannot transform _Boolean constraints"):
        distributions.biject_to(distributions.constraints.boolean)
    registry = distributions.constraint_registry.ConstraintRegistry()
    registry.register(distributions.constraints.positive, lambda c: distributions.transforms.SoftplusTransform())
    assert isinstance(registry(distributions.constraints.greater_than(1.0)), distributions.transforms.SoftplusTransform)
    with pytest.raises(TypeError, match="Expected constraint to be either a Constraint subclass or instance"):
        registry.register(3, lambda c: None)


@pytest.mark.parametrize("name, value", [
    ("corr_cholesky", [[[1.0, 0.0], [0.6, 0.8]], [[1.0, 0.0], [0.6, 0.7]]]),
    ("half_open_interval", [0.0, 3.9, 4.0]), ("lower_triangular", [[[1.0, 0.0], [2.0, -1.0]], [[1.0, 1.0], [0, 1]]]),
    ("symmetric", [[[1.0, 2.0], [2.0, 1.0]], [[1.0, 2.0], [0.0, 1.0]]]),
    ("positive_semidefinite", [[[1.0, 1.0], [1.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]]]),
    ("square", [[1.0, 2.0], [3.0, 4.0]]), ("positive_integer", [0.0, 1.0, 2.5, 3.0]),
    ("cat", [[0.5, 0.2, -4.0], [-1.0, 2.0, 0.0]]), ("stack", [[1.0, -2.0], [0.5, 1.5]]),
])
def test_constraint_checks_match_pytorch(torch, name, value):
    ours = constraint(ember, name) if name in ("cat", "stack", "half_open_interval") else getattr(
        ember.distributions.constraints, name)
    theirs = constraint(torch, name) if name in ("cat", "stack", "half_open_interval") else getattr(
        torch.distributions.constraints, name)
    assert ours.check(ember.tensor(value)).tolist() == theirs.check(torch.tensor(value)).tolist()
    assert (ours.event_dim, ours.is_discrete) == (theirs.event_dim, theirs.is_discrete)


def test_transformed_distributions_take_pytorchs_shapes(torch):
    def build(library):
        d, T, t = library.distributions, library.distributions.transforms, library.tensor
        normal = d.Normal(t([[0.0, 1.0, -1.0, 0.5], [0.2, 0.1, 0.0, -0.3]]), t(1.5))
        return [d.TransformedDistribution(normal, T.StickBreakingTransform()),
                d.TransformedDistribution(normal, [T.ReshapeTransform((4,), (2, 2))]),
                d.TransformedDistribution(d.Normal(t(0.0), t(1.0)), T.AffineTransform(t([1.0, 2.0]), t(3.0))),
                d.TransformedDistribution(d.Normal(t(0.0), t(1.0)), [T.AffineTransform(0.0, -2.0)])]

    for ours, theirs in zip(build(ember), build(torch)):
        assert (tuple(ours.batch_shape), tuple(ours.event_shape)) == (tuple(theirs.batch_shape),
                                                                      tuple(theirs.event_shape))
        sample = theirs.sample((3,))
        assert tuple(ours.sample((3,)).shape) == tuple(sample.shape)
        assert_close(ours.log_prob(ember.tensor(sample.tolist())), theirs.log_prob(sample), rtol=1e-5, atol=1e-5)
        expanded, their_expanded = ours.expand((4,) + tuple(ours.batch_shape)), theirs.expand(
            (4,) + tuple(theirs.batch_shape))
        assert tuple(expanded.sample().shape) == tuple(their_expanded.sample().shape)
    decreasing, their_decreasing = build(ember)[-1], build(torch)[-1]
    assert_close(decreasing.cdf(ember.tensor([-1.0, 0.5])), their_decreasing.cdf(torch.tensor([-1.0, 0.5])))
    assert_close(decreasing.icdf(ember.tensor([0.2, 0.7])), their_decreasing.icdf(torch.tensor([0.2, 0.7])))
