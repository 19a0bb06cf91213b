"""VonMises(loc, concentration): the circular normal distribution on
[-pi, pi), density exp(concentration cos(x - loc)) / (2 pi I0(concentration))."""

import math

from .. import _C, _factories, special
from .._random_ops import accepted_draws
from ..autograd.grad_mode import no_grad
from . import constraints
from .distribution import Distribution
from .location_scale import LocationScale
from .utils import batch_shape_of, broadcast_all

# Note [Von Mises draws]
# Best and Fisher's (1979) rejection sampler, in float64 as PyTorch draws:
# a wrapped Cauchy envelope of parameter r = (1 + rho^2) / (2 rho), with
# rho = (tau - sqrt(2 tau)) / (2 kappa) and tau = 1 + sqrt(1 + 4 kappa^2)
# (r ~ 1 / kappa + kappa below kappa = 1e-5, where that form cancels). A
# proposal from uniforms u1, u2, u3 is f = (1 + r z) / (r + z), z =
# cos(pi u1); with c = kappa (r - f) it is kept when c (2 - c) > u2 or
# log(c / u2) + 1 >= c, and the angle is sign(u3 - 1/2) acos(f) + loc,
# wrapped into [-pi, pi).


def _log_i0(x):
    return special.i0e(x).log() + x


class VonMises(Distribution):
    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(batch_shape_of([loc, concentration], self.loc), validate_args=validate_args)

    mean = LocationScale.mean
    mode = LocationScale.mode

    @property
    def variance(self):
        """The circular variance 1 - I1(kappa) / I0(kappa)."""
        return 1 - special.i1e(self.concentration) / special.i0e(self.concentration)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.concentration * (value - self.loc).cos() - math.log(2 * math.pi) - _log_i0(self.concentration)

    def sample(self, sample_shape=()):
        """Note [Von Mises draws]."""
        shape = tuple(self._extended_shape(sample_shape))
        with no_grad():
            kappa = self.concentration.to(_C.float64).expand(shape)
            tau = 1 + (1 + 4 * kappa.pow(2)).sqrt()
            rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
            r = ((1 + rho.pow(2)) / (2 * rho)).where(kappa >= 1e-5, 1 / kappa + kappa)

            def propose():
                u1, u2, u3 = (_factories.rand_like(kappa) for _ in range(3))
                z = (math.pi * u1).cos()
                f = (1 + r * z) / (r + z)
                c = kappa * (r - f)
                accepted = (c * (2 - c) - u2 > 0) | ((c / u2).log() + 1 - c >= 0)
                return (u3 - 0.5).sign() * f.acos(), accepted

            angle = accepted_draws(kappa, propose)
            wrapped = (angle + math.pi + self.loc.to(_C.float64)).remainder(2 * math.pi) - math.pi
            return wrapped.to(self.loc.dtype)
