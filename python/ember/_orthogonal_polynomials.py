"""The orthogonal polynomials of torch.special: Chebyshev's of the four kinds
(plain and shifted to [0, 1]), Hermite's (physicists' and probabilists'),
Laguerre's and Legendre's, each p_n(input) for a degree n given as a tensor
or a number."""

from . import _C
from ._C import Tensor
from ._factories import full, ones_like

# Note [Orthogonal polynomials by recurrence]
# PyTorch evaluates p_n(x) by the polynomial's three-term recurrence in the
# result's dtype, after closed forms at special points (x = +-1, Laguerre's
# x = 0) and, for Chebyshev's polynomials of high degree inside (-1, 1),
# their trigonometric forms. Ember runs the same recurrence, in the same
# dtype, over whole tensors: step k advances every element and an element
# of degree k keeps that step's value. The steps run up to the largest
# degree that needs them (a host read) and stop early once every element
# still climbing is NaN, which an overflowed recurrence stays (a host read
# every _NAN_CHECK_INTERVAL steps), so the cost grows with the degree as
# PyTorch's does, only with a kernel launch per step. The degree is converted
# to an integer as PyTorch's kernels do: truncated toward zero, with a
# negative, NaN, infinite or out-of-int64 degree giving 0. PyTorch gives
# these polynomials no derivative, so neither does Ember: results never
# require grad.

_NAN_CHECK_INTERVAL = 32
_INT64_LIMIT = 2.0 ** 63
# PyTorch gives NaN for Hermite's polynomials past these degrees: in float64, and in other dtypes.
_HERMITE_FLOAT64_LIMIT = 512
_HERMITE_LIMIT = 128


def _operands(name, input, n):
    """(x, degree), broadcast to one shape in the result's floating dtype, the
    degree an integral value (-1 where n is no int64)."""
    from ._shape_ops import broadcast_tensors
    numbers = (bool, int, float)
    if not (isinstance(input, Tensor) and isinstance(n, (Tensor, *numbers))
            or isinstance(n, Tensor) and isinstance(input, numbers)):
        raise TypeError(f"special_{name}() received an invalid combination of arguments - got "
                        f"({type(input).__name__}, {type(n).__name__}), but expected one of: (Tensor input, Tensor n), "
                        "(Number input, Tensor n), (Tensor input, Number n)")
    anchor = input if isinstance(input, Tensor) else n
    dtype = _C.result_type(input, n) if anchor is input else _C.result_type(n, input)
    if not dtype.is_floating_point:
        dtype = _C.get_default_dtype()
    x, n = (v.detach().to(dtype) if isinstance(v, Tensor) else full([], float(v), dtype=dtype, device=anchor.device)
            for v in (input, n))
    x, n = broadcast_tensors(x, n)
    representable = n.isfinite() & (n.abs() < _INT64_LIMIT)
    return x, _C.where(representable, n.trunc(), -1.0)


def _parity_sign(degree):
    """(-1)^degree."""
    return _C.where(degree % 2 == 0, 1.0, -1.0)


def _recurrence(degree, first, advance, climbing):
    """p_degree for p_0 = 1, p_1 = first and p_(k+1) = advance(k, p_k, p_(k-1)),
    for the elements marked climbing (Note [Orthogonal polynomials by
    recurrence]); the others' values are left to the caller."""
    steps = _C.where(climbing, degree, 0.0)
    highest = int(steps.max().item()) if steps.numel() else 0
    previous, current = ones_like(first), first
    value = _C.where(degree == 0, previous, current)
    for k in range(1, highest):
        previous, current = current, advance(k, current, previous)
        value = _C.where(degree == k + 1, current, value)
        if k % _NAN_CHECK_INTERVAL == 0:
            beyond = degree > k + 1
            if not bool((climbing & beyond & (current == current)).any().item()):
                return _C.where(beyond, current, value)
    return value


def _chebyshev_forms(kind, y, degree):
    """(p_1(y), p_n(1), p_n(-1), p_n(cos(theta)) by its trigonometric form at
    theta = acos(y)) for the Chebyshev polynomials of the kind."""
    theta = y.acos()
    half = theta / 2
    sign = _parity_sign(degree)
    if kind == "t":
        return y, 1.0, sign, (degree * theta).cos()
    if kind == "u":
        return y + y, degree + 1, sign * (degree + 1), ((degree + 1) * theta).sin() / theta.sin()
    odd_count = degree + degree + 1
    if kind == "v":
        # Next to y = -1, cos(theta / 2) vanishes and sin(theta / 2) rounds to 1: the value at -1.
        trigonometric = ((degree + 0.5) * theta).cos() / half.cos()
        return y + y - 1.0, 1.0, sign * odd_count, _C.where(half.sin() != 1, trigonometric, sign * odd_count)
    # Next to y = 1, sin(theta / 2) vanishes and cos(theta / 2) rounds to 1: the value at 1.
    trigonometric = ((degree + 0.5) * theta).sin() / half.sin()
    return y + y + 1.0, odd_count, sign, _C.where(half.cos() != 1, trigonometric, odd_count)


