#!/usr/bin/env python3
"""Ember's DataLoader side by side with PyTorch 2.13's, in one run.

    PYTHONPATH=python:build/python python3 bench/dataloader_bench.py [--rounds 3] [--epochs 5] [--quick]

Both libraries read the same in-memory data set (scikit-learn's 8x8
digits, 1,797 images, as a TensorDataset; random images of that shape where
scikit-learn is missing) in shuffled batches of 64 through a DataLoader
with 2 persistent worker processes, and the script reports samples per
second for:

- the loader alone (each epoch's batches read and dropped);
- the digits training loop it feeds: samples/train_digits.py's CNN with
  Adam, one step per batch.

and, for reference, the loader alone with ``num_workers=0``. Each library
runs in its own process (this script with --worker), the two alternating for
--rounds rounds; each figure is the median over rounds. The ratio is Ember /
PyTorch throughput (higher is better); the target of the training loop is
>= 0.9x. The machine is noisy; only ratios of the same run mean much.
"""

import argparse
import importlib
import json
import statistics
import subprocess
import sys
import time

LIBRARIES = ("ember", "torch")
BATCH_SIZE = 64

# name -> (what the table calls it, target ratio Ember / PyTorch throughput)
WORKLOADS = {
    "loader_2_workers": ("DataLoader alone, 2 workers", None),
    "training_2_workers": ("digits CNN training loop fed by 2 workers", 0.9),
    "loader_main_process": ("DataLoader alone, num_workers=0", None),
}


def digits(lib):
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        lib.manual_seed(0)
        return lib.rand(1797, 1, 8, 8), lib.randint(0, 10, (1797,))
    bunch = load_digits()
    images = lib.tensor(bunch.images, dtype=lib.float32).unsqueeze(1) / 16.0
    return images, lib.tensor(bunch.target, dtype=lib.int64)


def digits_cnn(lib):
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, 16, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(32 * 2 * 2, 10))


def samples_per_second(loader, epochs, step):
    for batch in loader:  # warm-up: starts the workers and fills the caches
        step(batch)
    samples = 0
    started = time.perf_counter()
    for _ in range(epochs):
        for batch in loader:
            step(batch)
            samples += len(batch[1])
    return samples / (time.perf_counter() - started)


def run_worker(name, epochs):
    lib = importlib.import_module(name)
    data = importlib.import_module(f"{name}.utils.data")
    lib.manual_seed(0)
    dataset = data.TensorDataset(*digits(lib))

    def loader(workers):
        return data.DataLoader(dataset, batch_size=BATCH_SIZE, shuffle=True, num_workers=workers,
                               persistent_workers=workers > 0)

    model = digits_cnn(lib)
    optimizer = lib.optim.Adam(model.parameters(), lr=3e-3)

    def train(batch):
        images, labels = batch
        optimizer.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()

    def read(batch):
        pass

    print(json.dumps({
        "loader_2_workers": samples_per_second(loader(2), epochs, read),
        "training_2_workers": samples_per_second(loader(2), epochs, train),
        "loader_main_process": samples_per_second(loader(0), epochs, read),
    }))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="alternating Ember/PyTorch rounds")
    parser.add_argument("--epochs", type=int, default=5, help="timed epochs per figure")
    parser.add_argument("--quick", action="store_true", help="one round of one epoch, to check the script")
    parser.add_argument("--worker", choices=LIBRARIES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        run_worker(args.worker, args.epochs)
        return 0
    rounds, epochs = (1, 1) if args.quick else (args.rounds, args.epochs)
    results = []
    for _ in range(rounds):
        figures = {}
        for name in LIBRARIES:
            worker = subprocess.run([sys.executable, __file__, "--worker", name, "--epochs", str(epochs)],
                                    check=True, capture_output=True, text=True)
            figures[name] = json.loads(worker.stdout)
        results.append(figures)
    print(f"{rounds} alternating rounds of {epochs} epochs, batch {BATCH_SIZE} "
          "(median of rounds; ratio = Ember / PyTorch throughput)\n")
    print("| workload | Ember | PyTorch | ratio | target | verdict |")
    print("|---|---:|---:|---:|---:|---|")
    for workload, (title, target) in WORKLOADS.items():
        ember, torch = (statistics.median(r[name][workload] for r in results) for name in LIBRARIES)
        ratio = ember / torch
        verdict = "-" if target is None else "met" if ratio >= target else "missed"
        print(f"| {title} | {ember:,.0f} samples/s | {torch:,.0f} samples/s | {ratio:.2f}x "
              f"| {'-' if target is None else f'>= {target}x'} | {verdict} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
