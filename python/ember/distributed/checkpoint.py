"""Checkpoints of replicated training (DDP): one rank writes, every rank
reads and proves it read the same bytes.

`save(obj, path)`: rank 0 writes `obj` with `ember.save`, which replaces the
file whole (a temporary file renamed into place, so a killed writer leaves
the previous checkpoint intact), then every rank waits at a barrier, so no
rank reads a checkpoint before it exists.
`load(path)`: every rank reads the file and all-gathers a SHA-256 prefix of
its bytes; ranks that read other bytes (a stale copy on a node's own disk)
make every rank raise, naming them.
"""

import hashlib

from .. import load as _load
from .. import save as _save
from .. import int64, tensor, zeros
from . import distributed_c10d as c10d


def save(obj, path, group=None):
    if c10d.get_rank(group) == 0:
        _save(obj, path)
    c10d.barrier(group)


def _fingerprint(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    # Seven bytes: a non-negative int64.
    return int.from_bytes(digest.digest()[:7], "little")


def load(path, group=None, map_location=None):
    obj = _load(path, map_location=map_location)
    mine = tensor([_fingerprint(path)], dtype=int64)
    everyone = zeros([c10d.get_world_size(group)], dtype=int64)
    c10d.all_gather_into_tensor(everyone, mine, group=group)
    seen = everyone.tolist()
    differing = [rank for rank, value in enumerate(seen) if value != seen[0]]
    if differing:
        raise RuntimeError(f"checkpoint {path}: ranks {differing} read other bytes than rank 0 "
                           f"(fingerprints {seen}); every rank must load the same file")
    return obj
