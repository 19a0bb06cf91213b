#!/usr/bin/env python3
"""Ember and PyTorch 2.13 on an idle machine and beside a busy process.

    PYTHONPATH=python:build/python python3 bench/loaded_bench.py [--rounds 3] [--quick]

A kernel that splits its work over threads can stall when another process
holds one of the cores its threads need (Note [Work-claiming parallel loop]).
This script times two training steps at each library's default thread count,
first with the machine idle, then with one process spinning on one core
(``python -c 'while True: pass'``), and reports each library's slowdown
(loaded / idle time; 1.0 means unaffected):

- samples/train_digits.py's CNN, batch 64, Adam (bench/python_bench.py's);
- an LSTM-like loop: 20 time steps of a hand-written cell (batch 16, input
  32, hidden 64), forward and backward, SGD: many small ops per step.

Each library runs in its own worker process; a round runs each idle, then
each loaded, and a figure is the median over --rounds rounds of the
per-round medians of the mean step time. --baseline PYTHONPATH adds a third
column pair for another Ember build (an earlier commit's, say) found there. Before the idle runs the script waits (up to --wait
seconds) for the one-minute load average to fall below --max-idle-load, and
it prints the load it measured at, so other jobs on a shared machine show.
"""

import argparse
import importlib
import json
import os
import platform
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import python_bench  # noqa: E402  (the digits CNN step and the timing helper)

LIBRARIES = ("ember", "torch")
TITLES = {"ember": "Ember", "torch": "PyTorch", "baseline": "Ember baseline"}
WORKLOADS = {
    "digits_cnn_step": ("digits CNN step, batch 64, Adam", 50),
    "lstm_step": ("LSTM-like loop step, 20 time steps, SGD", 10),
}
BUSY_LOOP = "while True: pass"


def lstm_step(lib):
    """A recurrent cell written out in small ops, as a ported script would."""
    batch, inputs, hidden, steps = 16, 32, 64, 20
    nn = lib.nn

    class Cell(nn.Module):
        def __init__(self):
            super().__init__()
            self.input_gates = nn.Linear(inputs, 4 * hidden)
            self.hidden_gates = nn.Linear(hidden, 4 * hidden, bias=False)
            self.classify = nn.Linear(hidden, 10)

        def forward(self, sequence):
            h = lib.zeros(batch, hidden)
            c = lib.zeros(batch, hidden)
            for x in sequence:
                i, f, g, o = (self.input_gates(x) + self.hidden_gates(h)).chunk(4, 1)
                c = lib.sigmoid(f) * c + lib.sigmoid(i) * lib.tanh(g)
                h = lib.sigmoid(o) * lib.tanh(c)
            return self.classify(h)

    model = Cell()
    sequence, targets = lib.randn(steps, batch, inputs), lib.randint(0, 10, (batch,))
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
    return python_bench.training_step(lib, model, optimizer, sequence, targets)


STEPS = {"digits_cnn_step": python_bench.digits_cnn_step, "lstm_step": lstm_step}


def run_worker(name, repeats, scale):
    lib = importlib.import_module(name)
    lib.manual_seed(0)
    synchronize = (lambda: lib.synchronize("cpu")) if name == "ember" else (lambda: None)
    seconds = {workload: python_bench.median_seconds(STEPS[workload](lib), max(1, inner // scale), repeats,
                                                     synchronize)
               for workload, (_, inner) in WORKLOADS.items()}
    # A baseline build may predate ember.get_num_threads.
    seconds["threads"] = lib.get_num_threads() if hasattr(lib, "get_num_threads") else "its default"
    print(json.dumps(seconds))


def load_average():
    return os.getloadavg()[0]


def wait_for_quiet(max_load, wait):
    deadline = time.monotonic() + wait
    while load_average() >= max_load and time.monotonic() < deadline:
        time.sleep(5)
    return load_average()


def measure(runner, repeats, scale):
    """runner: (column, module, PYTHONPATH or None for this process's)."""
    column, module, pythonpath = runner
    env = dict(os.environ, PYTHONPATH=pythonpath) if pythonpath else None
    worker = subprocess.run([sys.executable, __file__, "--worker", module, "--repeats", str(repeats),
                             "--scale", str(scale)], check=True, capture_output=True, text=True, env=env)
    return json.loads(worker.stdout)


def measure_condition(runners, repeats, scale, loaded):
    """Every library, in turn, with or without a busy process beside them."""
    busy = subprocess.Popen([sys.executable, "-c", BUSY_LOOP]) if loaded else None
    try:
        if busy:
            time.sleep(1.0)  # let the scheduler settle it on a core
        return {runner[0]: measure(runner, repeats, scale) for runner in runners}
    finally:
        if busy:
            busy.kill()
            busy.wait()


def median_of(rounds, name, workload):
    return statistics.median(r[name][workload] for r in rounds)


def cpu_model():
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def print_report(idle, loaded, loads):
    columns = list(idle[0])
    threads = ", ".join(f"{TITLES[c]} {idle[0][c]['threads']}" for c in columns)
    print(f"{time.strftime('%Y-%m-%d')}, {cpu_model()}, {os.cpu_count()} CPUs; threads: {threads}; "
          f"{len(idle)} rounds per condition")
    print(f"load average (1 min): {loads['idle_start']:.2f} at the start, {loads['end']:.2f} at the end "
          "(which counts the busy process of the loaded runs)\n")
    print("| workload | " + " | ".join(f"{TITLES[c]} {what}" for c in columns
                                       for what in ("idle", "loaded", "slowdown")) + " |")
    print("|---|" + "---:|" * (3 * len(columns)))
    for workload, (title, _) in WORKLOADS.items():
        cells = []
        for name in columns:
            quiet, busy = median_of(idle, name, workload), median_of(loaded, name, workload)
            cells += [f"{quiet * 1e3:.2f} ms", f"{busy * 1e3:.2f} ms", f"{busy / quiet:.2f}x"]
        print(f"| {title} | " + " | ".join(cells) + " |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    python_bench.add_run_arguments(parser, "rounds of idle then loaded runs")
    parser.add_argument("--max-idle-load", type=float, default=0.5,
                        help="wait for the one-minute load average to fall below this before the idle runs")
    parser.add_argument("--wait", type=float, default=600, help="seconds to wait for that at most")
    parser.add_argument("--baseline", metavar="PYTHONPATH", help="also time the Ember build found on this path")
    args = parser.parse_args()
    if args.worker:
        run_worker(args.worker, args.repeats, args.scale)
        return 0
    scale = 10 if args.quick else 1
    runners = [(name, name, None) for name in LIBRARIES]
    if args.baseline:
        runners.append(("baseline", "ember", args.baseline))
    loads = {"idle_start": wait_for_quiet(args.max_idle_load, args.wait)}
    if loads["idle_start"] >= args.max_idle_load:
        print(f"loaded_bench: load average still {loads['idle_start']:.2f} after {args.wait:.0f} s; "
              "the idle figures are not from an idle machine", file=sys.stderr)
    idle, loaded = [], []
    for number in range(1, args.rounds + 1):
        print(f"round {number}/{args.rounds}", file=sys.stderr, flush=True)
        idle.append(measure_condition(runners, args.repeats, scale, loaded=False))
        loaded.append(measure_condition(runners, args.repeats, scale, loaded=True))
    loads["end"] = load_average()
    print_report(idle, loaded, loads)
    return 0


if __name__ == "__main__":
    sys.exit(main())
