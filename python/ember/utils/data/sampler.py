"""Samplers: the order in which a DataLoader reads a map-style dataset's
indices, and BatchSampler, which groups them into batches. Random ones draw
on the host from an ember.Generator, or from a stream seeded by the global
one at each pass (Note [Host generators])."""

import itertools

from ... import _C, _factories
from ..._generator import host_rng


class Sampler:
    """Yields dataset indices (subclasses define ``__iter__``, and ``__len__``
    where the count is known)."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} should implement __iter__")


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _check_positive_int(name, value):
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{name} should be a positive integer value, but got {name}={value}")


class RandomSampler(Sampler):
    """A permutation of the indices per pass (as many permutations as
    ``num_samples`` needs), or ``num_samples`` indices drawn uniformly with
    replacement."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement}")
        _check_positive_int("num_samples", self.num_samples)

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        size = len(self.data_source)
        rng = host_rng(self.generator, "RandomSampler")
        if self.replacement:
            yield from rng.integers(0, size, self.num_samples).tolist()
            return
        for _ in range(self.num_samples // size):
            yield from rng.permutation(size).tolist()
        yield from rng.permutation(size)[:self.num_samples % size].tolist()

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order, a new one each pass."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for position in host_rng(self.generator, "SubsetRandomSampler").permutation(len(self.indices)).tolist():
            yield self.indices[position]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices in [0, len(weights)), each drawn with
    probability proportional to its weight (PyTorch's ``multinomial``
    rules: without replacement an index comes at most once, and indices of
    weight 0 only once the others are spent)."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        _check_positive_int("num_samples", num_samples)
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        weights = _factories.as_tensor(weights, dtype=_C.float64)
        if weights.dim() != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(weights.shape)}")
        self.weights = weights
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        import numpy

        weights = self.weights.numpy(force=True)
        if not numpy.isfinite(weights).all() or (weights < 0).any():
            raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0, inf or nan)")
        if weights.sum() <= 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        if not self.replacement and self.num_samples > len(weights):
            raise RuntimeError(f"WeightedRandomSampler: cannot sample {self.num_samples} indices without "
                               f"replacement from {len(weights)} weights")
        rng = host_rng(self.generator, "WeightedRandomSampler")
        if self.replacement:
            yield from rng.choice(len(weights), self.num_samples, p=weights / weights.sum()).tolist()
            return
        # Without replacement: the exponential race (weight / Exp(1), largest
        # first) draws the indices in the order sequential draws would.
        keys = weights / rng.exponential(size=len(weights))
        yield from numpy.argsort(-keys, kind="stable")[:self.num_samples].tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Lists of ``batch_size`` indices from ``sampler``; the last one shorter,
    or dropped when ``drop_last``."""

    def __init__(self, sampler, batch_size, drop_last):
        _check_positive_int("batch_size", batch_size)
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        indices = iter(self.sampler)
        while batch := list(itertools.islice(indices, self.batch_size)):
            if self.drop_last and len(batch) < self.batch_size:
                return
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return -(-len(self.sampler) // self.batch_size)