# Degrees above which PyTorch takes the trigonometric form inside (-1, 1).
_TRIGONOMETRIC_DEGREE = {"t": 6, "u": 8, "v": 8, "w": 8}
_SHIFTED_TRIGONOMETRIC_DEGREE = {"t": 6, "u": 6, "v": 6, "w": 4}


def _chebyshev(kind, shifted):
    threshold = (_SHIFTED_TRIGONOMETRIC_DEGREE if shifted else _TRIGONOMETRIC_DEGREE)[kind]

    def evaluate(x, degree):
        y = x + x - 1.0 if shifted else x
        first, at_one, at_minus_one, trigonometric = _chebyshev_forms(kind, y, degree)
        use_trigonometric = (degree > threshold) & (y.abs() < 1)
        twice = y + y
        value = _recurrence(degree, first, lambda k, current, previous: twice * current - previous,
                            (y.abs() != 1) & ~use_trigonometric)
        value = _C.where(use_trigonometric, trigonometric, value)
        return _C.where(y == 1, at_one, _C.where(y == -1, at_minus_one, value))

    return evaluate


def _hermite(scale):
    """H (scale 2) or He (scale 1): p_(k+1) = scale (x p_k - k p_(k-1))."""

    def evaluate(x, degree):
        limit = _HERMITE_FLOAT64_LIMIT if x.dtype == _C.float64 else _HERMITE_LIMIT
        value = _recurrence(degree, scale * x, lambda k, current, previous: scale * (x * current - k * previous),
                            degree <= limit)
        return _C.where(degree > limit, float("nan"), value)

    return evaluate


def _laguerre(x, degree):
    complement = 1.0 - x
    value = _recurrence(degree, complement,
                        lambda k, current, previous: ((k + k + complement) * current - k * previous) / (k + 1),
                        x != 0)
    return _C.where(x == 0, 1.0, value)


def _legendre(x, degree):
    value = _recurrence(degree, x, lambda k, current, previous: ((k + k + 1) * x * current - k * previous) / (k + 1),
                        x.abs() != 1)
    return _C.where(x.abs() == 1, _C.where(x > 0, 1.0, _parity_sign(degree)), value)


def _polynomial(name, evaluate, doc):
    def function(input, n):
        x, degree = _operands(name, input, n)
        return _C.where(degree < 0, 0.0, evaluate(x, degree))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


chebyshev_polynomial_t = _polynomial("chebyshev_polynomial_t", _chebyshev("t", False),
                                     "The Chebyshev polynomial of the first kind T_n(input).")
chebyshev_polynomial_u = _polynomial("chebyshev_polynomial_u", _chebyshev("u", False),
                                     "The Chebyshev polynomial of the second kind U_n(input).")
chebyshev_polynomial_v = _polynomial("chebyshev_polynomial_v", _chebyshev("v", False),
                                     "The Chebyshev polynomial of the third kind V_n(input).")
chebyshev_polynomial_w = _polynomial("chebyshev_polynomial_w", _chebyshev("w", False),
                                     "The Chebyshev polynomial of the fourth kind W_n(input).")
shifted_chebyshev_polynomial_t = _polynomial("shifted_chebyshev_polynomial_t", _chebyshev("t", True),
                                             "T_n(2 input - 1), orthogonal on [0, 1].")
shifted_chebyshev_polynomial_u = _polynomial("shifted_chebyshev_polynomial_u", _chebyshev("u", True),
                                             "U_n(2 input - 1), orthogonal on [0, 1].")
shifted_chebyshev_polynomial_v = _polynomial("shifted_chebyshev_polynomial_v", _chebyshev("v", True),
                                             "V_n(2 input - 1), orthogonal on [0, 1].")
shifted_chebyshev_polynomial_w = _polynomial("shifted_chebyshev_polynomial_w", _chebyshev("w", True),
                                             "W_n(2 input - 1), orthogonal on [0, 1].")
hermite_polynomial_h = _polynomial("hermite_polynomial_h", _hermite(2.0),
                                   "The physicists' Hermite polynomial H_n(input).")
hermite_polynomial_he = _polynomial("hermite_polynomial_he", _hermite(1.0),
                                    "The probabilists' Hermite polynomial He_n(input).")
laguerre_polynomial_l = _polynomial("laguerre_polynomial_l", _laguerre, "The Laguerre polynomial L_n(input).")
legendre_polynomial_p = _polynomial("legendre_polynomial_p", _legendre, "The Legendre polynomial P_n(input).")
