"""Bijections for TransformedDistribution and the constraint registries:
y = transform(x), its inverse transform.inv, and log |dy/dx|, under
PyTorch's names. A transform maps its domain constraint onto its codomain;
their event_dims say how many rightmost dims one application covers. This
file holds the base, composition and the elementwise transforms; the ones
over vectors and matrices live in their own files and are re-exported here,
where PyTorch programs import them from."""

import math
import numbers

from .. import _C, _factories
from .._tensor import Size
from .._type_info import finfo
from . import constraints
from .utils import broadcast_shape, sum_rightmost


class Transform:
    """y = self(x), x = self.inv(y), and log_abs_det_jacobian(x, y); with
    cache_size=1 the last pair is remembered, so inverting the last output
    returns its input exactly."""

    bijective = False
    domain = constraints.real
    codomain = constraints.real

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached_x_y = (None, None)
        self._inv = None

    @property
    def event_dim(self):
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self):
        if self._inv is None:
            self._inv = _InverseTransform(self)
        return self._inv

    @property
    def sign(self):
        raise NotImplementedError

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __call__(self, x):
        if not self._cache_size:
            return self._call(x)
        if x is self._cached_x_y[0]:
            return self._cached_x_y[1]
        y = self._call(x)
        self._cached_x_y = (x, y)
        return y

    def _inv_call(self, y):
        if not self._cache_size:
            return self._inverse(y)
        if y is self._cached_x_y[1]:
            return self._cached_x_y[0]
        x = self._inverse(y)
        self._cached_x_y = (x, y)
        return x

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        raise NotImplementedError

    def forward_shape(self, shape):
        return shape

    def inverse_shape(self, shape):
        return shape

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self == other

    __hash__ = object.__hash__

    def __repr__(self):
        return f"{type(self).__name__}()"


class _InverseTransform(Transform):
    """transform.inv: the same transform read backwards (and its cache)."""

    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    domain = property(lambda self: self._inv.codomain)
    codomain = property(lambda self: self._inv.domain)
    bijective = property(lambda self: self._inv.bijective)
    sign = property(lambda self: self._inv.sign)

    @property
    def inv(self):
        return self._inv

    def with_cache(self, cache_size=1):
        return self._inv.with_cache(cache_size).inv

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    __hash__ = object.__hash__

    def __repr__(self):
        return f"{type(self).__name__}({self._inv!r})"


class _Stateless(Transform):
    """A transform without parameters: all its instances are equal."""

    def __eq__(self, other):
        return type(other) is type(self)

    __hash__ = Transform.__hash__


class ComposeTransform(Transform):
    """The parts applied in order; the event dims of the whole are the
    largest any part needs, carried through the parts' changes of rank."""

    def __init__(self, parts, cache_size=0):
        parts = [part.with_cache(cache_size) for part in parts] if cache_size else list(parts)
        super().__init__(cache_size)
        self.parts = parts

    @property
    def domain(self):
        if not self.parts:
            return constraints.real
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim = max(event_dim + part.domain.event_dim - part.codomain.event_dim, part.domain.event_dim)
        return _widened(self.parts[0].domain, event_dim)

    @property
    def codomain(self):
        if not self.parts:
            return constraints.real
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim = max(event_dim + part.codomain.event_dim - part.domain.event_dim, part.codomain.event_dim)
        return _widened(self.parts[-1].codomain, event_dim)

    @property
    def bijective(self):
        return all(part.bijective for part in self.parts)

    @property
    def sign(self):
        sign = 1
        for part in self.parts:
            sign = sign * part.sign
        return sign

    @property
    def inv(self):
        if self._inv is None:
            self._inv = ComposeTransform([part.inv for part in reversed(self.parts)])
            self._inv._inv = self
        return self._inv

    def with_cache(self, cache_size=1):
        return self if self._cache_size == cache_size else ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return _factories.zeros_like(x)
        inputs = [x]
        for part in self.parts[:-1]:
            inputs.append(part(inputs[-1]))
        total, event_dim = 0.0, self.domain.event_dim
        for part, x_part, y_part in zip(self.parts, inputs, inputs[1:] + [y]):
            total = total + sum_rightmost(part.log_abs_det_jacobian(x_part, y_part),
                                          event_dim - part.domain.event_dim)
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return total

    def forward_shape(self, shape):
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = Transform.__hash__

    def __repr__(self):
        return "ComposeTransform(\n    " + ",\n    ".join(repr(part) for part in self.parts) + "\n)"


def _widened(constraint, event_dim):
    """constraint read over event_dim rightmost dims (at least its own)."""
    extra = event_dim - constraint.event_dim
    return constraints.independent(constraint, extra) if extra > 0 else constraint


identity_transform = ComposeTransform([])


def _clipped_sigmoid(x):
    info = finfo(x.dtype)
    return x.sigmoid().clamp(min=info.tiny, max=1.0 - info.eps)


