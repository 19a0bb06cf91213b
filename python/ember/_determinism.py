"""ember.use_deterministic_algorithms, as torch's: a process-wide request for run-to-run identical results.

Eager kernels of the CPU plugin are deterministic already (their chunking depends on sizes only).
The flag reaches compiled code: generated kernels are asked for results that do not depend on the
thread count, and compiled functions guard on it (changing it recompiles)."""

_state = {"enabled": False, "warn_only": False}


def use_deterministic_algorithms(mode, *, warn_only=False):
    if not isinstance(mode, bool):
        raise TypeError(f"use_deterministic_algorithms: expected a bool, got {type(mode).__name__}")
    _state["enabled"] = mode
    _state["warn_only"] = bool(warn_only)


def are_deterministic_algorithms_enabled():
    return _state["enabled"]


def is_deterministic_algorithms_warn_only_enabled():
    return _state["warn_only"]


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode):
    """0 / "default", 1 / "warn" or 2 / "error": use_deterministic_algorithms
    off, on with warnings, or on, as PyTorch maps them."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                               f"{debug_mode}")
        debug_mode = _DEBUG_MODES[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    if not are_deterministic_algorithms_enabled():
        return 0
    return 1 if is_deterministic_algorithms_warn_only_enabled() else 2
