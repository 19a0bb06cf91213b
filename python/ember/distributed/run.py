"""`ember-run` (also `python -m ember.distributed.run`): torchrun's launcher
for ember.distributed.

    ember-run --nproc-per-node 4 train.py --epochs 3
    ember-run --nnodes 2 --node-rank 0 --master-addr 10.0.0.1 --master-port 29500 -m trainer

Node rank 0's launcher hosts the TCPStore (on a free port unless
--master-port names one), so the store outlives every worker; the other
nodes' launchers connect to it. Each worker gets torchrun's variables (RANK,
WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR,
MASTER_PORT, OMP_NUM_THREADS=1 unless set) and EMBER_STORE_HOSTED=1,
EMBER_RESTART_COUNT and EMBER_ERROR_FILE. The first worker to fail stops the
gang; --max-restarts N starts it again up to N times.
"""

import argparse
import datetime
import os
import shutil
import signal
import sys
import tempfile

from ember._C import DistError
from ember._C._distributed import TCPStore

from ._worker_gang import Failure, WorkerGang, python_command, wait_for_gang

# Keys of the launchers' own rendezvous, outside the workers' "/worker/" prefix.
_LAUNCHER_PREFIX = "/ember-run/"


def _nproc_per_node(value):
    if value in ("cpu", "auto"):
        return os.cpu_count() or 1
    try:
        count = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an int, 'cpu' or 'auto', got {value!r}") from None
    if count < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {count}")
    return count


def _non_negative(value):
    number = int(value)
    if number < 0:
        raise argparse.ArgumentTypeError(f"must be non-negative, got {number}")
    return number


def _positive(value):
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {number}")
    return number


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="ember-run", description="Starts a gang of ember.distributed workers.")

    def flag(name, **kwargs):
        # torchrun spells every flag both with dashes and with underscores.
        spellings = [f"--{name}"] + ([f"--{name.replace('-', '_')}"] if "-" in name else [])
        parser.add_argument(*spellings, **kwargs)

    flag("nproc-per-node", type=_nproc_per_node, default=1, help="workers on this node: an int, 'cpu' or 'auto'")
    flag("nnodes", type=_positive, default=1, help="the number of nodes")
    flag("node-rank", type=_non_negative, default=0, help="this node's rank in [0, nnodes)")
    flag("master-addr", default="127.0.0.1", help="node rank 0's address")
    flag("master-port", type=int, default=None, help="the store's port (node rank 0: default a free one)")
    flag("standalone", action="store_true", help="one node, a store on a free local port")
    flag("max-restarts", type=_non_negative, default=0, help="how many times to restart a failed gang")
    flag("rdzv-timeout", type=float, default=900.0, help="seconds to wait for the other nodes and the store")
    flag("kill-timeout", type=float, default=5.0, help="seconds between SIGTERM and SIGKILL when stopping workers")
    parser.add_argument("-m", "--module", action="store_true", help="run the script as a module, as python -m")
    parser.add_argument("script", help="the worker script (or module, with -m)")
    parser.add_argument("script_args", nargs=argparse.REMAINDER, help="the worker's arguments")
    args = parser.parse_args(argv)
    if args.standalone:
        if args.nnodes != 1 or args.node_rank != 0:
            parser.error("--standalone runs one node: it takes no --nnodes or --node-rank")
        args.master_addr = "127.0.0.1"
    if args.node_rank >= args.nnodes:
        parser.error(f"--node-rank {args.node_rank} is out of range for --nnodes {args.nnodes}")
    if args.node_rank > 0 and args.master_port is None:
        parser.error("--master-port is needed on node ranks other than 0, to reach node rank 0's store")
    if args.master_port is not None and not 0 <= args.master_port <= 65535:
        parser.error(f"--master-port must be in [0, 65535], got {args.master_port}")
    return args


def _connect_store(args):
    timeout = datetime.timedelta(seconds=args.rdzv_timeout)
    if args.node_rank == 0:
        return TCPStore(args.master_addr, args.master_port or 0, args.nnodes, is_master=True, timeout=timeout,
                        wait_for_workers=False)
    return TCPStore(args.master_addr, args.master_port, args.nnodes, is_master=False, timeout=timeout,
                    wait_for_workers=False)


