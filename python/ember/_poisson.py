"""ember.poisson(rates, generator=None): Poisson draws, one per rate, as
torch.poisson gives them (no gradient). Note [Poisson draws]
says how."""

from . import _C, _factories
from ._dtype_names import dtype_name as _dtype_name
from ._random_ops import accepted_draws, uniform_float64

# Note [Poisson draws]
# Rates below 10 count the uniform draws whose running product stays above
# exp(-rate) (Knuth's method: about rate + 1 steps); larger rates take
# Hormann's transformed rejection with squeeze (PTRS), an accepted draw
# costing about 1.2 pairs of uniforms at any rate. Each element is drawn again
# until accepted, every loop on the whole tensor, in float64; a rate of 0
# gives 0.

_SMALL_RATE = 10.0


def _knuth(rates, generator):
    limit = (-rates).exp()
    product = _factories.ones_like(rates)
    count = _factories.zeros_like(rates)
    running = rates > 0
    while bool(running.any()):
        product = _C.where(running, product * uniform_float64(list(rates.shape), rates.device, generator), product)
        running = running & (product > limit)
        count = count + running.to(_C.float64)
    return count


def _transformed_rejection(rates, generator):
    root = rates.sqrt()
    log_rate = rates.log()
    b = 0.931 + 2.53 * root
    a = -0.059 + 0.02483 * b
    inverse_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)

    def propose():
        u = uniform_float64(list(rates.shape), rates.device, generator) - 0.5
        v = uniform_float64(list(rates.shape), rates.device, generator)
        us = 0.5 - u.abs()
        k = ((2 * a / us + b) * u + rates + 0.43).floor()
        quick = (us >= 0.07) & (v <= v_r)
        possible = (k >= 0) & ~((us < 0.013) & (v > us))
        bound = v.log() + inverse_alpha.log() - (a / (us * us) + b).log()
        exact = bound <= -rates + k * log_rate - (k + 1).lgamma()
        return k, quick | (possible & exact)

    return accepted_draws(rates, propose)


def poisson(input, generator=None):
    """A Poisson draw for each rate of `input` (a floating tensor), in its dtype."""
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"poisson: expected a floating point tensor of rates, got {_dtype_name(input.dtype)}")
    rates = input.detach().to(_C.float64)
    if bool((rates < 0).any()) or bool((rates != rates).any()):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    small = rates < _SMALL_RATE
    draws = _C.where(small, _knuth(_C.where(small, rates, _factories.zeros_like(rates)), generator),
                     _transformed_rejection(_C.where(small, _factories.full_like(rates, _SMALL_RATE), rates),
                                            generator))
    return draws.to(input.dtype)
