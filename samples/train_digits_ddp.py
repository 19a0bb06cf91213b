"""Trains the digits MLP of train_digits.py with DistributedDataParallel, one
process per rank, each on its share of every epoch (DistributedSampler).

    ember-run --nproc-per-node 2 samples/train_digits_ddp.py [--epochs 20]

Every rank prints its loss; rank 0 prints the test accuracy and the script
exits non-zero when it misses ``--min-accuracy`` or when the ranks' final
parameters differ.
"""

import argparse
import os
import sys

import ember as torch
import ember.distributed as dist
import ember.nn.functional as F
from ember.nn.parallel import DistributedDataParallel
from ember.utils.data import DistributedSampler

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_digits import accuracy, load_split, make_mlp  # noqa: E402


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=64, help="per rank")
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--min-accuracy", type=float, default=0.95)
    parser.add_argument("--digits-csv", help="scikit-learn's digits.csv.gz, read without scikit-learn")
    return parser.parse_args()


def main():
    args = parse_args()
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    (train_images, train_labels), (test_images, test_labels) = load_split("cpu", seed=0, csv_path=args.digits_csv)
    torch.manual_seed(rank)  # DDP copies rank 0's weights to every rank
    model = DistributedDataParallel(make_mlp())
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    sampler = DistributedSampler(range(len(train_labels)), num_replicas=world, rank=rank, seed=0)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        order = torch.tensor(list(sampler), dtype=torch.int64)
        total = 0.0
        for start in range(0, len(order), args.batch_size):
            batch = order[start:start + args.batch_size]
            loss = F.cross_entropy(model(train_images[batch]), train_labels[batch])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(batch)
        print(f"rank {rank} epoch {epoch + 1}: loss {total / len(order):.4f}", flush=True)
    flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    everyone = torch.zeros([world, flat.numel()])
    dist.all_gather_into_tensor(everyone, flat)
    same = all(torch.equal(everyone[r], everyone[0]) for r in range(world))
    score = accuracy(model.module, test_images, test_labels)
    dist.destroy_process_group()
    if rank == 0:
        print(f"test accuracy {score:.4f} on {world} ranks; parameters identical across ranks: {same}")
    if not same or score < args.min_accuracy:
        sys.exit(1)


if __name__ == "__main__":
    main()
