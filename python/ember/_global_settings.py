"""Process-wide settings PyTorch programs make at their start:
set_float32_matmul_precision and the inter-op thread count."""

import os

from . import backends

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
