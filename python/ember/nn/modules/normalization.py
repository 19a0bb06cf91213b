"""BatchNorm1d/2d, LayerNorm, GroupNorm."""

from ... import _C, _factories
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module


class _BatchNorm(Module):
    _input_ranks = ()

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
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
            self.register_buffer("num_batches_tracked", _factories.zeros((), dtype=_C.int64, device=device))
        else:
            self.running_mean = self.running_var = self.num_batches_tracked = None

    def reset_running_stats(self):
        if self.track_running_stats:
            init.zeros_(self.running_mean)
            init.ones_(self.running_var)
            self.num_batches_tracked.zero_()

    def forward(self, input):
        if input.dim() not in self._input_ranks:
            raise ValueError(f"{type(self).__name__}: expected {' or '.join(map(str, self._input_ranks))}D input "
                             f"(got {input.dim()}D input)")
        use_batch_stats = self.training or self.running_mean is None
        momentum = self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
            if momentum is None:  # a cumulative moving average
                momentum = 1.0 / int(self.num_batches_tracked)
        running_mean = self.running_mean if not self.training or self.track_running_stats else None
        running_var = self.running_var if not self.training or self.track_running_stats else None
        return F.batch_norm(input, running_mean, running_var, self.weight, self.bias, use_batch_stats,
                            momentum if momentum is not None else 0.0, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    _input_ranks = (2, 3)


class BatchNorm2d(_BatchNorm):
    _input_ranks = (4,)


class LayerNorm(Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_factories.ones(self.normalized_shape, device=device, dtype=dtype))
            self.bias = Parameter(_factories.zeros(self.normalized_shape, device=device, dtype=dtype)) if bias else None
        else:
            self.weight = self.bias = None

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class GroupNorm(Module):
    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        if affine:
            self.weight = Parameter(_factories.ones(num_channels, device=device, dtype=dtype))
            self.bias = Parameter(_factories.zeros(num_channels, device=device, dtype=dtype))
        else:
            self.weight = self.bias = None

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}"
