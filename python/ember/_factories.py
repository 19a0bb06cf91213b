"""Tensor factories with PyTorch's signatures (``zeros(2, 3)``,
``zeros((2, 3), dtype=..., device=..., requires_grad=True)``)."""

import math
import threading
import warnings

from . import _C, _memory_format
from ._C import Tensor
from ._generator import host_rng
from ._plugins import autoload

_CPU = _C.device("cpu")

# Note [Default device]: factories given no device make their tensors on the
# default device: the CPU unless set_default_device or a `with
# ember.device(...)` block says otherwise. As in PyTorch, the setting is the
# calling thread's, a `with` block restores what was there before, and a
# factory given a device, or a tensor made from a tensor, keeps its own.
_default = threading.local()


def set_default_device(device):
    """Factories given no device make tensors on `device` (None: the CPU)."""
    _default.device = None if device is None else _device(device)


def get_default_device():
    return getattr(_default, "device", None) or _CPU


def _enter_device(device):
    stack = _default.__dict__.setdefault("entered", [])
    stack.append(getattr(_default, "device", None))
    _default.device = device
    return device


def _exit_device(device, *exc_info):
    _default.device = _default.entered.pop()


def _shape(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return list(size[0])
    return list(size)


def _device(device):
    if device is None:
        return getattr(_default, "device", None) or _CPU
    if isinstance(device, _C.device):
        return device
    autoload()  # the device's plugin may come from an installed wheel
    return _C.device(device)


def _finish(t, requires_grad):
    return t.requires_grad_() if requires_grad else t


def _is_numpy_value(data):
    return type(data).__module__ == "numpy" and hasattr(data, "dtype")


def tensor(data, *, dtype=None, device=None, requires_grad=False):
    """A new tensor holding a copy of ``data``: a number, nested sequences, a
    tensor, a NumPy array or scalar (its dtype kept), or anything with
    ``__dlpack__`` (PyTorch tensors)."""
    if isinstance(data, Tensor):
        result = data.detach().clone()._to(_device(device) if device else None, dtype, False)
    elif hasattr(data, "__dlpack__") or _is_numpy_value(data):
        from ._dlpack import from_dlpack

        if type(data).__module__ == "numpy":
            # Any NumPy layout (reversed, read-only, 0-d) is fine for a copy.
            import numpy

            data = numpy.asarray(data, order="C")
        result = from_dlpack(data)._to(_device(device), dtype, True)
    elif isinstance(data, (list, tuple)):
        result = _C._tensor_from_sequence(data, dtype, _device(device))
    else:
        result = _C._tensor_from_sequence([data], dtype, _device(device)).reshape(())
    return _finish(result, requires_grad)


def as_tensor(data, dtype=None, device=None):
    """Like tensor(), but shares memory when ``data`` already is a suitable tensor."""
    if isinstance(data, Tensor):
        return data.to(device=_device(device) if device else data.device, dtype=dtype or data.dtype)
    return tensor(data, dtype=dtype, device=device)


def empty(*size, dtype=None, device=None, requires_grad=False, memory_format=_memory_format.contiguous_format):
    shape = _shape(size)
    if memory_format is _memory_format.contiguous_format:
        return _finish(_C._empty(shape, dtype, _device(device)), requires_grad)
    if memory_format is _memory_format.preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    strides = _memory_format.strides_for(shape, memory_format)
    return empty_strided(shape, strides, dtype=dtype, device=device, requires_grad=requires_grad)


def empty_permuted(size, physical_layout, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """An uninitialised tensor of `size` whose dims lie in memory in the order
    physical_layout names them, outermost first (empty_permuted((2, 3, 4),
    (0, 2, 1)) has strides (12, 1, 3))."""
    size, layout = list(size), list(physical_layout)
    if sorted(layout) != list(range(len(size))):
        raise RuntimeError(f"empty_permuted: physical_layout {layout} is not a permutation of the {len(size)} dims")
    physical = empty([size[dim] for dim in layout], dtype=dtype, device=device)
    return _finish(physical.permute([layout.index(dim) for dim in range(len(size))]), requires_grad)


def empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A tensor of `size` with `stride` over just enough memory, not set."""
    size, stride = [int(n) for n in size], [int(n) for n in stride]
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality of strides "
                           f"({len(stride)})")
    if any(n < 0 for n in size) or any(n < 0 for n in stride):
        raise RuntimeError(f"empty_strided: sizes and strides must not be negative, got {size} and {stride}")
    elements = 0 if 0 in size else 1 + sum((n - 1) * step for n, step in zip(size, stride))
    storage = _C._empty([elements], dtype, _device(device))
    return _finish(storage.as_strided(size, stride), requires_grad)


def zeros(*size, dtype=None, device=None, requires_grad=False):
    return _finish(_C._zeros(_shape(size), dtype, _device(device)), requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False):
    return _finish(_C._ones(_shape(size), dtype, _device(device)), requires_grad)


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False):
    return _finish(_C._full(list(size), fill_value, dtype, _device(device)), requires_grad)


# Significand bits per floating dtype: a uniform draw from a generator is
# k * 2**-bits with k uniform in [0, 2**bits), exact in the dtype, so that
# rounding never lifts it to 1.
_SIGNIFICAND_BITS = {_C.float16: 11, _C.bfloat16: 8, _C.float32: 24, _C.float64: 53}


def _drawn_from(generator, caller, size, dtype, device, draw):
    """A new tensor filled with ``draw(rng, shape)`` (a NumPy array) from the
    generator's host stream (Note [Host generators])."""
    result = _C._empty(size, dtype, _device(device))
    values = draw(host_rng(generator, caller), tuple(result.shape))
    return result.copy_(_C._tensor_from_buffer(values, 0, _C.float64 if values.dtype == "float64" else _C.int64,
                                                list(values.shape)))


def _floating_drawn_from(generator, caller, kernel, size, dtype, device, draw):
    """_drawn_from for a floating dtype, after the dtype check the core's
    ``kernel`` makes; ``draw`` also gets the dtype."""
    target = dtype or _C.get_default_dtype()
    if not target.is_floating_point:
        dtype_name = str(target).removeprefix("ember.")
        raise NotImplementedError(f"{kernel}: expected a floating point tensor, got {dtype_name}")
    return _drawn_from(generator, caller, size, target, device, lambda rng, shape: draw(rng, shape, target))


def _uniform(rng, shape, dtype):
    bits = _SIGNIFICAND_BITS[dtype]
    return rng.integers(0, 2**bits, shape, dtype="int64") * 2.0**-bits


def _normal(rng, shape, dtype):
    return rng.standard_normal(shape)


def rand(*size, dtype=None, device=None, requires_grad=False, generator=None):
    if generator is None:
        return _finish(_C._rand(_shape(size), dtype, _device(device)), requires_grad)
    return _finish(_floating_drawn_from(generator, "rand", "uniform_", _shape(size), dtype, device, _uniform),
                   requires_grad)


def randn(*size, dtype=None, device=None, requires_grad=False, generator=None):
    if generator is None:
        return _finish(_C._randn(_shape(size), dtype, _device(device)), requires_grad)
    return _finish(_floating_drawn_from(generator, "randn", "normal_", _shape(size), dtype, device, _normal),
                   requires_grad)


def randint(low, high=None, size=None, *, generator=None, dtype=None, device=None, requires_grad=False):
    """Integers uniformly from [low, high); randint(high, size) starts at 0."""
    if size is None and high is not None and not isinstance(high, int):
        # randint(high, size): the second positional argument is the size.
        high, size = None, high
    if high is None:
        low, high = 0, low
    if size is None:
        raise TypeError("randint() missing required argument 'size'")
    size = [size] if isinstance(size, int) else list(size)
    if high <= low:
        raise ValueError(f"randint: high ({high}) must be greater than low ({low})")
    if generator is not None:
        values = _drawn_from(generator, "randint", size, _C.int64, device,
                             lambda rng, shape: rng.integers(low, high, shape, dtype="int64"))
        return _finish(values.to(dtype or _C.int64), requires_grad)
    uniform = _C._rand(size, _C.float64, _device(device))
    values = (uniform * (high - low)).floor().clamp(max=high - low - 1) + low
    return _finish(values.to(dtype or _C.int64), requires_grad)


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    """A random permutation of 0 .. n-1: the order that sorts uniform noise,
    or a shuffle of the generator's host stream."""
    if generator is not None:
        order = _drawn_from(generator, "randperm", [n], _C.int64, device, lambda rng, shape: rng.permutation(n))
    else:
        order = _C._rand([n], _C.float64, _device(device)).argsort()
    return _finish(order.to(dtype or _C.int64), requires_grad)


def _in_format_of(input, made, memory_format, requires_grad):
    """`made` laid out as memory_format says (preserve_format: as `input`), then requiring grad if asked."""
    fmt = _memory_format.format_of(input) if memory_format is _memory_format.preserve_format else memory_format
    return _finish(_memory_format.in_format(made, fmt, "empty_like"), requires_grad)


def _like(factory):
    def make_like(input, *, dtype=None, device=None, requires_grad=False,
                  memory_format=_memory_format.preserve_format):
        made = factory(tuple(input.shape), dtype=dtype or input.dtype, device=device or input.device)
        return _in_format_of(input, made, memory_format, requires_grad)

    make_like.__name__ = f"{factory.__name__}_like"
    return make_like


empty_like = _like(empty)
zeros_like = _like(zeros)
ones_like = _like(ones)
rand_like = _like(rand)
randn_like = _like(randn)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False,
              memory_format=_memory_format.preserve_format):
    made = full(tuple(input.shape), fill_value, dtype=dtype or input.dtype, device=device or input.device)
    return _in_format_of(input, made, memory_format, requires_grad)


def randint_like(input, low, high=None, *, dtype=None, device=None, requires_grad=False,
                 memory_format=_memory_format.preserve_format):
    if high is None:
        low, high = 0, low
    made = randint(low, high, tuple(input.shape), dtype=dtype or input.dtype, device=device or input.device)
    return _in_format_of(input, made, memory_format, requires_grad)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False):
    if end is None:
        start, end = 0, start
    return _finish(_C._arange(start, end, step, dtype, _device(device)), requires_grad)


