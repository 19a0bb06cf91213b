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
