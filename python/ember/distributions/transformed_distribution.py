"""TransformedDistribution(base, transforms): samples of `base` passed
through the transforms, with the change-of-variables log density; and the
distributions built that way, LogNormal (Normal through exp)."""

from .._tensor import Size
from . import constraints
from .distribution import Distribution, of_base
from .normal import Normal
from .transforms import ExpTransform, Transform
from .utils import sum_rightmost


class TransformedDistribution(Distribution):
    arg_constraints = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        self.transforms = [transforms] if isinstance(transforms, Transform) else list(transforms)
        self.base_dist = base_distribution
        event_dim = max([len(base_distribution.event_shape)] + [t.event_dim for t in self.transforms])
        shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        split = len(shape) - event_dim
        super().__init__(Size(shape[:split]), Size(shape[split:]),
                         validate_args=False if validate_args is None else validate_args)

    has_rsample = of_base("has_rsample")

    @property
    def support(self):
        return self.transforms[-1].codomain if self.transforms else self.base_dist.support

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
        event_dim = len(self.event_shape)
        total = 0.0
        y = value
        for transform in reversed(self.transforms):
            x = transform.inv(y)
            total = total - sum_rightmost(transform.log_abs_det_jacobian(x, y), event_dim - transform.event_dim)
            y = x
        base = sum_rightmost(self.base_dist.log_prob(y), event_dim - len(self.base_dist.event_shape))
        return base + total

    def __repr__(self):
        return f"TransformedDistribution({self.base_dist!r}, {self.transforms!r})"


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


