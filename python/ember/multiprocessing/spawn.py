"""spawn() and start_processes(): one function in several processes, the
first failure raised in the parent with the child's traceback, the other
processes then stopped (torch.multiprocessing.spawn's contract)."""

import multiprocessing
import multiprocessing.connection
import signal
import sys
import time
import traceback


class ProcessException(Exception):
    """A child process failed; `error_index` is its index, `pid` its process id."""

    def __init__(self, msg, error_index, pid):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.pid = pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """A child's function raised; the message holds the child's traceback."""


class ProcessExitedException(ProcessException):
    """A child exited with a nonzero code, or by a signal (`signal_name`)."""

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name)


def _run(fn, index, args, error_queue):
    try:
        fn(index, *args)
    except KeyboardInterrupt:
        pass  # the parent stops the others and reports its own interrupt
    except Exception:
        error_queue.put(traceback.format_exc())
        sys.exit(1)


class ProcessContext:
    """The processes start_processes() started; join() waits for them."""

    def __init__(self, processes, error_queues):
        self.processes = processes
        self.error_queues = error_queues
        self.sentinels = {process.sentinel: index for index, process in enumerate(processes)}

    def pids(self):
        return [process.pid for process in self.processes]

    def join(self, timeout=None):
        """True once every process has ended well; False if `timeout` seconds
        pass first. The first process that fails stops the others and is
        raised as ProcessRaisedException or ProcessExitedException."""
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(self.sentinels.keys(), timeout=timeout)
        failed = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            process = self.processes[index]
            process.join()
            if process.exitcode != 0 and failed is None:
                failed = index
        if failed is None:
            return not self.sentinels
        for process in self.processes:
            if process.is_alive():
                process.terminate()
        deadline = time.monotonic() + 30
        for process in self.processes:
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join()
        process = self.processes[failed]
        if not self.error_queues[failed].empty():
            child_traceback = self.error_queues[failed].get()
            raise ProcessRaisedException(f"\n\n-- Process {failed} terminated with the following error:\n"
                                         f"{child_traceback}", failed, process.pid)
        if process.exitcode < 0:
            name = signal.Signals(-process.exitcode).name
            raise ProcessExitedException(f"process {failed} terminated with signal {name}", failed, process.pid,
                                         process.exitcode, name)
        raise ProcessExitedException(f"process {failed} terminated with exit code {process.exitcode}", failed,
                                     process.pid, process.exitcode)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Runs fn(i, *args) for i in range(nprocs), each in a process of its
    own started with `start_method`; waits for all when `join` (raising the
    first failure), else returns their ProcessContext."""
    if nprocs < 1:
        raise ValueError(f"start_processes(): nprocs must be at least 1, but got {nprocs}")
    context = multiprocessing.get_context(start_method)
    processes, error_queues = [], []
    for index in range(nprocs):
        error_queue = context.SimpleQueue()
        process = context.Process(target=_run, args=(fn, index, args, error_queue), daemon=daemon)
        process.start()
        processes.append(process)
        error_queues.append(error_queue)
    processes_context = ProcessContext(processes, error_queues)
    if not join:
        return processes_context
    while not processes_context.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """start_processes() with the "spawn" start method, which is what
    torch.multiprocessing.spawn takes (other methods: start_processes)."""
    if start_method != "spawn":
        raise ValueError(f"spawn(): this method only supports start_method='spawn', but got {start_method!r}; "
                         "use start_processes() for others")
    return start_processes(fn, args, nprocs, join, daemon, start_method)
