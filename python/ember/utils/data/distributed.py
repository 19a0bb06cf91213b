"""DistributedSampler: each of num_replicas processes reads its own share of
a map-style dataset, as torch.utils.data.distributed.DistributedSampler does.

The indices (shuffled by an ember.Generator seeded seed + epoch, so every
rank draws the same permutation) are padded by repeating them from the start
until they divide evenly, or cut to a multiple of num_replicas with
drop_last, and rank r takes every num_replicas-th from r."""

import math

from ... import _generator
from ..._factories import randperm
from .sampler import Sampler

_NO_GROUP = "Default process group has not been initialized, please make sure to call init_process_group."


def _from_default_group(function_name):
    """ember.distributed's get_world_size() or get_rank(); the process-group
    functions may be missing from a build that has only the stores."""
    from ... import distributed

    function = getattr(distributed, function_name, None)
    if function is None:
        raise ValueError(_NO_GROUP)
    return function()


class DistributedSampler(Sampler):
    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None:
            num_replicas = _from_default_group("get_world_size")
        if rank is None:
            rank = _from_default_group("get_rank")
        if isinstance(num_replicas, bool) or not isinstance(num_replicas, int) or num_replicas < 1:
            raise ValueError(f"num_replicas should be a positive integer value, but got num_replicas={num_replicas}")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if drop_last and len(dataset) % num_replicas != 0:
            # Drop the tail so that every rank gets the same count.
            self.num_samples = math.ceil((len(dataset) - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(len(dataset) / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        size = len(self.dataset)
        if self.shuffle:
            generator = _generator.Generator()
            generator.manual_seed(self.seed + self.epoch)
            indices = randperm(size, generator=generator).tolist()
        else:
            indices = list(range(size))
        if self.drop_last:
            indices = indices[:self.total_size]
        elif indices:
            padding = self.total_size - len(indices)
            indices += (indices * math.ceil(padding / len(indices)))[:padding]
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Makes the next pass draw the permutation of `seed + epoch`; call it
        at each epoch's start, with the same epoch on every rank."""
        self.epoch = epoch
