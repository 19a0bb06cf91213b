"""Process-wide settings PyTorch programs make at their start:
set_float32_matmul_precision, the inter-op thread count, the warn-always
switch, flush-denormal and the legacy set_default_tensor_type."""

import os
import warnings

from . import _C, _factories, backends
from ._tensor import parse_type

_MATMUL_PRECISIONS = ("highest", "high", "medium")
_PRECISION_VARIABLE = "EMBER_FLOAT32_MATMUL_PRECISION"
_interop_threads = None


def set_float32_matmul_precision(precision):
    """"highest" keeps float32 products in float32; "high" and "medium" allow
    TF32 on devices that have it, as backends.cuda.matmul.allow_tf32 does
    (the CPU plugin's products stay float32 whatever is set)."""
    if precision not in _MATMUL_PRECISIONS:
        raise RuntimeError(f"set_float32_matmul_precision(): expected one of 'highest', 'high' or 'medium', but "
                           f"got {precision!r}")
    os.environ[_PRECISION_VARIABLE] = precision
    backends.cuda.matmul.allow_tf32 = precision != "highest"


def get_float32_matmul_precision():
    if not backends.cuda.matmul.allow_tf32:
        return "highest"
    return os.environ.get(_PRECISION_VARIABLE, "high")


def get_num_interop_threads():
    """The inter-op thread count last set (the core count until then). Ember
    runs one op at a time per calling thread, so the count changes nothing."""
    return _interop_threads if _interop_threads is not None else (os.cpu_count() or 1)


def set_num_interop_threads(count):
    global _interop_threads
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise RuntimeError(f"set_num_interop_threads(): expected a positive number of threads, but got {count!r}")
    _interop_threads = count


_warn_always = [False]


def set_warn_always(enabled):
    """Kept and reported: Ember's warnings that PyTorch gives once are given once."""
    _warn_always[0] = bool(enabled)


def is_warn_always_enabled():
    return _warn_always[0]


def set_flush_denormal(mode):
    """PyTorch's answer on x86 with SSE3: True, the switch is there. Ember's
    CPU kernels keep denormals whatever is set."""
    if not isinstance(mode, bool):
        raise TypeError(f"set_flush_denormal(): argument 'mode' must be bool, not {type(mode).__name__}")
    return True


def set_default_tensor_type(t):
    """The legacy form of set_default_dtype (and, for a device type's
    tensor type, set_default_device): t is a legacy tensor type or its name."""
    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "torch.set_default_dtype() and torch.set_default_device() as alternatives.", UserWarning,
                  stacklevel=2)
    device_type, dtype = parse_type(t, TypeError)
    if not dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _C.set_default_dtype(dtype)
    _factories.set_default_device(None if device_type == "cpu" else device_type)
