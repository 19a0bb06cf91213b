"""Random sampling composites: multinomial, bernoulli, normal's overloads and
the in-place samplers bernoulli_, exponential_, cauchy_, log_normal_,
geometric_ and random_. Each draws uniform or normal numbers from the global
stream, or from a Generator's host stream when one is given (Note [Host
generators]), and shapes them with elementwise ops and sort."""

import math
import numbers

from . import _C
from ._C import Tensor
from . import _factories
from ._searching import binary_search
from ._type_info import iinfo
from ._dtype_names import dtype_name as _dtype_name

# Significand bits of each floating dtype, plus one: random_() draws integers
# up to 2**this, the largest range whose integers the dtype holds exactly.
_EXACT_INTEGER_BITS = {_C.float16: 11, _C.bfloat16: 8, _C.float32: 24, _C.float64: 53}
# Ranges up to this many integers are drawn by scaling a float64 uniform.
_FLOAT64_EXACT_RANGE = 2**53


def uniform_float64(shape, device, generator):
    """float64 numbers uniform in [0, 1)."""
    return _factories.rand(*shape, dtype=_C.float64, device=device, generator=generator)


def accepted_draws(like, propose):
    """Rejection sampling over a whole tensor at once: propose() gives
    (candidates, accepted), tensors of like's shape; each element keeps its
    first accepted candidate, and propose runs again while any has none."""
    result = _factories.zeros_like(like)
    pending = _factories.ones_like(like, dtype=_C.bool)
    while bool(pending.any()):
        candidates, accepted = propose()
        result = _C.where(pending & accepted, candidates, result)
        pending = pending & ~accepted
    return result


def _standard_normal(shape, dtype, device, generator):
    return _factories.randn(*shape, dtype=dtype, device=device, generator=generator)


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """num_samples category indices per row of the weights ``input`` (1-d or
    2-d, nonnegative, not all 0). With replacement each draw inverts the
    cumulative weights at a uniform number; without, the categories with the
    num_samples largest weight / Exp(1) keys are taken (Efraimidis and
    Spirakis' method, as PyTorch samples), in the order of their keys."""
    if input.dim() not in (1, 2):
        raise RuntimeError(f"multinomial: prob_dist must be 1 or 2 dim, got {input.dim()} dims")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{_dtype_name(input.dtype)}")
    if num_samples <= 0:
        raise RuntimeError(f"multinomial: cannot sample n_sample <= 0 samples (got {num_samples})")
    categories = input.shape[-1]
    if not replacement and num_samples > categories:
        raise RuntimeError(f"multinomial: cannot sample n_sample > prob_dist.size(-1) samples without replacement "
                           f"({num_samples} > {categories})")
    weights = input.detach().to(_C.float64).reshape(-1, categories)
    if bool(((weights < 0) | (weights != weights) | (weights.abs() == float("inf"))).any()):
        raise RuntimeError("multinomial: probability tensor contains either `inf`, `nan` or element < 0")
    if bool((weights.sum(1) <= 0).any()):
        raise RuntimeError("multinomial: invalid multinomial distribution (sum of probabilities <= 0)")
    rows = weights.shape[0]
    if replacement:
        cumulative = weights.cumsum(1)
        targets = uniform_float64([rows, num_samples], input.device, generator) * cumulative[:, -1:]
        # The first category whose cumulative weight exceeds the target.
        samples = binary_search(cumulative, targets, right=True).clamp(max=categories - 1)
    else:
        arrivals = -_C.log1p(-uniform_float64([rows, categories], input.device, generator))
        samples = _C.topk(weights / arrivals, num_samples, 1).indices
    return samples.reshape(list(input.shape[:-1]) + [num_samples])


def _check_probability(p, caller):
    if isinstance(p, Tensor):
        if bool(((p < 0) | (p > 1) | (p != p)).any()):
            raise RuntimeError(f"{caller} expects p to be in [0, 1], but some elements of p are outside it")
    elif not 0 <= p <= 1:
        raise RuntimeError(f"{caller} expects p to be in [0, 1], but got p={p}")


def bernoulli(input, p=None, *, generator=None):
    """0 or 1 in input's dtype, 1 with probability input (or with probability
    p, a number, in input's shape)."""
    if p is None:
        if not input.dtype.is_floating_point:
            raise NotImplementedError(f"bernoulli: the probabilities must be floating point, got "
                                      f"{_dtype_name(input.dtype)}")
        _check_probability(input, "bernoulli")
        probabilities = input.detach()
    else:
        _check_probability(p, "bernoulli")
        probabilities = p
    draws = uniform_float64(list(input.shape), input.device, generator) < probabilities
    return draws.to(input.dtype)


def _bernoulli_(self, p=0.5, *, generator=None):
    _check_probability(p, "bernoulli_")
    if isinstance(p, Tensor):
        p = p.detach().to(_C.float64).expand(list(self.shape))
    return self.copy_(uniform_float64(list(self.shape), self.device, generator) < p)


