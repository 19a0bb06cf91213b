"""Draws from Gamma(concentration, 1) with a pathwise gradient in the
concentration: the sampler Gamma, Chi2, Beta, Dirichlet and StudentT
share. Note [Gamma samples and their gradient] says how."""

from .. import _C, _factories
from .._random_ops import accepted_draws
from .._special_functions import igamma
from .._type_info import finfo
from ..autograd.function import Function
from ..autograd.grad_mode import no_grad

# Note [Gamma samples and their gradient]
# Samples come from Marsaglia and Tsang's squeeze method (a cubed normal draw
# accepted against a uniform one), every element drawn again until accepted
# (more than 95% are, the first time); a concentration a below 1 takes a
# Gamma(a + 1) draw times U ** (1 / a). The draw is made in float64 and
# rounded once. Its gradient is the implicit one, dz/da = -(dP(a, z)/da) /
# p(z; a), P the regularized lower incomplete gamma function (igamma) and p
# the density: PyTorch's rsample has the same gradient, from series expansions
# of that derivative; here dP/da is a central difference in float64 with the
# step a * 1e-4 (its error is near 1e-8 relative, below float32 rounding).
# Samples are clamped to the dtype's smallest normal number, as PyTorch clamps
# them.


def _draw(concentration):
    """Gamma(concentration, 1) draws for a float64 tensor of concentrations."""
    boosted = concentration < 1
    shape = _C.where(boosted, concentration + 1, concentration)
    d = shape - 1.0 / 3.0
    c = (9 * d).rsqrt()

    def propose():
        normal = _factories.randn_like(shape)
        cube_root = 1 + c * normal
        v = cube_root * cube_root * cube_root
        uniform = _factories.rand_like(shape)
        positive = v > 0
        log_v = _C.where(positive, v, _factories.ones_like(v)).log()
        return d * v, positive & (uniform.log() < 0.5 * normal * normal + d - d * v + d * log_v)

    result = accepted_draws(shape, propose)
    lift = (_factories.rand_like(shape).log() / concentration).exp()
    return _C.where(boosted, result * lift, result)


class _StandardGamma(Function):
    @staticmethod
    def forward(ctx, concentration):
        with no_grad():
            drawn = _draw(concentration.detach().to(_C.float64))
            sample = drawn.to(concentration.dtype).clamp(min=finfo(concentration.dtype).tiny)
        ctx.save_for_backward(concentration, sample)
        return sample

    @staticmethod
    def backward(ctx, grad):
        concentration, sample = ctx.saved_tensors
        a, z = concentration.detach().to(_C.float64), sample.detach().to(_C.float64)
        step = a * 1e-4
        d_cdf = (igamma(a + step, z) - igamma(a - step, z)) / (2 * step)
        log_density = (a - 1) * z.log() - z - a.lgamma()
        return grad * (-d_cdf / log_density.exp()).to(concentration.dtype)


def standard_gamma(concentration):
    """Gamma(concentration, 1) draws, one per element (Note [Gamma samples
    and their gradient])."""
    return _StandardGamma.apply(concentration)
