"""ember.autocast: mixed precision regions, as torch.autocast (Note [Autocast]
in runtime/include/ember/autocast.h; docs/python.md, "Mixed precision")."""

import functools
import warnings

from .. import _C

_SUPPORTED_DTYPES = (_C.float16, _C.bfloat16)


# Device types PyTorch programs name that no loaded plugin may provide here:
# a region for one of them runs without autocast, as torch.autocast("cuda")
# does on a machine without CUDA.
_TYPES_PYTORCH_NAMES = frozenset({"cuda", "xpu", "hpu", "mps", "mtia", "xla", "ipu", "maia", "privateuseone"})


def _available(device_type):
    """Whether a loaded plugin (or the core) provides `device_type`, after
    checking that it is a device type name at all."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if ":" in device_type:
        raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}' "
                           f"(a device type, without an index)")
    try:
        _C.device(device_type)
        return True
    except (RuntimeError, ValueError):
        if device_type in _TYPES_PYTORCH_NAMES:
            return False
        raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'") from None


def is_autocast_available(device_type):
    """Whether autocast can be used on `device_type`: the CPU, and every device type a loaded plugin provides."""
    try:
        return _available(device_type)
    except RuntimeError:
        return False


class autocast:
    """``with ember.autocast(device_type, dtype=None, enabled=True, cache_enabled=None):``
    runs the block's matrix products, convolutions and attention on that
    device type in `dtype` (bfloat16 on the CPU, float16 on accelerators by
    default) and its losses in float32; also a decorator."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        available = _available(device_type)
        self.device = device_type
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None else bool(cache_enabled)
        self._enabled = bool(enabled)
        if self._enabled and not available:
            warnings.warn(f"User provided device_type of '{device_type}', but no loaded plugin provides it. "
                          f"Disabling autocast.")
            self._enabled = False
        if self._enabled and self.fast_dtype not in _SUPPORTED_DTYPES:
            # PyTorch's behaviour: a region for a dtype autocast cannot use runs without autocast.
            warnings.warn(f"In {device_type} autocast, but the target dtype is not supported. Disabling autocast. "
                          f"Autocast computes in ember.float16 or ember.bfloat16, not {self.fast_dtype}.")
            self._enabled = False
        self._regions = []

    def __enter__(self):
        # A device type no plugin provides has no state to set: its ops cannot run.
        region = None
        if _available(self.device):
            region = _C._AutocastRegion(self.device, self.fast_dtype, self._enabled, self._cache_enabled)
            region.enter()
        self._regions.append(region)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        region = self._regions.pop()
        if region is not None:
            region.exit()
        return False

    def __call__(self, function):
        @functools.wraps(function)
        def run_in_region(*args, **kwargs):
            with autocast(self.device, self.fast_dtype, self._enabled, self._cache_enabled):
                return function(*args, **kwargs)

        return run_in_region


def is_autocast_enabled(device_type=None):
    """Whether autocast is on for `device_type` on this thread (PyTorch's
    default, without an argument, is 'cuda')."""
    device_type = "cuda" if device_type is None else device_type
    return _available(device_type) and _C._autocast_is_enabled(device_type)


def get_autocast_dtype(device_type):
    if not _available(device_type):
        return _C.float16  # what autocast would use on an accelerator
    return _C._autocast_dtype(device_type)


def set_autocast_enabled(device_type, enabled=None):
    """set_autocast_enabled(device_type, enabled), or PyTorch's older
    set_autocast_enabled(enabled) for 'cuda'."""
    if enabled is None:
        device_type, enabled = "cuda", device_type
    _C._autocast_set_enabled(device_type, bool(enabled))


def set_autocast_dtype(device_type, dtype):
    _C._autocast_set_dtype(device_type, dtype)


def clear_autocast_cache():
    _C._autocast_clear_cache()


# PyTorch's older per-device spellings, which libraries still call.
def is_autocast_cpu_enabled():
    return is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled):
    set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype():
    return get_autocast_dtype("cpu")


def set_autocast_cpu_dtype(dtype):
    set_autocast_dtype("cpu", dtype)


def get_autocast_gpu_dtype():
    return get_autocast_dtype("cuda")


def set_autocast_gpu_dtype(dtype):
    set_autocast_dtype("cuda", dtype)


# The default of autocast's cache_enabled: whether a region keeps its low-precision copies of weights.
_cache_enabled = [True]


def is_autocast_cache_enabled():
    return _cache_enabled[0]


def set_autocast_cache_enabled(enabled):
    _cache_enabled[0] = bool(enabled)


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """For an ember.autograd.Function's forward: with `cast_inputs`, inside
    an autocast region of `device_type` the floating tensor arguments are
    cast to it and the forward runs with autocast off; backward under
    custom_bwd then runs in the forward's autocast state."""
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    _available(device_type)

    @functools.wraps(fwd)
    def forward(*args, **kwargs):
        ctx = args[0]
        ctx._fwd_used_autocast = _C._autocast_is_enabled(device_type)
        ctx._autocast_dtype = _C._autocast_dtype(device_type)
        if cast_inputs is None or not ctx._fwd_used_autocast:
            return fwd(*args, **kwargs)
        args = [a.to(cast_inputs) if isinstance(a, _C.Tensor) and a.is_floating_point() else a for a in args]
        kwargs = {k: v.to(cast_inputs) if isinstance(v, _C.Tensor) and v.is_floating_point() else v
                  for k, v in kwargs.items()}
        with autocast(device_type, enabled=False):
            return fwd(*args, **kwargs)

    return forward


def custom_bwd(bwd=None, *, device_type):
    """For an ember.autograd.Function's backward: runs it in the autocast
    state its custom_fwd forward saw."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    _available(device_type)

    @functools.wraps(bwd)
    def backward(ctx, *grads):
        with autocast(device_type, ctx._autocast_dtype, ctx._fwd_used_autocast):
            return bwd(ctx, *grads)

    return backward