def _worker_environments(args, port, attempt, error_folder):
    world_size = args.nnodes * args.nproc_per_node
    environments, error_files, ranks = [], [], []
    for local_rank in range(args.nproc_per_node):
        rank = args.node_rank * args.nproc_per_node + local_rank
        error_file = os.path.join(error_folder, f"attempt_{attempt}_rank_{rank}.json")
        environment = dict(os.environ)
        environment.setdefault("OMP_NUM_THREADS", "1")
        environment.update({
            "RANK": str(rank),
            "WORLD_SIZE": str(world_size),
            "LOCAL_RANK": str(local_rank),
            "LOCAL_WORLD_SIZE": str(args.nproc_per_node),
            "GROUP_RANK": str(args.node_rank),
            "MASTER_ADDR": args.master_addr,
            "MASTER_PORT": str(port),
            "EMBER_STORE_HOSTED": "1",
            "EMBER_RESTART_COUNT": str(attempt),
            "EMBER_MAX_RESTARTS": str(args.max_restarts),
            "EMBER_ERROR_FILE": error_file,
        })
        environments.append(environment)
        error_files.append(error_file)
        ranks.append(rank)
    return environments, error_files, ranks


class _Signals:
    """SIGINT and SIGTERM to the launcher, noted for the monitor loop to forward."""

    def __init__(self):
        self.received = None
        self._previous = {}
        for signum in (signal.SIGINT, signal.SIGTERM):
            self._previous[signum] = signal.signal(signum, self._note)

    def _note(self, signum, frame):
        self.received = signum

    def restore(self):
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)


def _run_attempt(args, store, port, attempt, error_folder, signals):
    """Runs one gang; returns "done", a Failure, "signal" or "peer"."""
    joined_key = f"{_LAUNCHER_PREFIX}attempt_{attempt}/joined"
    failed_key = f"{_LAUNCHER_PREFIX}attempt_{attempt}/failed"
    if args.nnodes > 1:
        # Every node starts an attempt's workers only once all nodes are there.
        if store.add(joined_key, 1) == args.nnodes:
            store.set(f"{joined_key}/all", "1")
        store.wait([f"{joined_key}/all"])
    gang = WorkerGang(python_command(args.script, args.module, args.script_args),
                      *_worker_environments(args, port, attempt, error_folder))

    def should_stop():
        if signals.received is not None:
            return "signal"
        if args.nnodes > 1 and store.check([failed_key]):
            return "peer"
        return None

    outcome = wait_for_gang(gang, should_stop)
    if outcome == "done":
        return outcome
    if isinstance(outcome, Failure) and args.nnodes > 1:
        store.set(failed_key, str(args.node_rank))
    stop_signal = signals.received if outcome == "signal" else signal.SIGTERM
    gang.stop(stop_signal, args.kill_timeout)
    return outcome


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        store = _connect_store(args)
    except DistError as error:
        role = "host" if args.node_rank == 0 else "reach"
        print(f"ember-run: cannot {role} the store at {args.master_addr}:{args.master_port or 0}: {error}",
              file=sys.stderr)
        return 1
    port = store.port
    error_folder = tempfile.mkdtemp(prefix="ember-run-")
    signals = _Signals()
    try:
        for attempt in range(args.max_restarts + 1):
            outcome = _run_attempt(args, store, port, attempt, error_folder, signals)
            if outcome == "done":
                return 0
            if outcome == "signal":
                print(f"ember-run: received {signal.Signals(signals.received).name}; stopped the workers",
                      file=sys.stderr)
                return 128 + signals.received
            if isinstance(outcome, Failure):
                print(outcome.describe(), file=sys.stderr)
            else:
                print(f"ember-run: a worker on another node failed in attempt {attempt}", file=sys.stderr)
            if attempt < args.max_restarts:
                print(f"ember-run: restarting the workers ({attempt + 1} of {args.max_restarts} restarts)",
                      file=sys.stderr)
        return 1
    except DistError as error:
        print(f"ember-run: the store at {args.master_addr}:{port} failed: {error}", file=sys.stderr)
        return 1
    finally:
        signals.restore()
        shutil.rmtree(error_folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