def deprecated_range(start, end, step=1, *, dtype=None, device=None, requires_grad=False):
    """start, start + step, ... up to and including end, in the default
    floating dtype: the deprecated torch.range, which arange replaces."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).", UserWarning, stacklevel=2)
    if step == 0 or (end - start) * step < 0:
        raise RuntimeError(f"range: upper bound and larger bound inconsistent with step sign (start {start}, end "
                           f"{end}, step {step})")
    count = int(math.floor((end - start) / step)) + 1
    values = arange(count, dtype=_C.float64, device=device) * step + start
    return _finish(values.to(dtype or _C.get_default_dtype()), requires_grad)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False):
    """``steps`` evenly spaced values from start to end inclusive; like PyTorch,
    the first half counts up from start and the second half down from end, so
    both ends are exact."""
    if steps < 0:
        raise RuntimeError(f"linspace: number of steps must be non-negative, got {steps}")
    target = dtype or _C.get_default_dtype()
    if steps == 1:
        return _finish(full((1,), start, dtype=target, device=device), requires_grad)
    step = (end - start) / (steps - 1)
    index = _C._arange(0, steps, 1, _C.float64, _device(device))
    from_start = index * step + start
    from_end = end - (steps - 1 - index) * step
    values = _C.where(index < steps // 2, from_start, from_end)
    return _finish(values.to(target), requires_grad)


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    """base ** linspace(start, end, steps), computed in float64 and then cast."""
    exponents = linspace(start, end, steps, dtype=_C.float64, device=device)
    values = _C.pow(full((1,), base, dtype=_C.float64, device=exponents.device), exponents)
    return _finish(values.to(dtype or _C.get_default_dtype()), requires_grad)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False):
    m = n if m is None else m
    result = zeros(n, m, dtype=dtype, device=device)
    # The diagonal is a strided view: stride m + 1 through the flat storage.
    result.as_strided([min(n, m)], [m + 1]).fill_(1)
    return _finish(result, requires_grad)

