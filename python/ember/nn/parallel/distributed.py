"""DistributedDataParallel: its name, for the programs that import it next
to their single-process path; constructing one needs a process group."""

from ..modules.module import Module


class DistributedDataParallel(Module):
    """Needs a default process group (``init_process_group``), which Ember
    does not have yet: constructing one is PyTorch's error without one."""

    def __init__(self, module, *args, **kwargs):
        raise ValueError("Default process group has not been initialized, please make sure to call "
                         "init_process_group (Ember has no ember.distributed yet, so DistributedDataParallel "
                         "cannot run)")
