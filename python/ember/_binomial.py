"""ember.binomial(count, prob): Binomial draws, one per (count, prob)
pair, as torch.binomial gives them (no gradient). Note [Binomial draws]
says how."""

from . import _C, _factories
from ._dtype_names import dtype_name as _dtype_name
from ._random_ops import accepted_draws, uniform_float64
from ._shape_ops import broadcast_tensors

# Note [Binomial draws]
# With q the smaller of prob and 1 - prob (a draw for 1 - prob is count minus
# one for prob), a mean count * q below 10 inverts the cumulative
# distribution, walking k up from 0 with the pmf's ratio (about mean + 1
# steps); a larger mean takes Hormann's BTRS, the transformed rejection with
# squeeze PTRS applies to Poisson draws. Each element is drawn again until
# accepted, every loop on the whole tensor, in float64.

_SMALL_MEAN = 10.0


def _inversion(n, p, generator):
    q = 1 - p
    ratio = p / q
    probability = q.pow(n)  # of k = 0
    cumulative = probability.clone()
    target = uniform_float64(list(n.shape), n.device, generator)
    k = _factories.zeros_like(n)
    running = (target > cumulative) & (n > 0)
    while bool(running.any()):
        probability = _C.where(running, probability * ratio * (n - k) / (k + 1), probability)
        k = k + running.to(_C.float64)
        cumulative = cumulative + _C.where(running, probability, probability * 0)
        running = running & (target > cumulative) & (k < n)
    return k


def _btrs(n, p, generator):
    q = 1 - p
    spq = (n * p * q).sqrt()
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = n * p + 0.5
    v_r = 0.92 - 4.2 / b
    alpha = (2.83 + 5.1 / b) * spq
    log_odds = (p / q).log()
    m = ((n + 1) * p).floor()
    h = (m + 1).lgamma() + (n - m + 1).lgamma()

    def propose():
        u = uniform_float64(list(n.shape), n.device, generator) - 0.5
        v = uniform_float64(list(n.shape), n.device, generator)
        us = 0.5 - u.abs()
        k = ((2 * a / us + b) * u + c).floor()
        inside = (k >= 0) & (k <= n)
        quick = inside & (us >= 0.07) & (v <= v_r)
        bound = (v * alpha / (a / (us * us) + b)).log()
        k_safe = k.clamp(min=0).minimum(n)
        exact = inside & (bound <= h - (k_safe + 1).lgamma() - (n - k_safe + 1).lgamma() + (k_safe - m) * log_odds)
        return k, quick | exact

    return accepted_draws(n, propose)


def binomial(count, prob, generator=None):
    """A Binomial(count, prob) draw per element (count and prob broadcast), in prob's dtype."""
    if not prob.dtype.is_floating_point:
        raise RuntimeError(f"binomial: expected a floating point prob, got {_dtype_name(prob.dtype)}")
    n, p = broadcast_tensors(count.detach().to(_C.float64), prob.detach().to(_C.float64))
    if bool((p < 0).any() | (p > 1).any() | (p != p).any()):
        raise RuntimeError("binomial: expected prob in [0, 1]")
    if bool((n < 0).any() | (n != n.floor()).any()):
        raise RuntimeError("binomial: expected count to hold non-negative integers")
    flipped = p > 0.5
    q = _C.where(flipped, 1 - p, p)
    small = n * q < _SMALL_MEAN
    # Each method sees its own elements only; the others get values it handles quickly.
    by_inversion = _inversion(_C.where(small, n, n * 0), q, generator)
    by_rejection = _btrs(_C.where(small, n * 0 + 100, n), _C.where(small, q * 0 + 0.5, q), generator)
    drawn = _C.where(small, by_inversion, by_rejection)
    return _C.where(flipped, n - drawn, drawn).to(prob.dtype)
