"""torch.distributed.algorithms.ddp_comm_hooks: hooks for
DistributedDataParallel.register_comm_hook (default_hooks)."""

from . import default_hooks

__all__ = ["default_hooks"]
