"""BatchNorm1d, 2d and 3d: normalization over the batch, with running
statistics for evaluation; their base holds the affine parameters and
statistics that the instance norms share, and its lazy form takes
num_features from the first input."""

from ... import _C, _factories, distributed
from ...autograd import Function
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
        self._check_input_rank(input)
        use_batch_stats, momentum, running_mean, running_var = self._step_statistics()
        return F.batch_norm(input, running_mean, running_var, self.weight, self.bias, use_batch_stats, momentum,
                            self.eps)

    def _check_input_rank(self, input):
        if input.dim() not in self._input_ranks:
            raise ValueError(f"{type(self).__name__}: expected {' or '.join(map(str, self._input_ranks))}D input "
                             f"(got {input.dim()}D input)")

    def _step_statistics(self):
        """Counts a training step; whether it normalizes by the batch's own
        statistics, the momentum of the running ones and those it updates."""
        use_batch_stats = self.training or self.running_mean is None
        momentum = self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
            if momentum is None:  # a cumulative moving average
                momentum = 1.0 / int(self.num_batches_tracked)
        running_mean = self.running_mean if not self.training or self.track_running_stats else None
        running_var = self.running_var if not self.training or self.track_running_stats else None
        return use_batch_stats, momentum if momentum is not None else 0.0, running_mean, running_var


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


class _SyncBatchNormFunction(Function):
    """Batch statistics summed over every rank of `group` (one all_reduce of
    the per-channel sums, sums of squares and counts, in float64), and in
    backward the sums of the output gradient and of its product with the
    centred input (a second all_reduce); the affine gradients stay the rank's
    own, which DDP then averages like every other parameter's."""

    @staticmethod
    def forward(ctx, input, weight, bias, running_mean, running_var, eps, momentum, group):
        channels = input.shape[1]
        dims = [0] + list(range(2, input.dim()))
        wide = input.to(_C.float64)
        count = _factories.full((1,), input.numel() // max(channels, 1), dtype=_C.float64)
        statistics = _C.cat([wide.sum(dims), (wide * wide).sum(dims), count])
        distributed.all_reduce(statistics, group=group)
        total = statistics[-1].item()
        mean64 = statistics[:channels] / total
        variance64 = (statistics[channels:2 * channels] / total - mean64 * mean64).clamp(min=0)
        if running_mean is not None:
            with no_grad():
                unbiased = variance64 * (total / max(total - 1, 1))
                running_mean.mul_(1 - momentum).add_(mean64.to(running_mean.dtype) * momentum)
                running_var.mul_(1 - momentum).add_(unbiased.to(running_var.dtype) * momentum)
        shape = [1, channels] + [1] * (input.dim() - 2)
        mean = mean64.to(input.dtype).reshape(shape)
        inverse_std = (variance64 + eps).rsqrt().to(input.dtype).reshape(shape)
        normalized = (input - mean) * inverse_std
        ctx.save_for_backward(input, weight, mean, inverse_std)
        ctx.total, ctx.dims, ctx.group = total, dims, group
        out = normalized if weight is None else normalized * weight.reshape(shape)
        return out if bias is None else out + bias.reshape(shape)

    @staticmethod
    def backward(ctx, grad_out):
        input, weight, mean, inverse_std = ctx.saved_tensors
        centred = input - mean
        sum_dy = grad_out.sum(ctx.dims)
        sum_dy_centred = (grad_out * centred).sum(ctx.dims)
        grad_weight = sum_dy_centred * inverse_std.reshape([-1]) if weight is not None else None
        grad_bias = sum_dy if ctx.needs_input_grad[2] else None
        sums = _C.cat([sum_dy, sum_dy_centred])
        distributed.all_reduce(sums, group=ctx.group)
        shape = mean.shape
        channels = mean.numel()
        mean_dy = (sums[:channels] / ctx.total).reshape(shape)
        mean_dy_centred = (sums[channels:] / ctx.total).reshape(shape)
        scale = inverse_std if weight is None else inverse_std * weight.reshape(shape)
        grad_input = (grad_out - mean_dy - centred * inverse_std * inverse_std * mean_dy_centred) * scale
        return grad_input, grad_weight, grad_bias, None, None, None, None, None


class SyncBatchNorm(_BatchNorm):
    """BatchNorm over the whole batch of every rank of a process group: in
    training, with the default group (or `process_group`) of more than one
    rank, the statistics are summed across ranks (_SyncBatchNormFunction);
    otherwise it is the plain batch norm."""

    _input_ranks = (2, 3, 4, 5)

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)
        self.process_group = process_group

    def forward(self, input):
        self._check_input_rank(input)
        use_batch_stats, momentum, running_mean, running_var = self._step_statistics()
        synchronized = (use_batch_stats and self.training and distributed.is_available()
                        and distributed.is_initialized() and distributed.get_world_size(self.process_group) > 1)
        if not synchronized:
            return F.batch_norm(input, running_mean, running_var, self.weight, self.bias, use_batch_stats,
                                momentum, self.eps)
        return _SyncBatchNormFunction.apply(input, self.weight, self.bias, running_mean, running_var, self.eps,
                                            momentum, self.process_group)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """`module` with every BatchNorm1d/2d/3d in it replaced by a
        SyncBatchNorm holding the same parameters and statistics."""
        converted = module
        if isinstance(module, _BatchNorm) and not isinstance(module, SyncBatchNorm):
            converted = cls(module.num_features, module.eps, module.momentum, module.affine,
                            module.track_running_stats, process_group)
            for name in ("weight", "bias", "running_mean", "running_var", "num_batches_tracked", "training"):
                setattr(converted, name, getattr(module, name))
        for name, child in module.named_children():
            converted.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return converted
