"""The sets a parameter or a value must lie in; check(value) is a bool
tensor, and the reprs are PyTorch's (they appear in validation errors)."""

from .. import _C


class Constraint:
    def check(self, value):
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__[1:]}()"


class _Real(Constraint):
    def check(self, value):
        return value == value  # not NaN


class _GreaterThan(Constraint):
    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return self.lower_bound < value

    def __repr__(self):
        return f"GreaterThan(lower_bound={self.lower_bound})"


class _GreaterThanEq(Constraint):
    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return self.lower_bound <= value

    def __repr__(self):
        return f"GreaterThanEq(lower_bound={self.lower_bound})"


class _IntegerGreaterThan(Constraint):
    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound)

    def __repr__(self):
        return f"IntegerGreaterThan(lower_bound={self.lower_bound})"


class _OneHot(Constraint):
    """0s and 1s along the last dim, one 1."""

    def check(self, value):
        return ((value == 0) | (value == 1)).all(-1) & (value.sum(-1) == 1)


class _IndependentConstraint(Constraint):
    """`base` holding for every element of the last `reinterpreted_batch_ndims` dims."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        self.base_constraint, self.reinterpreted_batch_ndims = base_constraint, reinterpreted_batch_ndims

    def check(self, value):
        result = self.base_constraint.check(value)
        for _ in range(self.reinterpreted_batch_ndims):
            result = result.all(-1)
        return result

    def __repr__(self):
        return f"IndependentConstraint({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class _LessThan(Constraint):
    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return value < self.upper_bound

    def __repr__(self):
        return f"LessThan(upper_bound={self.upper_bound})"


class _Interval(Constraint):
    """[lower_bound, upper_bound]."""

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self):
        return f"Interval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _IntegerInterval(Constraint):
    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self):
        return f"IntegerInterval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _Boolean(Constraint):
    def check(self, value):
        return (value == 0) | (value == 1)


class _Simplex(Constraint):
    """Non-negative along the last dim, summing to 1 there (to 1e-6)."""

    def check(self, value):
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _RealVector(Constraint):
    def check(self, value):
        return (value == value).all(-1)


class _LowerCholesky(Constraint):
    """Lower-triangular with a positive diagonal."""

    def check(self, value):
        lower = (value.tril() == value).all(-1).all(-1)
        return lower & ((value * _eye_like(value)).sum(-1) > 0).all(-1)


class _PositiveDefinite(Constraint):
    """Symmetric, with a Cholesky factorization."""

    def check(self, value):
        from .. import linalg
        symmetric = ((value - value.mT).abs() <= 1e-6 * value.abs().amax((-2, -1), keepdim=True)).all(-1).all(-1)
        return symmetric & (linalg.cholesky_ex(value).info == 0)


def _eye_like(value):
    from .. import _factories
    return _factories.eye(value.shape[-1], dtype=value.dtype, device=value.device)


real = _Real()
real_vector = _RealVector()
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
nonnegative_integer = _IntegerGreaterThan(0)
one_hot = _OneHot()
unit_interval = _Interval(0.0, 1.0)
boolean = _Boolean()
simplex = _Simplex()
lower_cholesky = _LowerCholesky()
positive_definite = _PositiveDefinite()
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
independent = _IndependentConstraint
less_than = _LessThan
interval = _Interval
integer_interval = _IntegerInterval


def all_true(valid):
    return bool(valid.all()) if isinstance(valid, _C.Tensor) else bool(valid)
