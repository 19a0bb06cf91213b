"""InstanceNorm1d, 2d and 3d: each sample's channels normalized over their
own spatial extent, with optional running statistics, and their lazy forms."""

from .. import functional as F
from .batchnorm import _LazyNormBase, _NormBase


class _InstanceNorm(_NormBase):
    _spatial = 0

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def forward(self, input):
        unbatched = input.dim() == self._spatial + 1
        if input.dim() not in (self._spatial + 1, self._spatial + 2):
            raise ValueError(f"{type(self).__name__}: expected {self._spatial + 1}D or {self._spatial + 2}D input, "
                             f"got {input.dim()}D")
        x = input.unsqueeze(0) if unbatched else input
        use_input_stats = self.training or not self.track_running_stats
        out = F.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias, use_input_stats,
                              self.momentum, self.eps)
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    _spatial = 1


class InstanceNorm2d(_InstanceNorm):
    _spatial = 2


class InstanceNorm3d(_InstanceNorm):
    _spatial = 3


class LazyInstanceNorm1d(_LazyNormBase, InstanceNorm1d):
    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyNormBase, InstanceNorm2d):
    cls_to_become = InstanceNorm2d


class LazyInstanceNorm3d(_LazyNormBase, InstanceNorm3d):
    cls_to_become = InstanceNorm3d
