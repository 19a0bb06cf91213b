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

get_context = multiprocessing.get_context
set_start_method = multiprocessing.set_start_method
get_start_method = multiprocessing.get_start_method
get_all_start_methods = multiprocessing.get_all_start_methods

reductions.init_reductions()
