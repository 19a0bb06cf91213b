"""The base of the distributions of a location and a scale on the real
line (Normal, Laplace): their arguments, broadcasting and batch shape, and
the location as their mean and mode."""

from . import constraints
from .distribution import Distribution
from .utils import batch_shape_of, broadcast_all


class LocationScale(Distribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(batch_shape_of([loc, scale], self.loc), validate_args=validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc
