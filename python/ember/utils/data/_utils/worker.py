"""The DataLoader worker process: its loop, what it tells the main process,
and get_worker_info() for datasets that divide their work among workers."""

import os
import pickle
import queue
import random
import sys
import traceback
from dataclasses import dataclass

from .... import _C
from .fetch import create_fetcher
from .shared_batch import pack

# How often a waiting worker checks that the main process is still there.
_PARENT_CHECK_SECONDS = 1.0


class WorkerInfo:
    """A worker's ``id``, ``num_workers``, ``seed`` and its copy of the
    ``dataset``; read-only."""

    _fields = ("id", "num_workers", "seed", "dataset")

    def __init__(self, **fields):
        for name in self._fields:
            object.__setattr__(self, name, fields[name])

    def __setattr__(self, name, value):
        raise RuntimeError(f"Cannot assign attributes to {type(self).__name__} objects")

    def __repr__(self):
        return f"WorkerInfo({', '.join(f'{name}={getattr(self, name)!r}' for name in self._fields)})"


_worker_info = None


def get_worker_info():
    """This worker's WorkerInfo in a DataLoader worker process; None in the
    main process."""
    return _worker_info


@dataclass(frozen=True)
class IterableDatasetStopIteration:
    """A worker's iterable dataset is spent for this pass."""

    worker_id: int


@dataclass(frozen=True)
class ResumeIteration:
    """A persistent worker starts a new pass (it answers with the same object)."""


class ExceptionWrapper:
    """An exception raised in a worker, carried to the main process and raised
    there again with the worker's traceback in its message."""

    def __init__(self, where):
        error_type, error, trace = sys.exc_info()
        self.message = "".join(traceback.format_exception(error_type, error, trace))
        self.where = where
        try:
            pickle.dumps(error_type)
            self.error_type = error_type
        except Exception:  # a class the main process cannot import by name
            self.error_type = RuntimeError
            self.message = f"{error_type.__qualname__}: " + self.message

    def reraise(self):
        message = f"Caught {self.error_type.__name__} {self.where}.\nOriginal {self.message}"
        if self.error_type is KeyError:
            message = _KeyErrorMessage(message)
        try:
            error = self.error_type(message)
        except Exception:  # an exception type whose constructor wants more than a message
            error = RuntimeError(message)
        try:
            raise error
        finally:
            del error  # a local naming the exception would tie its traceback to this frame in a cycle


class _KeyErrorMessage(str):
    """KeyError prints its argument's repr; this keeps the traceback readable."""

    def __repr__(self):
        return self


def _seed_worker(base_seed, worker_id):
    """Seeds Python's, Ember's and NumPy's global streams for this worker, as
    PyTorch does: ``base_seed + worker_id``."""
    seed = (base_seed + worker_id) % 2**64
    random.seed(seed)
    _C.manual_seed(seed)
    try:
        import numpy
    except ImportError:
        return seed
    state = numpy.random.SeedSequence([worker_id, base_seed % 2**32, base_seed >> 32 & 0xFFFFFFFF])
    numpy.random.seed(state.generate_state(4))
    return seed


def worker_loop(is_iterable, dataset, index_queue, data_connection, done_event, auto_collation, collate_fn,
                drop_last, base_seed, init_fn, worker_id, num_workers):
    """Runs in the worker process: reads (task number, dataset index) pairs
    from ``index_queue`` and answers each on ``data_connection`` (the
    sending end of a pipe: a send is complete when it returns) with the
    packed batch, an ExceptionWrapper, or the end of an iterable dataset;
    None ends the loop."""
    global _worker_info
    # The process that started this one: the main process, or the fork
    # server that started it on the main process's behalf (and exits with it).
    parent_pid = os.getppid()
    try:
        _C.set_num_threads(1)  # the workers share the machine with the main process and each other
        seed = _seed_worker(base_seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        where = f"in DataLoader worker process {worker_id}"
        setup_error = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = create_fetcher(is_iterable, dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            setup_error = ExceptionWrapper(where)
        iteration_ended = False
        while os.getppid() == parent_pid:
            try:
                task = index_queue.get(timeout=_PARENT_CHECK_SECONDS)
            except queue.Empty:
                continue
            if isinstance(task, ResumeIteration):
                data_connection.send((task, pack(None)))
                iteration_ended = False
                if setup_error is None:
                    fetcher = create_fetcher(is_iterable, dataset, auto_collation, collate_fn, drop_last)
                continue
            if task is None:
                break
            if done_event.is_set() or iteration_ended:
                continue
            task_index, index = task
            if setup_error is not None:
                data = setup_error
            else:
                try:
                    data = fetcher.fetch(index)
                except StopIteration:
                    if not is_iterable:
                        data = ExceptionWrapper(where)
                    else:
                        data, iteration_ended = IterableDatasetStopIteration(worker_id), True
                except Exception:
                    data = ExceptionWrapper(where)
            try:
                packed = pack(data)
            except Exception:
                packed = pack(ExceptionWrapper(f"{where} while sending its batch to the main process"))
            data_connection.send((task_index, packed))
            del data, packed, task, index  # free the batch before waiting for the next task
    except KeyboardInterrupt:
        pass  # the main process handles Ctrl-C and shuts the workers down
    except BrokenPipeError:
        pass  # the main process is gone
