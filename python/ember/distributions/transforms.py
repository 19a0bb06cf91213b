"""Bijections for TransformedDistribution: y = transform(x) with its inverse
and log |dy/dx|, under PyTorch's names (ExpTransform, AffineTransform,
SigmoidTransform, TanhTransform, ComposeTransform)."""

import math

from . import constraints
from .utils import sum_rightmost


class Transform:
    """y = self(x), x = self.inv(y), and log_abs_det_jacobian(x, y);
    event_dim says how many rightmost dims one application covers."""

    bijective = True
    event_dim = 0
    sign = 1
    domain = constraints.real
    codomain = constraints.real

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached = None

    def __call__(self, x):
        y = self._call(x)
        if self._cache_size:
            self._cached = (x, y)
        return y

    def inv(self, y):
        if self._cache_size and self._cached is not None and self._cached[1] is y:
            return self._cached[0]
        return self._inverse(y)

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}()"


class ExpTransform(Transform):
    codomain = constraints.positive

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class SigmoidTransform(Transform):
    codomain = constraints.unit_interval

    def _call(self, x):
        return x.sigmoid()

    def _inverse(self, y):
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        from ..nn.functional import softplus

        return -softplus(-x) - softplus(x)


class TanhTransform(Transform):
    """tanh, whose log-derivative log(1 - tanh(x)^2) is computed as
    2 (log 2 - x - softplus(-2x)), which stays finite for large |x|."""

    codomain = constraints.interval(-1.0, 1.0)

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return 0.5 * ((1 + y).log() - (1 - y).log())

    def log_abs_det_jacobian(self, x, y):
        from ..nn.functional import softplus

        return 2.0 * (math.log(2.0) - x - softplus(-2.0 * x))


class AffineTransform(Transform):
    """y = loc + scale x, over `event_dim` rightmost dims."""

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size)
        self.loc, self.scale, self.event_dim = loc, scale, event_dim

    @property
    def sign(self):
        return self.scale.sign() if hasattr(self.scale, "sign") else (1 if self.scale >= 0 else -1)

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        scale = self.scale
        log_scale = scale.abs().log() if hasattr(scale, "abs") else x.new_full(x.shape, math.log(abs(scale)))
        log_scale = log_scale.expand(x.shape) if tuple(log_scale.shape) != tuple(x.shape) else log_scale
        return sum_rightmost(log_scale, self.event_dim)


class ComposeTransform(Transform):
    """The transforms applied in order."""

    def __init__(self, parts, cache_size=0):
        super().__init__(cache_size)
        self.parts = list(parts)
        self.event_dim = max((part.event_dim for part in self.parts), default=0)

    def _call(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def _inverse(self, y):
        for part in reversed(self.parts):
            y = part.inv(y)
        return y

    def log_abs_det_jacobian(self, x, y):
        total = 0.0
        for part in self.parts:
            following = part(x)
            term = part.log_abs_det_jacobian(x, following)
            total = total + sum_rightmost(term, self.event_dim - part.event_dim)
            x = following
        return total
