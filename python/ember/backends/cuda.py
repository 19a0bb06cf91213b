"""torch.backends.cuda's matrix-product flags. ``matmul.allow_tf32`` is
honoured: it sets EMBER_CUDA_ALLOW_TF32, which the CUDA plugin reads at its
first float32 product (so it takes effect when set before that product, as
programs set it at their start). The reduced-precision-reduction flags are
accepted and change nothing."""

import os

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
