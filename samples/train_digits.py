"""Trains an MLP and a small CNN with Ember on scikit-learn's 8x8 digits.

The data set ships inside scikit-learn (``load_digits``), so nothing is
downloaded; ``--digits-csv`` reads the ``digits.csv.gz`` file scikit-learn
bundles instead, for an environment without scikit-learn or NumPy. For each model the script prints the loss and test accuracy of
every epoch, saves the weights as safetensors, loads them into a fresh model
and checks that it scores the same. It exits non-zero when a model misses
``--min-accuracy`` or the reloaded weights score differently.

    python samples/train_digits.py [--device cpu] [--epochs 20] [--digits-csv digits.csv.gz]

It uses PyTorch's names throughout (``import ember as torch``), as a ported
training script would.
"""

import argparse
import csv
import gzip
import os
import sys
import tempfile
import time

import ember as torch
import ember.nn as nn
import ember.nn.functional as F

IMAGE_SIDE = 8
NUM_CLASSES = 10


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cpu", help="device to train on (see python -m ember.info)")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=3e-3, help="Adam's learning rate")
    parser.add_argument("--models", nargs="+", choices=["mlp", "cnn"], default=["mlp", "cnn"])
    parser.add_argument("--min-accuracy", type=float, default=0.95,
                        help="fail when a model's final test accuracy is below this fraction")
    parser.add_argument("--weights-dir", help="where the .safetensors files go (default: a temporary folder)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--digits-csv", help="scikit-learn's digits.csv.gz, read without scikit-learn")
    return parser.parse_args()


def make_mlp():
    return nn.Sequential(
        nn.Flatten(),
        nn.Linear(IMAGE_SIDE * IMAGE_SIDE, 128), nn.ReLU(),
        nn.Linear(128, 64), nn.ReLU(),
        nn.Linear(64, NUM_CLASSES))


def make_cnn():
    # 8x8 -> 4x4 -> 2x2 feature maps, then one linear classifier.
    return nn.Sequential(
        nn.Conv2d(1, 16, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(32 * 2 * 2, NUM_CLASSES))


MODELS = {"mlp": make_mlp, "cnn": make_cnn}


def load_digits(csv_path):
    """The digits' pixels (N, 64) and labels: scikit-learn's, or the rows of
    the file it bundles them in (64 pixel values, then the label)."""
    if csv_path is None:
        from sklearn.datasets import load_digits as load_from_sklearn

        digits = load_from_sklearn()
        return torch.tensor(digits.data, dtype=torch.float32), torch.tensor(digits.target, dtype=torch.int64)
    with gzip.open(csv_path, "rt") as f:
        rows = [[float(value) for value in row] for row in csv.reader(f)]
    return (torch.tensor([row[:-1] for row in rows], dtype=torch.float32),
            torch.tensor([int(row[-1]) for row in rows], dtype=torch.int64))


def load_split(device, seed, csv_path=None):
    """The digits as (N, 1, 8, 8) float32 images scaled to [0, 1] and int64
    labels; a fixed fifth of them, chosen by ``seed``, is the test set."""
    pixels, labels = load_digits(csv_path)
    images = pixels.reshape(-1, 1, IMAGE_SIDE, IMAGE_SIDE) / 16.0
    torch.manual_seed(seed)
    order = torch.randperm(len(labels))
    num_test = len(labels) // 5
    test, train = order[:num_test], order[num_test:]
    return ((images[train].to(device), labels[train].to(device)),
            (images[test].to(device), labels[test].to(device)))


class ProgressBar:
    """One line that redraws itself in a terminal; elsewhere (logs, CI) only
    the finished line is written, so the output stays one line per epoch."""

    WIDTH = 30

    def __init__(self, total, label, stream=sys.stdout):
        self.total, self.label, self.stream = total, label, stream
        self.done = 0
        self.interactive = stream.isatty()

    def advance(self, suffix=""):
        self.done += 1
        if self.interactive:
            self.draw(suffix, end="")

    def finish(self, suffix):
        self.draw(suffix, end="\n")

    def draw(self, suffix, end):
        filled = self.WIDTH * self.done // self.total
        bar = "#" * filled + "." * (self.WIDTH - filled)
        prefix = "\r" if self.interactive else ""
        self.stream.write(f"{prefix}{self.label} [{bar}] {self.done}/{self.total} {suffix}{end}")
        self.stream.flush()


def train_epoch(model, optimizer, images, labels, batch_size, progress):
    model.train()
    # Shuffled on the CPU, as a DataLoader does: a device needs no random kernels.
    order = torch.randperm(len(labels)).to(images.device)
    total_loss = 0.0
    for start in range(0, len(labels), batch_size):
        batch = order[start:start + batch_size]
        loss = F.cross_entropy(model(images[batch]), labels[batch])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        batch_loss = loss.item()
        total_loss += batch_loss * len(batch)
        progress.advance(f"loss {batch_loss:.4f}")
    return total_loss / len(labels)


@torch.no_grad()
def accuracy(model, images, labels):
    model.eval()
    predictions = model(images).argmax(dim=1)
    return (predictions == labels).sum().item() / len(labels)


def train_and_check(name, args, train_set, test_set, weights_dir):
    """Trains one model, saves and reloads it; returns its test accuracy and
    whether the reloaded model scored the same."""
    torch.manual_seed(args.seed)
    model = MODELS[name]().to(args.device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    images, labels = train_set
    batches_per_epoch = -(-len(labels) // args.batch_size)
    started = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        progress = ProgressBar(batches_per_epoch, f"{name} epoch {epoch:>{len(str(args.epochs))}}/{args.epochs}")
        loss = train_epoch(model, optimizer, images, labels, args.batch_size, progress)
        test_accuracy = accuracy(model, *test_set)
        progress.finish(f"loss {loss:.4f}  test accuracy {test_accuracy:.2%}")
    print(f"{name}: trained in {time.perf_counter() - started:.1f} s")

    path = os.path.join(weights_dir, f"digits_{name}.safetensors")
    torch.save(model.state_dict(), path)
    reloaded = MODELS[name]()
    reloaded.load_state_dict(torch.load(path))
    reloaded_accuracy = accuracy(reloaded.to(args.device), *test_set)
    print(f"{name}: test accuracy {test_accuracy:.2%}, reloaded from {path}: {reloaded_accuracy:.2%}")
    return test_accuracy, reloaded_accuracy == test_accuracy


def main():
    args = parse_args()
    train_set, test_set = load_split(args.device, args.seed, args.digits_csv)
    print(f"digits: {len(train_set[1])} training and {len(test_set[1])} test images on {args.device}")
    failures = []
    with tempfile.TemporaryDirectory() as scratch:
        weights_dir = args.weights_dir or scratch
        os.makedirs(weights_dir, exist_ok=True)
        for name in args.models:
            test_accuracy, reload_matches = train_and_check(name, args, train_set, test_set, weights_dir)
            if test_accuracy < args.min_accuracy:
                failures.append(f"{name} reached {test_accuracy:.2%}, below {args.min_accuracy:.0%}")
            if not reload_matches:
                failures.append(f"{name} scored differently after reloading its weights")
    for failure in failures:
        print(f"FAILED: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