class ExpTransform(_Stateless):
    codomain = constraints.positive
    bijective = True
    sign = 1

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class PowerTransform(Transform):
    """y = x ** exponent on the positive reals."""

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size)
        self.exponent = exponent if isinstance(exponent, _C.Tensor) else _factories.tensor(float(exponent))

    def with_cache(self, cache_size=1):
        return self if self._cache_size == cache_size else PowerTransform(self.exponent, cache_size=cache_size)

    @property
    def sign(self):
        return self.exponent.sign()

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        return _broadcast_with(shape, self.exponent)

    inverse_shape = forward_shape

    def __eq__(self, other):
        return isinstance(other, PowerTransform) and bool(self.exponent.eq(other.exponent).all())

    __hash__ = Transform.__hash__


class SigmoidTransform(_Stateless):
    """The logistic function, its output kept inside (0, 1) by the dtype's
    smallest normal number and eps so that the inverse stays finite."""

    codomain = constraints.unit_interval
    bijective = True
    sign = 1

    def _call(self, x):
        return _clipped_sigmoid(x)

    def _inverse(self, y):
        info = finfo(y.dtype)
        y = y.clamp(min=info.tiny, max=1.0 - info.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        from ..nn.functional import softplus

        return -softplus(-x) - softplus(x)


class SoftplusTransform(_Stateless):
    """y = log(1 + exp(x)); the inverse log(exp(y) - 1) is written
    y + log(-expm1(-y)), which stays finite for large y."""

    codomain = constraints.positive
    bijective = True
    sign = 1

    def _call(self, x):
        from ..nn.functional import softplus

        return softplus(x)

    def _inverse(self, y):
        return y + (-(-y).expm1()).log()

    def log_abs_det_jacobian(self, x, y):
        from ..nn.functional import softplus

        return -softplus(-x)


class TanhTransform(_Stateless):
    """tanh, whose log-derivative log(1 - tanh(x)^2) is computed as
    2 (log 2 - x - softplus(-2x)), which stays finite for large |x|."""

    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = 1

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return 0.5 * ((1 + y).log() - (1 - y).log())

    def log_abs_det_jacobian(self, x, y):
        from ..nn.functional import softplus

        return 2.0 * (math.log(2.0) - x - softplus(-2.0 * x))


class AbsTransform(_Stateless):
    """|x|: not injective, so its "inverse" returns the non-negative preimage."""

    codomain = constraints.positive

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """y = loc + scale x, over `event_dim` rightmost dims."""

    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size)
        self.loc, self.scale, self._event_dim = loc, scale, event_dim

    @property
    def event_dim(self):
        return self._event_dim

    @property
    def domain(self):
        return _widened(constraints.real, self._event_dim)

    codomain = domain

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self._event_dim, cache_size=cache_size)

    @property
    def sign(self):
        if isinstance(self.scale, numbers.Number):
            return 1 if self.scale > 0 else -1 if self.scale < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        scale = self.scale
        if isinstance(scale, numbers.Number):
            log_scale = _factories.full_like(x, math.log(abs(scale)))
        else:
            log_scale = scale.abs().log()
        shape = tuple(x.shape)
        if self._event_dim:
            log_scale = log_scale.reshape(tuple(log_scale.shape[:-self._event_dim]) + (-1,)).sum(-1)
            shape = shape[:-self._event_dim]
        return log_scale.expand(shape)

    def forward_shape(self, shape):
        return _broadcast_with(shape, self.loc, self.scale)

    inverse_shape = forward_shape

    def __eq__(self, other):
        return (isinstance(other, AffineTransform) and _equal(self.loc, other.loc)
                and _equal(self.scale, other.scale))

    __hash__ = Transform.__hash__


class CumulativeDistributionTransform(Transform):
    """x -> distribution.cdf(x), onto the unit interval (a copula's margins)."""

    bijective = True
    codomain = constraints.unit_interval
    sign = 1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)


def _broadcast_with(shape, *parameters):
    shapes = [tuple(shape)] + [tuple(p.shape) for p in parameters if isinstance(p, _C.Tensor)]
    return Size(broadcast_shape(*shapes))


def _equal(a, b):
    if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
        return a == b
    if isinstance(a, _C.Tensor) and isinstance(b, _C.Tensor):
        return bool((a == b).all())
    return False


# Re-exported: PyTorch programs import every transform from this module.
from .event_transforms import CatTransform, IndependentTransform, ReshapeTransform, StackTransform  # noqa: E402
from .matrix_transforms import (CorrCholeskyTransform, LowerCholeskyTransform,  # noqa: E402
                                PositiveDefiniteTransform)
from .simplex_transforms import SoftmaxTransform, StickBreakingTransform  # noqa: E402

__all__ = ["AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform", "CorrCholeskyTransform",
           "CumulativeDistributionTransform", "ExpTransform", "IndependentTransform", "LowerCholeskyTransform",
           "PositiveDefiniteTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform",
           "SoftmaxTransform", "SoftplusTransform", "StackTransform", "StickBreakingTransform", "TanhTransform",
           "Transform", "identity_transform"]
