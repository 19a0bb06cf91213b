"""BatchNorm1d, 2d and 3d: normalization over the batch, with running
statistics for evaluation; their base holds the affine parameters and
statistics that the instance norms share, and its lazy form takes
num_features from the first input."""

from ... import _C, _factories
from .. import functional as F
from .. import init
from ...autograd.grad_mode import no_grad
from ..parameter import Parameter, UninitializedBuffer, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module


class _NormBase(Module):
    # Version 2 added num_batches_tracked; older state dicts load without it.
    _version = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None, *, bias=True):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        # Absent ones are registered as None, so that a lazy subclass's
        # placeholders assigned later take the same places.
        self.register_parameter("weight", Parameter(_factories.ones(num_features, device=device, dtype=dtype))
                                if affine else None)
        self.register_parameter("bias", Parameter(_factories.zeros(num_features, device=device, dtype=dtype))
                                if affine and bias else None)
        statistics = {"running_mean": _factories.zeros(num_features, device=device, dtype=dtype),
                      "running_var": _factories.ones(num_features, device=device, dtype=dtype),
                      "num_batches_tracked": _factories.zeros((), dtype=_C.int64, device=device)}
        for name, initial in statistics.items():
            self.register_buffer(name, initial if track_running_stats else None)

    def reset_running_stats(self):
        if self.track_running_stats:
            init.zeros_(self.running_mean)
            init.ones_(self.running_var)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        key = prefix + "num_batches_tracked"
        if local_metadata.get("version", 0) < 2 and self.track_running_stats and key not in state_dict:
            state_dict[key] = self.num_batches_tracked
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")



class _LazyNormBase(LazyModuleMixin, _NormBase):
    """Built with no features and placeholders for the parameters and
    statistics, which input.shape[1] of the first forward shapes. Affine and
    tracking default to on for the instance norms too, as in PyTorch."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None, *,
                 bias=True):
        super().__init__(0, eps, momentum, False, False, device, dtype, bias=False)
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = _factories.zeros((), dtype=_C.int64, device=device)

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            with no_grad():
                for tensor in (self.weight, self.bias, self.running_mean, self.running_var):
                    if tensor is not None:
                        tensor.materialize((self.num_features,))
                self.reset_parameters()

class _BatchNorm(_NormBase):
    _input_ranks = ()

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


class BatchNorm1d(_BatchNorm):
    _input_ranks = (2, 3)


class BatchNorm2d(_BatchNorm):
    _input_ranks = (4,)


class BatchNorm3d(_BatchNorm):
    _input_ranks = (5,)


class LazyBatchNorm1d(_LazyNormBase, BatchNorm1d):
    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNormBase, BatchNorm2d):
    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyNormBase, BatchNorm3d):
    cls_to_become = BatchNorm3d
