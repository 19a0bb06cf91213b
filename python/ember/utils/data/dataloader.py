"""DataLoader: batches from a dataset, read in the main process or by worker
processes, with PyTorch's arguments and rules."""

import atexit
import itertools
import math
import multiprocessing
import multiprocessing.connection
import signal
import time
import warnings
import weakref
from multiprocessing import resource_tracker

from ..._generator import host_rng
from ._utils.collate import default_collate, default_convert
from ._utils.fetch import create_fetcher
from ._utils.shared_batch import discard, unpack
from ._utils.worker import ExceptionWrapper, IterableDatasetStopIteration, ResumeIteration, worker_loop
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

# How long shutdown waits for a worker to finish its current batch and exit
# before it terminates the worker.
_WORKER_EXIT_SECONDS = 5.0


class _InfiniteConstantSampler(Sampler):
    """The sampler of an IterableDataset: the dataset picks its samples, so
    the indices are placeholders, as many as the dataset yields."""

    def __iter__(self):
        return itertools.repeat(None)


class DataLoader:
    """Iterates over ``dataset`` in batches of ``batch_size`` samples, put
    together by ``collate_fn`` (default_collate), in the order of ``sampler``
    (or ``shuffle``d with ``generator``), read by ``num_workers`` worker
    processes (0: the main process). PyTorch's arguments, defaults and
    checks; ``pin_memory`` has no effect (Ember has no pinned host memory)."""

    _frozen_after_init = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing. Let num_workers > 0 "
                             "to enable multiprocessing, otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if pin_memory:
            warnings.warn("DataLoader: 'pin_memory' is set, but Ember has no pinned host memory; batches stay in "
                          "pageable memory")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
        self._is_iterable = isinstance(dataset, IterableDataset)
        if self._is_iterable:
            if shuffle not in (False, None):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
                                 f"got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                                 "drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if sampler is None:
            if self._is_iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._iterator = None
        self._initialized = True

    def __setattr__(self, name, value):
        if getattr(self, "_initialized", False) and name in self._frozen_after_init:
            raise ValueError(f"{name} attribute should not be set after {type(self).__name__} is initialized")
        super().__setattr__(name, value)

    @property
    def multiprocessing_context(self):
        return self._multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, context):
        if context is not None:
            if self.num_workers == 0:
                raise ValueError(f"multiprocessing_context can only be used with multi-process loading "
                                 f"(num_workers > 0), but got num_workers={self.num_workers}")
            if isinstance(context, str):
                methods = multiprocessing.get_all_start_methods()
                if context not in methods:
                    raise ValueError(f"multiprocessing_context option should specify a valid start method in "
                                     f"{methods!r}, but got multiprocessing_context={context!r}")
                context = multiprocessing.get_context(context)
            elif not isinstance(context, multiprocessing.context.BaseContext):
                raise TypeError(f"multiprocessing_context option should be a valid context object or a string "
                                f"specifying the start method, but got multiprocessing_context={context}")
        self._multiprocessing_context = context

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self):
        if self.num_workers == 0:
            return _SingleProcessIterator(self)
        if not self.persistent_workers:
            return _MultiProcessingIterator(self)
        if self._iterator is None:
            self._iterator = _MultiProcessingIterator(self)
        else:
            self._iterator.reset()
        return self._iterator

    def __len__(self):
        if not self._is_iterable:
            return len(self._index_sampler)
        length = len(self.dataset)
        if self.batch_size is not None:
            length = length // self.batch_size if self.drop_last else math.ceil(length / self.batch_size)
        return length


class _BaseIterator:
    def __init__(self, loader):
        self._is_iterable = loader._is_iterable
        self._index_sampler = loader._index_sampler
        self._auto_collation = loader._auto_collation
        self._collate_fn = loader.collate_fn
        self._drop_last = loader.drop_last
        self._dataset = loader.dataset
        self._sampler_iterator = iter(self._index_sampler)

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._index_sampler)

    def _next_index(self):
        return next(self._sampler_iterator)


