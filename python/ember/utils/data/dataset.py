"""Datasets with PyTorch's protocol: a map-style Dataset answers
``dataset[index]`` (and ``len``), an IterableDataset yields its samples;
TensorDataset, ConcatDataset, ChainDataset, Subset and random_split build
new ones from them."""

import bisect
import itertools
import math
import typing
import warnings

from ..._generator import host_rng

_T_co = typing.TypeVar("_T_co", covariant=True)


class Dataset(typing.Generic[_T_co]):
    """A map-style dataset: subclasses define ``__getitem__`` (and usually
    ``__len__``, which the default samplers need); a ``__getitems__(indices)``
    returning a list of samples lets the DataLoader fetch a batch in one call."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset[_T_co], typing.Iterable[_T_co]):
    """A dataset read as a stream: subclasses define ``__iter__`` (abstract).
    With DataLoader workers each worker iterates its own copy, so the
    dataset divides the work itself (ember.utils.data.get_worker_info())."""

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Sample i is ``tuple(tensor[i] for tensor in tensors)``."""

    def __init__(self, *tensors):
        sizes = [tensor.size(0) for tensor in tensors]
        if len(set(sizes)) > 1:
            raise ValueError(f"TensorDataset: size mismatch between tensors: their first dimensions are {sizes}")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(tensor[index] for tensor in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Sample i is the tuple of each given dataset's sample i (positional
    datasets) or the dict of them by name (keyword datasets)."""

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like input/output,"
                             " but both types are given.")
        datasets = list(args) or list(kwargs.values())
        if not datasets:
            raise ValueError("At least one dataset should be passed")
        lengths = {len(dataset) for dataset in datasets}
        if len(lengths) > 1:
            raise ValueError("Size mismatch between datasets")
        self._length = lengths.pop()
        self.datasets = args if args else kwargs

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {name: dataset[index] for name, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    def __len__(self):
        return self._length


class ConcatDataset(Dataset):
    """The samples of several map-style datasets, one after another."""

    @staticmethod
    def cumsum(sequence):
        return list(itertools.accumulate(len(dataset) for dataset in sequence))

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ConcatDataset: datasets should not be an empty iterable")
        for dataset in self.datasets:
            if isinstance(dataset, IterableDataset):
                raise TypeError("ConcatDataset does not support IterableDataset (ChainDataset chains those)")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, index):
        if index < 0:
            if -index > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            index += len(self)
        dataset_index = bisect.bisect_right(self.cumulative_sizes, index)
        start = self.cumulative_sizes[dataset_index - 1] if dataset_index > 0 else 0
        return self.datasets[dataset_index][index - start]


class ChainDataset(IterableDataset):
    """The samples of several iterable datasets, one stream after another."""

    def __init__(self, datasets):
        self.datasets = datasets

    def _checked(self):
        for dataset in self.datasets:
            if not isinstance(dataset, IterableDataset):
                raise TypeError(f"ChainDataset only supports IterableDataset, got {type(dataset).__name__}")
            yield dataset

    def __iter__(self):
        for dataset in self._checked():
            yield from dataset

    def __len__(self):
        return sum(len(dataset) for dataset in self._checked())


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset, indices):
        if type(self).__getitem__ is not Subset.__getitem__ and type(self).__getitems__ is Subset.__getitems__:
            # The DataLoader fetches a Subset's batches through __getitems__,
            # which would bypass the override.
            raise NotImplementedError(
                f"{type(self).__name__} overrides __getitem__ but not __getitems__; the DataLoader fetches "
                "batches of a Subset through __getitems__, so override both")
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, index):
        if isinstance(index, list):
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __getitems__(self, indices):
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=None):
    """Splits ``dataset`` into non-overlapping Subsets of the given lengths,
    or of the given fractions of its length (the items left over by rounding
    down go one each to the first splits). The order is a permutation from
    ``generator`` (an ember.Generator), or from the global stream when None."""
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = []
        for i, fraction in enumerate(lengths):
            if not 0 <= fraction <= 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            counts.append(int(math.floor(len(dataset) * fraction)))
        for i in range(len(dataset) - sum(counts)):
            counts[i % len(counts)] += 1
        for i, count in enumerate(counts):
            if count == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.")
        lengths = counts
    if sum(lengths) != len(dataset):
        raise ValueError(f"Sum of input lengths ({sum(lengths)}) does not equal the length of the input dataset "
                         f"({len(dataset)})!")
    order = host_rng(generator, "random_split").permutation(sum(lengths)).tolist()
    return [Subset(dataset, order[end - length:end]) for end, length in zip(itertools.accumulate(lengths), lengths)]

