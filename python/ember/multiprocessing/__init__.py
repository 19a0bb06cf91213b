"""torch.multiprocessing: Python's multiprocessing, plus spawn() and
start_processes() that run a function in several processes and raise a
child's error, with its traceback, in the parent (as DDP programs use them:
`mp.spawn(train, args=(world_size,), nprocs=world_size)`).

Tensors passed to another process through multiprocessing (a spawned
process's arguments, a Queue) move into shared memory and the receiver maps
the same elements, so a child's in-place write reaches the parent, as with
PyTorch (reductions.py)."""

import multiprocessing
from multiprocessing import *  # noqa: F401,F403  (torch.multiprocessing re-exports it)

from . import reductions
from .spawn import (ProcessContext, ProcessExitedException, ProcessException, ProcessRaisedException,  # noqa: F401
                    spawn, start_processes)

# PyTorch's two ways of passing shared memory. Ember always passes the
# mapping's descriptor (Note [Shared tensors]); "file_system" is accepted so
# that programs which pick it run, and changes nothing.
_SHARING_STRATEGIES = {"file_descriptor", "file_system"}
_sharing_strategy = "file_descriptor"


def get_all_sharing_strategies():
    return set(_SHARING_STRATEGIES)


def get_sharing_strategy():
    return _sharing_strategy


def set_sharing_strategy(new_strategy):
    global _sharing_strategy
    if new_strategy not in _SHARING_STRATEGIES:
        raise AssertionError(f"invalid sharing strategy '{new_strategy}', expected one of {_SHARING_STRATEGIES}")
    _sharing_strategy = new_strategy


get_context = multiprocessing.get_context
set_start_method = multiprocessing.set_start_method
get_start_method = multiprocessing.get_start_method
get_all_start_methods = multiprocessing.get_all_start_methods

reductions.init_reductions()
