"""TransformedDistribution(base, transforms): samples of `base` passed
through the transforms, with the change-of-variables log density; and the
distributions built that way, LogNormal (Normal through exp)."""

from .._tensor import Size
from . import constraints
from .distribution import Distribution, of_base
from .independent import Independent
from .normal import Normal
from .transforms import ComposeTransform, ExpTransform, Transform
from .utils import sum_rightmost


class TransformedDistribution(Distribution):
    """The event dims are those the transforms need past the base's: a base
    with too few event dims is read through Independent, and one whose shape
    the transforms' parameters broadcast is expanded first."""

    arg_constraints = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        self.transforms = [transforms] if isinstance(transforms, Transform) else list(transforms)
        if not all(isinstance(t, Transform) for t in self.transforms):
            raise ValueError(f"transforms must be a Transform or a list of Transforms, but was {transforms}")
        chain = ComposeTransform(self.transforms)
        base_shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        domain_event_dim = chain.domain.event_dim
        if len(base_shape) < domain_event_dim:
            raise ValueError(f"base_distribution needs to have shape with size at least {domain_event_dim}, but "
                             f"got {Size(base_shape)}.")
        forward_shape = tuple(chain.forward_shape(Size(base_shape)))
        expanded_base_shape = tuple(chain.inverse_shape(Size(forward_shape)))
        if expanded_base_shape != base_shape:
            base_event_dims = len(base_distribution.event_shape)
            base_distribution = base_distribution.expand(expanded_base_shape[:len(expanded_base_shape)
                                                                             - base_event_dims])
        extra_event_dims = domain_event_dim - len(base_distribution.event_shape)
        if extra_event_dims > 0:
            base_distribution = Independent(base_distribution, extra_event_dims)
        self.base_dist = base_distribution
        event_dim = chain.codomain.event_dim + max(len(base_distribution.event_shape) - domain_event_dim, 0)
        split = len(forward_shape) - event_dim
        super().__init__(Size(forward_shape[:split]), Size(forward_shape[split:]), validate_args=validate_args)

    has_rsample = of_base("has_rsample")

    @property
    def support(self):
        if not self.transforms:
            return self.base_dist.support
        codomain = self.transforms[-1].codomain
        extra = len(self._event_shape) - codomain.event_dim
        return constraints.independent(codomain, extra) if extra > 0 else codomain

    def _expanded_inner(self, inner, batch_shape):
        # The base's shape is the new one read back through the transforms.
        shape = Size(tuple(batch_shape) + tuple(self._event_shape))
        for transform in reversed(self.transforms):
            shape = transform.inverse_shape(shape)
        return inner.expand(tuple(shape)[:len(shape) - len(inner.event_shape)])

    def sample(self, sample_shape=()):
        x = self.base_dist.sample(sample_shape)
        for transform in self.transforms:
            x = transform(x)
        return x

    def rsample(self, sample_shape=()):
        x = self.base_dist.rsample(sample_shape)
        for transform in self.transforms:
            x = transform(x)
        return x

    def log_prob(self, value):
        """log p(value) = log p_base(x) - sum log |dy/dx| along the chain."""
        if self._validate_args:
            self._validate_sample(value)
        event_dim = len(self._event_shape)
        total = 0.0
        y = value
        for transform in reversed(self.transforms):
            x = transform.inv(y)
            event_dim += transform.domain.event_dim - transform.codomain.event_dim
            total = total - sum_rightmost(transform.log_abs_det_jacobian(x, y), event_dim - transform.domain.event_dim)
            y = x
        base = sum_rightmost(self.base_dist.log_prob(y), event_dim - len(self.base_dist.event_shape))
        return base + total

    def _monotonized(self, probability):
        """The base's cdf reads the other way where the chain is decreasing."""
        sign = 1
        for transform in self.transforms:
            sign = sign * transform.sign
        if isinstance(sign, int) and sign == 1:
            return probability
        return sign * (probability - 0.5) + 0.5

    def cdf(self, value):
        for transform in reversed(self.transforms):
            value = transform.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotonized(self.base_dist.cdf(value))

    def icdf(self, value):
        value = self.base_dist.icdf(self._monotonized(value))
        for transform in self.transforms:
            value = transform(value)
        return value


class LogNormal(TransformedDistribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base = Normal(loc, scale, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    loc, scale = of_base("loc"), of_base("scale")

    @property
    def mean(self):
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self):
        return (self.loc - self.scale.pow(2)).exp()

    @property
    def variance(self):
        scale_squared = self.scale.pow(2)
        return scale_squared.expm1() * (2 * self.loc + scale_squared).exp()

    def entropy(self):
        return self.base_dist.entropy() + self.loc


