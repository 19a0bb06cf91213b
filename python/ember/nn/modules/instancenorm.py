"""InstanceNorm1d, 2d and 3d: each sample's channels normalized over their
own spatial extent, with optional running statistics."""

from ... import _factories
from .. import functional as F
from ..parameter import Parameter
from .module import Module


class _InstanceNorm(Module):
    _spatial = 0

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = Parameter(_factories.ones(num_features, device=device, dtype=dtype))
            self.bias = Parameter(_factories.zeros(num_features, device=device, dtype=dtype))
        else:
            self.weight = self.bias = None
        if track_running_stats:
            self.register_buffer("running_mean", _factories.zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", _factories.ones(num_features, device=device, dtype=dtype))
        else:
            self.running_mean = self.running_var = None

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

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"track_running_stats={self.track_running_stats}")


class InstanceNorm1d(_InstanceNorm):
    _spatial = 1


class InstanceNorm2d(_InstanceNorm):
    _spatial = 2


class InstanceNorm3d(_InstanceNorm):
    _spatial = 3
