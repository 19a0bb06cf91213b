"""The sets a parameter or a value must lie in; check(value) is a bool
tensor, and the reprs are PyTorch's (they appear in validation errors).
event_dim is how many rightmost dims one checked element spans (1 for a
simplex, 2 for a matrix); is_discrete marks sets of integers."""

from .. import _C


class Constraint:
    is_discrete = False
    event_dim = 0

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
    is_discrete = True

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound)

    def __repr__(self):
        return f"IntegerGreaterThan(lower_bound={self.lower_bound})"


class _OneHot(Constraint):
    """0s and 1s along the last dim, one 1."""

    is_discrete = True
    event_dim = 1

    def check(self, value):
        return ((value == 0) | (value == 1)).all(-1) & (value.sum(-1) == 1)


class _IndependentConstraint(Constraint):
    """`base` holding for every element of the last `reinterpreted_batch_ndims` dims."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        self.base_constraint, self.reinterpreted_batch_ndims = base_constraint, reinterpreted_batch_ndims
        self.is_discrete = base_constraint.is_discrete
        self.event_dim = base_constraint.event_dim + reinterpreted_batch_ndims

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


class _HalfOpenInterval(_Interval):
    """[lower_bound, upper_bound)."""

    def check(self, value):
        return (self.lower_bound <= value) & (value < self.upper_bound)

    def __repr__(self):
        return f"HalfOpenInterval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _IntegerInterval(Constraint):
    is_discrete = True

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self):
        return f"IntegerInterval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _Simplex(Constraint):
    """Non-negative along the last dim, summing to 1 there (to 1e-6)."""

    event_dim = 1

    def check(self, value):
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value):
        return (value.tril() == value).all(-1).all(-1)


class _LowerCholesky(Constraint):
    """Lower-triangular with a positive diagonal."""

    event_dim = 2

    def check(self, value):
        lower = (value.tril() == value).all(-1).all(-1)
        return lower & ((value * _eye_like(value)).sum(-1) > 0).all(-1)


class _CorrCholesky(Constraint):
    """The Cholesky factor of a correlation matrix: lower Cholesky rows of unit norm."""

    event_dim = 2

    def check(self, value):
        from .._type_info import finfo

        tolerance = finfo(value.dtype).eps * value.shape[-1] * 10  # the norm sums that many rounded squares
        unit_rows = ((value.detach().pow(2).sum(-1).sqrt() - 1).abs() <= tolerance).all(-1)
        return lower_cholesky.check(value) & unit_rows


class _Square(Constraint):
    event_dim = 2

    def check(self, value):
        from .. import _factories

        square = value.shape[-2] == value.shape[-1]
        return _factories.full(tuple(value.shape[:-2]), square, dtype=_C.bool, device=value.device)


class _Symmetric(_Square):
    def check(self, value):
        square = _Square.check(self, value)
        if not all_true(square):
            return square
        return ((value - value.mT).abs() <= 1e-6 * value.abs().amax((-2, -1), keepdim=True)).all(-1).all(-1)


class _PositiveSemidefinite(_Symmetric):
    def check(self, value):
        from .. import linalg

        return _Symmetric.check(self, value) & (linalg.eigvalsh(value) >= 0).all(-1)


class _PositiveDefinite(_Symmetric):
    """Symmetric, with a Cholesky factorization."""

    def check(self, value):
        from .. import linalg

        return _Symmetric.check(self, value) & (linalg.cholesky_ex(value).info == 0)


class _Cat(Constraint):
    """Constraints for consecutive slices of `lengths` (1 each by default) along `dim`."""

    def __init__(self, cseq, dim=0, lengths=None):
        self.cseq, self.dim = list(cseq), dim
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.cseq)
        self.is_discrete = any(c.is_discrete for c in self.cseq)
        self.event_dim = max(c.event_dim for c in self.cseq)

    def check(self, value):
        checks, start = [], 0
        for constraint, length in zip(self.cseq, self.lengths):
            checks.append(constraint.check(value.narrow(self.dim, start, length)))
            start += length
        return _C.cat(checks, self.dim)


class _Stack(Constraint):
    """One constraint for each index along `dim`."""

    def __init__(self, cseq, dim=0):
        self.cseq, self.dim = list(cseq), dim
        self.is_discrete = any(c.is_discrete for c in self.cseq)
        self.event_dim = max(c.event_dim for c in self.cseq)

    def check(self, value):
        return _C.stack([c.check(value.select(self.dim, i)) for i, c in enumerate(self.cseq)], self.dim)


def _eye_like(value):
    from .. import _factories
    return _factories.eye(value.shape[-1], dtype=value.dtype, device=value.device)


real = _Real()
real_vector = _IndependentConstraint(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
nonnegative_integer = _IntegerGreaterThan(0)
one_hot = _OneHot()
unit_interval = _Interval(0.0, 1.0)
boolean = _Boolean()
simplex = _Simplex()
lower_cholesky = _LowerCholesky()
positive_definite = _PositiveDefinite()
positive_integer = _IntegerGreaterThan(1)
positive_semidefinite = _PositiveSemidefinite()
lower_triangular = _LowerTriangular()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
half_open_interval = _HalfOpenInterval
cat = _Cat
stack = _Stack
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
independent = _IndependentConstraint
less_than = _LessThan
interval = _Interval
integer_interval = _IntegerInterval


def all_true(valid):
    return bool(valid.all()) if isinstance(valid, _C.Tensor) else bool(valid)
