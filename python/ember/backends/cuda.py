"""torch.backends.cuda's matrix-product and attention flags.
``matmul.allow_tf32`` is honoured: it sets EMBER_CUDA_ALLOW_TF32, which the
CUDA plugin reads at its first float32 product (so it takes effect when set
before that product, as programs set it at their start). The
reduced-precision-reduction flags and the scaled-dot-product-attention
backends (enable_flash_sdp, ..., and nn.attention.sdpa_kernel over them)
are kept and reported and change nothing: every device runs its one
attention kernel."""

import contextlib
import os
import warnings

from .. import _plugins

_TF32_VARIABLE = "EMBER_CUDA_ALLOW_TF32"


class _MatmulFlags:
    allow_fp16_reduced_precision_reduction = True
    allow_bf16_reduced_precision_reduction = True

    @property
    def allow_tf32(self):
        return os.environ.get(_TF32_VARIABLE) == "1"

    @allow_tf32.setter
    def allow_tf32(self, allowed):
        os.environ[_TF32_VARIABLE] = "1" if allowed else "0"


matmul = _MatmulFlags()


def is_built():
    """Whether a CUDA plugin is loaded (PyTorch: whether it was built with CUDA)."""
    return any(info.loaded and info.device_type == "cuda" for info in _plugins.plugins())


# The attention backends PyTorch lets programs switch: flash, mem_efficient, math, cudnn.
_sdp_backends = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}
_math_sdp_reduction = {"allowed": True}


def _sdp_switch(name):
    """enable_<name>_sdp(enabled) and <name>_sdp_enabled() over the flag of that name."""
    def enable(enabled):
        _sdp_backends[name] = bool(enabled)

    def is_enabled():
        return _sdp_backends[name]

    enable.__name__, is_enabled.__name__ = f"enable_{name}_sdp", f"{name}_sdp_enabled"
    return enable, is_enabled


enable_flash_sdp, flash_sdp_enabled = _sdp_switch("flash")
enable_mem_efficient_sdp, mem_efficient_sdp_enabled = _sdp_switch("mem_efficient")
enable_math_sdp, math_sdp_enabled = _sdp_switch("math")
enable_cudnn_sdp, cudnn_sdp_enabled = _sdp_switch("cudnn")


def allow_fp16_bf16_reduction_math_sdp(enabled):
    _math_sdp_reduction["allowed"] = bool(enabled)


def fp16_bf16_reduction_math_sdp_allowed():
    return _math_sdp_reduction["allowed"]


@contextlib.contextmanager
def sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True, enable_cudnn=True):
    """The deprecated form of nn.attention.sdpa_kernel: the flags for the block."""
    warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager will be "
                  "removed. Please see `torch.nn.attention.sdpa_kernel()` for the new context manager, with "
                  "updated signature.", FutureWarning, stacklevel=3)
    previous = dict(_sdp_backends)
    _sdp_backends.update(flash=bool(enable_flash), math=bool(enable_math), mem_efficient=bool(enable_mem_efficient),
                         cudnn=bool(enable_cudnn))
    try:
        yield {}
    finally:
        _sdp_backends.update(previous)
