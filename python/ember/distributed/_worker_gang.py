"""The workers of one `ember-run` attempt, started and stopped together.

Each worker runs in a session and process group of its own, so that a
signal to the group reaches whatever the worker started, and asks the kernel
to kill it when the launcher dies (PR_SET_PDEATHSIG), so that a launcher
killed with SIGKILL leaves no orphans. The first worker to fail stops the
gang: SIGTERM to every group, SIGKILL after the kill timeout.
"""

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time

_POLL_INTERVAL = 0.05
# How many lines of a worker's traceback the launcher repeats.
_TRACEBACK_LINES = 12


# Run by the worker's interpreter before it execs the worker itself: the
# launcher holds a store server thread, and code run between fork and exec
# in a threaded process (subprocess's preexec_fn) may deadlock, so the death
# signal is asked for after exec, and the launcher's pid checked in case it
# died first. The death signal survives the exec.
_BOOTSTRAP = """
import ctypes, os, signal, sys
ctypes.CDLL(None).prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
if os.getppid() != int(sys.argv[1]):
    os.kill(os.getpid(), signal.SIGKILL)
os.execv(sys.argv[2], sys.argv[2:])
"""


@dataclasses.dataclass
class Worker:
    local_rank: int
    rank: int
    error_file: str
    process: subprocess.Popen


@dataclasses.dataclass
class Failure:
    worker: Worker
    returncode: int

    def describe(self):
        """Which worker failed and how, with the first lines of its error file."""
        if self.returncode < 0:
            try:
                how = f"was killed by signal {signal.Signals(-self.returncode).name}"
            except ValueError:
                how = f"was killed by signal {-self.returncode}"
        else:
            how = f"exited with code {self.returncode}"
        lines = [f"ember-run: worker local_rank {self.worker.local_rank} (rank {self.worker.rank}, pid "
                 f"{self.worker.process.pid}) {how}"]
        record = read_error_file(self.worker.error_file)
        if record is not None:
            lines.append(f"  {record.get('type', 'Exception')}: {record.get('message', '')}")
            traceback_lines = record.get("traceback", "").rstrip("\n").splitlines()
            lines.extend("  " + line for line in traceback_lines[:_TRACEBACK_LINES])
            if len(traceback_lines) > _TRACEBACK_LINES:
                lines.append(f"  ... ({len(traceback_lines) - _TRACEBACK_LINES} more lines in "
                             f"{self.worker.error_file})")
        return "\n".join(lines)


def read_error_file(path):
    try:
        with open(path, encoding="utf-8") as record:
            return json.load(record)
    except (OSError, ValueError):
        return None


class WorkerGang:
    """Starts `command` once per local rank with `environments[i]`."""

    def __init__(self, command, environments, error_files, ranks):
        self.workers = []
        bootstrap = [sys.executable, "-c", _BOOTSTRAP, str(os.getpid())]
        try:
            for local_rank, (environment, error_file, rank) in enumerate(zip(environments, error_files, ranks)):
                process = subprocess.Popen(bootstrap + command, env=environment, start_new_session=True)
                self.workers.append(Worker(local_rank, rank, error_file, process))
        except BaseException:
            self.stop(signal.SIGKILL, 0)
            raise

    def poll(self):
        """None while every worker runs or has succeeded and some still run;
        a Failure for the first that exited non-zero; "done" when all succeeded."""
        running = False
        for worker in self.workers:
            code = worker.process.poll()
            if code is None:
                running = True
            elif code != 0:
                return Failure(worker, code)
        return None if running else "done"

    def signal_all(self, signum):
        for worker in self.workers:
            try:
                os.killpg(worker.process.pid, signum)
            except (ProcessLookupError, PermissionError):
                pass

    def stop(self, signum, kill_timeout):
        """Sends `signum` to every worker's group, then SIGKILL to the groups
        of those still running after `kill_timeout` seconds, and reaps them."""
        self.signal_all(signum)
        deadline = time.monotonic() + kill_timeout
        while time.monotonic() < deadline and any(w.process.poll() is None for w in self.workers):
            time.sleep(_POLL_INTERVAL)
        # SIGKILL every group, exited workers' too: what they started dies with them.
        self.signal_all(signal.SIGKILL)
        for worker in self.workers:
            worker.process.wait()


def wait_for_gang(gang, should_stop):
    """Polls until the gang finishes, a worker fails or `should_stop()`
    returns a reason; returns "done", a Failure, or that reason."""
    while True:
        outcome = gang.poll()
        if outcome is not None:
            return outcome
        reason = should_stop()
        if reason is not None:
            return reason
        time.sleep(_POLL_INTERVAL)


def python_command(script, module, arguments):
    """The command line of a worker: the script or `-m module`, unbuffered."""
    if module:
        return [sys.executable, "-u", "-m", script, *arguments]
    return [sys.executable, "-u", script, *arguments]
