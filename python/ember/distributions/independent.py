"""Independent(base, n): the last n batch dims of `base` read as event dims,
so log_prob and entropy sum over them (a diagonal Gaussian is
Independent(Normal(loc, scale), 1))."""

from .._tensor import Size
from .distribution import Distribution, of_base
from .utils import sum_rightmost


class Independent(Distribution):
    arg_constraints = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        batch = tuple(base_distribution.batch_shape)
        if reinterpreted_batch_ndims > len(batch):
            raise ValueError(f"Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), actual "
                             f"{reinterpreted_batch_ndims} vs {len(batch)}")
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        split = len(batch) - reinterpreted_batch_ndims
        super().__init__(Size(batch[:split]), Size(batch[split:] + tuple(base_distribution.event_shape)),
                         validate_args=False if validate_args is None else validate_args)

    has_rsample, support = of_base("has_rsample"), of_base("support")
    mean, mode, variance = of_base("mean"), of_base("mode"), of_base("variance")

    def sample(self, sample_shape=()):
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=()):
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        return sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        return sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def __repr__(self):
        return f"Independent({self.base_dist!r}, {self.reinterpreted_batch_ndims})"
