"""ember.distributed: torch.distributed's process groups and collectives."""

from ember._C import DistBackendError, DistError, DistStoreError

from .distributed_c10d import *  # noqa: F401,F403
from .distributed_c10d import __all__ as _c10d_all

__all__ = ["DistBackendError", "DistError", "DistStoreError"] + _c10d_all
