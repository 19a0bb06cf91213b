"""torch.optim.swa_utils: averaged copies of a model's weights (stochastic
weight averaging and exponential moving averages), the schedule SWA trains
with, and a pass that recomputes batch-norm statistics for the averaged
weights."""

import copy
import itertools
import math

from .. import _C, _factories
from ..autograd.grad_mode import no_grad
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from .lr_scheduler import LRScheduler, _per_group

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn",
           "get_ema_avg_fn", "get_swa_avg_fn"]


def get_ema_avg_fn(decay=0.999):
    """avg_fn(averaged, current, count): the exponential moving average."""
    def ema_update(averaged, current, count):
        with no_grad():
            return decay * averaged + (1 - decay) * current
    return ema_update


def get_swa_avg_fn():
    """avg_fn(averaged, current, count): the running mean of `count` models and the current one."""
    def swa_update(averaged, current, count):
        with no_grad():
            return averaged + (current - averaged) / (count + 1)
    return swa_update


def _update_each(averaged_list, current_list, weight_of_current):
    for averaged, current in zip(averaged_list, current_list):
        if averaged.dtype.is_floating_point:
            averaged.lerp_(current, weight_of_current)
        else:  # integers: the blend in floating point, rounded back as the copy rounds
            averaged.copy_(averaged * (1 - weight_of_current) + current * weight_of_current)


def get_ema_multi_avg_fn(decay=0.999):
    """multi_avg_fn(averaged_list, current_list, count), in place."""
    def ema_update(averaged_list, current_list, count):
        with no_grad():
            _update_each(averaged_list, current_list, 1 - decay)
    return ema_update


def get_swa_multi_avg_fn():
    """multi_avg_fn(averaged_list, current_list, count), in place."""
    def swa_update(averaged_list, current_list, count):
        with no_grad():
            _update_each(averaged_list, current_list, 1 / (int(count) + 1))
    return swa_update


class AveragedModel(Module):
    """A copy of `model` whose parameters (and buffers, with use_buffers)
    update_parameters(model) averages with the model's: the running mean by
    default, or avg_fn / multi_avg_fn (an exponential moving average from
    get_ema_multi_avg_fn). Calls run the averaged copy."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", _factories.tensor(0, dtype=_C.int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def _averaged_tensors(self, model):
        if self.use_buffers:
            return (list(itertools.chain(self.module.parameters(), self.module.buffers())),
                    list(itertools.chain(model.parameters(), model.buffers())))
        return list(self.module.parameters()), list(model.parameters())

    def update_parameters(self, model):
        ours, theirs = self._averaged_tensors(model)
        averaged = [t.detach() for t in ours]
        current = [t.detach().to(a.device) for t, a in zip(theirs, averaged)]
        count = int(self.n_averaged.item())
        with no_grad():
            if count == 0:
                for a, c in zip(averaged, current):
                    a.copy_(c)
            elif self.avg_fn is not None:
                for a, c in zip(averaged, current):
                    a.copy_(self.avg_fn(a, c, self.n_averaged.to(a.device)))
            else:
                (self.multi_avg_fn or get_swa_multi_avg_fn())(averaged, current, self.n_averaged)
            if not self.use_buffers:
                # Buffers follow the model's as they are.
                for ours_buffer, their_buffer in zip(self.module.buffers(), model.buffers()):
                    ours_buffer.detach().copy_(their_buffer.detach().to(ours_buffer.device))
            self.n_averaged.add_(1)


def update_bn(loader, model, device=None):
    """Recomputes the running statistics of model's batch norms as the
    plain average over one pass of `loader` (its items, or their first
    element when they are lists or tuples)."""
    momenta = {module: module.momentum for module in model.modules() if isinstance(module, _BatchNorm)}
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.reset_running_stats()
        module.momentum = None  # a cumulative average over the pass
    with no_grad():
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's rate to its swa_lr over anneal_epochs steps
    ("cos" or "linear"), then holds it, as PyTorch's SWALR does."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        for rate, group in zip(_per_group("swa_lr", optimizer, swa_lr), optimizer.param_groups):
            group["swa_lr"] = rate
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_strategy = anneal_strategy
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    def _anneal(self, t):
        return t if self.anneal_strategy == "linear" else (1 - math.cos(math.pi * t)) / 2

    def get_lr(self):
        step = self.last_epoch if self.anneal_epochs else max(1, self.last_epoch)
        # The rate the annealing started from, recovered from the current one.
        previous = self._anneal(max(0.0, min(1.0, (step - 1) / max(1, self.anneal_epochs))))
        starts = [group["swa_lr"] if previous == 1 else (group["lr"] - previous * group["swa_lr"]) / (1 - previous)
                  for group in self.optimizer.param_groups]
        alpha = self._anneal(max(0.0, min(1.0, step / max(1, self.anneal_epochs))))
        return [group["swa_lr"] * alpha + start * (1 - alpha)
                for group, start in zip(self.optimizer.param_groups, starts)]