def _exponential_(self, lambd=1.0, *, generator=None):
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"exponential_: Exponential distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified {_dtype_name(self.dtype)}")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    return self.copy_(-_C.log1p(-uniform_float64(list(self.shape), self.device, generator)) / lambd)


def _check_floating(self, caller, distribution):
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"{caller}: {distribution} distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified {_dtype_name(self.dtype)}")


def _cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """median + sigma * tan(pi * (u - 1/2)), u uniform: the inverse of the
    Cauchy distribution's CDF."""
    _check_floating(self, "cauchy_", "Cauchy")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    u = uniform_float64(list(self.shape), self.device, generator)
    return self.copy_(((u - 0.5) * math.pi).tan() * sigma + median)


def _log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """exp(mean + std * z), z standard normal."""
    if not self.dtype.is_floating_point:
        raise NotImplementedError(f"log_normal_: not implemented for {_dtype_name(self.dtype)}")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    z = _standard_normal(list(self.shape), _C.float64, self.device, generator)
    return self.copy_((z * std + mean).exp())


def _geometric_(self, p, *, generator=None):
    """The number of Bernoulli(p) trials up to the first success, 1, 2, ...:
    ceil(log(1 - u) / log(1 - p)), u uniform, the inverse of its CDF."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    u = uniform_float64(list(self.shape), self.device, generator)
    return self.copy_((_C.log1p(-u) / math.log1p(-p)).ceil().clamp(min=1))


def _default_random_range(dtype):
    if dtype == _C.bool:
        return 0, 2
    if dtype.is_floating_point:
        return 0, 2 ** _EXACT_INTEGER_BITS[dtype] + 1
    return 0, iinfo(dtype).max + 1


def _random_(self, *args, generator=None, **kwargs):
    """random_(): integers from 0 up to the dtype's largest exact integer;
    random_(to): from [0, to); random_(from, to): from [from, to)."""
    start = kwargs.pop("from", None)
    end = kwargs.pop("to", None)
    if kwargs:
        raise TypeError(f"random_() got unexpected keyword arguments {sorted(kwargs)}")
    if len(args) == 1:
        end = args[0]
    elif len(args) == 2:
        start, end = args
    elif len(args) > 2:
        raise TypeError(f"random_() takes at most 2 positional arguments ({len(args)} given)")
    if end is None:
        default_start, end = _default_random_range(self.dtype)
        start = default_start if start is None else start
    start = 0 if start is None else start
    if start >= end:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={start} >= to={end}")
    count = end - start
    if generator is None and count <= _FLOAT64_EXACT_RANGE:
        values = (uniform_float64(list(self.shape), self.device, None) * count).floor().clamp(max=count - 1) + start
    else:
        # A range past float64's integers (int64's whole range) is drawn
        # exactly on the host: from the generator, or from a stream the
        # global one seeds (Note [Host generators]).
        values = _factories._drawn_from(
            generator, "random_", list(self.shape), _C.int64, self.device,
            lambda rng, shape: rng.integers(start, end - 1, shape, dtype="int64", endpoint=True))
    return self.copy_(values)


def _detached(value):
    return value.detach() if isinstance(value, Tensor) else value


def normal(mean, std=1.0, size=None, *, generator=None, dtype=None, device=None, requires_grad=False):
    """normal(mean, std) with tensors or numbers on either side (their shapes
    broadcast), or normal(mean, std, size) with two numbers."""
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        if size is not None:
            raise TypeError("normal(): size is only taken with a float mean and a float std")
        if isinstance(std, Tensor):
            if bool((std < 0).any()):
                raise RuntimeError("normal expects all elements of std >= 0.0")
        elif std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
        like = mean if isinstance(mean, Tensor) else std
        shapes = [t.shape for t in (mean, std) if isinstance(t, Tensor)]
        from ._shape_ops import broadcast_shapes

        shape = list(broadcast_shapes(*shapes))
        if not like.dtype.is_floating_point:
            raise NotImplementedError(f"normal: expected a floating point mean and std, got {_dtype_name(like.dtype)}")
        noise = _standard_normal(shape, like.dtype, like.device, generator)
        result = noise * _detached(std) + _detached(mean)
        # PyTorch's normal is recorded with zero derivatives: backward through
        # it reaches mean and std with zeros rather than failing.
        for parameter in (mean, std):
            if isinstance(parameter, Tensor) and parameter.requires_grad:
                result = result + (parameter - parameter.detach()) * 0
        return result
    if size is None:
        raise TypeError("normal(): with a float mean and a float std, the size is required")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    size = [size] if isinstance(size, numbers.Integral) else list(size)
    noise = _standard_normal(size, dtype, device, generator)
    result = noise * std + mean
    return result.requires_grad_() if requires_grad else result


Tensor.bernoulli = bernoulli
Tensor.bernoulli_ = _bernoulli_
Tensor.exponential_ = _exponential_
Tensor.cauchy_ = _cauchy_
Tensor.log_normal_ = _log_normal_
Tensor.geometric_ = _geometric_
Tensor.random_ = _random_
Tensor.multinomial = multinomial
