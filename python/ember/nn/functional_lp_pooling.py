"""Power-average pooling (lp_pool1d/2d/3d) over the average pools, and
torch.nn.functional's older names: the max pools `_with_indices` and
`upsample`, `upsample_nearest`, `upsample_bilinear` over interpolate."""

import math
import warnings

from .. import _C

__all__ = ["lp_pool1d", "lp_pool2d", "lp_pool3d", "max_pool1d_with_indices", "max_pool2d_with_indices", "upsample",
           "upsample_nearest", "upsample_bilinear"]


def _kernel(kernel_size, dims):
    return [kernel_size] * dims if isinstance(kernel_size, int) else list(kernel_size)


def _lp_pool(average, dims, input, norm_type, kernel_size, stride, ceil_mode):
    """(sum over each window of x ** p) ** (1 / p), from the window average
    times the window's size; a negative average (odd p) keeps PyTorch's sign
    handling: its relu'd magnitude, so the root is taken of zero."""
    kernel = _kernel(kernel_size, dims)
    pooled = average(input.pow(norm_type), kernel, stride, 0, ceil_mode)
    return (_C.sign(pooled) * pooled.abs().relu()).mul(math.prod(kernel)).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    from . import functional as F

    return _lp_pool(F.avg_pool1d, 1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    from . import functional as F

    return _lp_pool(F.avg_pool2d, 2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    from . import functional as F

    return _lp_pool(F.avg_pool3d, 3, input, norm_type, kernel_size, stride, ceil_mode)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    from . import functional as F

    return F.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    from . import functional as F

    return F.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """interpolate(), under the name PyTorch keeps with a deprecation warning."""
    from . import functional as F

    warnings.warn("nn.functional.upsample is deprecated. Use nn.functional.interpolate instead.", stacklevel=2)
    return F.interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    from . import functional as F

    warnings.warn("nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate instead.",
                  stacklevel=2)
    return F.interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    from . import functional as F

    warnings.warn("nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate instead.",
                  stacklevel=2)
    return F.interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
