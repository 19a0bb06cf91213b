"""ember.nn.parallel: DataParallel and DistributedDataParallel, with
PyTorch's names."""

from .data_parallel import DataParallel
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel"]
