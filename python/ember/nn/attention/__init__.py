"""torch.nn.attention: SDPBackend and sdpa_kernel, which select the
attention backends for a block of code through the flags of
ember.backends.cuda (kept and reported; every device runs its one attention
kernel)."""

import contextlib
import enum

from ...backends import cuda as _cuda_flags

__all__ = ["SDPBackend", "sdpa_kernel"]


class SDPBackend(enum.IntEnum):
    """PyTorch's attention backends, with its values."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


_FLAG_OF = {SDPBackend.MATH: "math", SDPBackend.FLASH_ATTENTION: "flash",
            SDPBackend.EFFICIENT_ATTENTION: "mem_efficient", SDPBackend.CUDNN_ATTENTION: "cudnn"}


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Only `backends` (one SDPBackend or a list) enabled inside the block;
    the flags as they were after it."""
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError(f"Backend must be an instance of SDPBackend or a list of SDPBackend instances, got "
                             f"{type(backends).__name__}")
    chosen = {backends} if isinstance(backends, SDPBackend) else set(backends)
    previous = dict(_cuda_flags._sdp_backends)
    for backend, flag in _FLAG_OF.items():
        _cuda_flags._sdp_backends[flag] = backend in chosen
    try:
        yield {}
    finally:
        _cuda_flags._sdp_backends.update(previous)