class _SingleProcessIterator(_BaseIterator):
    def __init__(self, loader):
        super().__init__(loader)
        self._fetcher = create_fetcher(self._is_iterable, self._dataset, self._auto_collation, self._collate_fn,
                                       self._drop_last)

    def __next__(self):
        return self._fetcher.fetch(self._next_index())


# Iterators whose workers still run, shut down before the interpreter's own
# exit handlers stop multiprocessing.
_live_iterators = weakref.WeakSet()


@atexit.register
def _shut_down_live_iterators():
    for iterator in list(_live_iterators):
        iterator.shutdown()


class _MultiProcessingIterator(_BaseIterator):
    """Sends lists of indices to the workers in turn (``prefetch_factor``
    tasks per worker in flight) and hands their batches back in the
    sampler's order (or as they come, when not ``in_order``). Each worker
    answers through a pipe of its own; waiting on those pipes and on the
    workers' process sentinels together shows a worker's death at once."""

    def __init__(self, loader):
        self._workers = []  # until there are workers, shutdown() has nothing to do
        super().__init__(loader)
        self._num_workers = loader.num_workers
        self._prefetch_factor = loader.prefetch_factor
        self._persistent_workers = loader.persistent_workers
        self._in_order = loader.in_order
        self._timeout = loader.timeout
        self._shut_down = False
        context = loader.multiprocessing_context or multiprocessing.get_context()
        # Started before the workers, so that a forked worker registers its
        # shared blocks with the same tracker the main process unregisters
        # them from (Note [Batches through shared memory]).
        resource_tracker.ensure_running()
        self._done_event = context.Event()
        self._index_queues, self._connections = [], []
        base_seed = int(host_rng(loader.generator, "DataLoader").integers(0, 2**63))
        _live_iterators.add(self)
        for worker_id in range(self._num_workers):
            index_queue = context.Queue()
            index_queue.cancel_join_thread()  # tasks left unread must not block the main process's exit
            reader, writer = context.Pipe(duplex=False)
            worker = context.Process(
                target=worker_loop, daemon=True,
                args=(self._is_iterable, self._dataset, index_queue, writer, self._done_event, self._auto_collation,
                      self._collate_fn, self._drop_last, base_seed, loader.worker_init_fn, worker_id,
                      self._num_workers))
            try:
                worker.start()
            except Exception as error:
                reader.close()
                self.shutdown()
                # A pickling error (TypeError, AttributeError, PicklingError) takes one message.
                raise type(error)(f"DataLoader: worker {worker_id} could not start: {error} (the "
                                  f"'{context.get_start_method()}' start method pickles the dataset, collate_fn and "
                                  f"worker_init_fn for each worker)") from error
            finally:
                writer.close()  # the worker's copy is the only one left: the pipe ends when the worker does
            self._index_queues.append(index_queue)
            self._connections.append(reader)
            self._workers.append(worker)
        self._start_pass(first=True)

    def reset(self):
        """Starts a new pass of persistent workers."""
        self._sampler_iterator = iter(self._index_sampler)
        self._start_pass(first=False)

    def _start_pass(self, first):
        self._send_index = 0  # the next task's number
        self._received_index = 0  # the task whose batch comes next, in order
        self._tasks = {}  # task number -> (worker id,) while it runs, (worker id, data) once it came early
        self._worker_active = [True] * self._num_workers
        self._next_worker = itertools.cycle(range(self._num_workers))
        if not first:
            # Each worker answers after the tasks it already had, whose
            # batches are dropped here.
            for index_queue in self._index_queues:
                index_queue.put(ResumeIteration())
            remaining = self._num_workers
            while remaining:
                task_index, _ = self._get_data()
                if isinstance(task_index, ResumeIteration):
                    remaining -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_put_index(self):
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):
            worker_id = next(self._next_worker)
            if self._worker_active[worker_id]:
                break
        else:
            return
        self._index_queues[worker_id].put((self._send_index, index))
        self._tasks[self._send_index] = (worker_id,)
        self._send_index += 1

    def __next__(self):
        while True:
            while self._received_index < self._send_index:
                task = self._tasks.get(self._received_index)
                if task is not None and (len(task) == 2 or self._worker_active[task[0]]):
                    break
                self._tasks.pop(self._received_index, None)  # its worker's iterable dataset ended
                self._received_index += 1
            else:
                if not self._persistent_workers:
                    self.shutdown()
                raise StopIteration
            if len(self._tasks[self._received_index]) == 2:
                return self._process(self._tasks.pop(self._received_index)[1])
            task_index, data = self._get_data()
            if isinstance(data, IterableDatasetStopIteration):
                self._deactivate(data.worker_id)
                self._try_put_index()
            elif task_index == self._received_index or not self._in_order:
                del self._tasks[task_index]
                return self._process(data)
            else:
                self._tasks[task_index] += (data,)

    def _process(self, data):
        if self._in_order:
            self._received_index += 1
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        return data

    def _deactivate(self, worker_id):
        """A worker whose iterable dataset is spent takes no more tasks this
        pass; a worker that does not persist exits."""
        self._worker_active[worker_id] = False
        if not self._persistent_workers:
            self._index_queues[worker_id].put(None)

    def _get_data(self):
        """The next (task number, data) an active worker sent."""
        deadline = time.monotonic() + self._timeout if self._timeout > 0 else None
        active = [worker_id for worker_id in range(self._num_workers) if self._worker_active[worker_id]]
        while True:
            wait = None if deadline is None else max(deadline - time.monotonic(), 0)
            ready = multiprocessing.connection.wait(
                [self._connections[i] for i in active] + [self._workers[i].sentinel for i in active], wait)
            for worker_id in active:
                # A worker's last batch is still in its pipe after it exits: read before judging the exit.
                if self._connections[worker_id] in ready:
                    try:
                        task_index, packed = self._connections[worker_id].recv()
                    except EOFError:
                        self._report_failed(worker_id)
                    return task_index, unpack(packed)
            for worker_id in active:
                if self._workers[worker_id].sentinel in ready:
                    self._report_failed(worker_id)
            if not ready:
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")

    def _report_failed(self, worker_id):
        worker = self._workers[worker_id]
        worker.join()
        self.shutdown()
        raise RuntimeError(f"DataLoader worker {worker_id} (pid {worker.pid}) exited unexpectedly: it "
                           f"{_exit_reason(worker.exitcode)}")

    def shutdown(self):
        """Stops the workers: each finishes its current batch and exits;
        what they send meanwhile is read and freed. A worker still running
        after _WORKER_EXIT_SECONDS is terminated."""
        if not self._workers or self._shut_down:
            return
        self._shut_down = True
        _live_iterators.discard(self)
        self._done_event.set()
        for index_queue in self._index_queues:
            index_queue.put(None)
        open_connections = list(self._connections)
        deadline = time.monotonic() + _WORKER_EXIT_SECONDS
        while open_connections and time.monotonic() < deadline:
            for connection in multiprocessing.connection.wait(open_connections, deadline - time.monotonic()):
                try:
                    discard(connection.recv()[1])
                except EOFError:  # the worker has exited and its pipe is empty
                    open_connections.remove(connection)
        for worker in self._workers:
            if worker.is_alive():
                worker.terminate()
            worker.join()
        for connection in self._connections:
            connection.close()
        for index_queue in self._index_queues:
            index_queue.close()

    def __del__(self):
        self.shutdown()


def _exit_reason(exitcode):
    if exitcode is not None and exitcode < 0:
        return f"was killed by signal {signal.Signals(-exitcode).name}"
    return f"exited with code {exitcode}"
