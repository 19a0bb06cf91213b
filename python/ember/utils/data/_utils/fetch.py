"""Fetchers: one batch (or sample) from a dataset, for the main process and
for DataLoader workers alike."""


class MapDatasetFetcher:
    """Reads the samples at an index, or at a list of them (auto-collation),
    through ``__getitems__`` where the dataset has one."""

    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn

    def fetch(self, index):
        if not self.auto_collation:
            return self.collate_fn(self.dataset[index])
        getitems = getattr(self.dataset, "__getitems__", None)
        samples = getitems(index) if callable(getitems) else [self.dataset[i] for i in index]
        return self.collate_fn(samples)


class IterableDatasetFetcher:
    """Reads the next sample of the dataset's iterator, or as many as the
    batch has places; raises StopIteration once it is spent (or, with
    ``drop_last``, when only a short batch is left)."""

    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.samples = iter(dataset)
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.ended = False

    def fetch(self, index):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.samples))
        batch = []
        for _ in index:
            try:
                batch.append(next(self.samples))
            except StopIteration:
                self.ended = True
                break
        if not batch or (self.drop_last and len(batch) < len(index)):
            raise StopIteration
        return self.collate_fn(batch)


def create_fetcher(is_iterable, dataset, auto_collation, collate_fn, drop_last):
    fetcher = IterableDatasetFetcher if is_iterable else MapDatasetFetcher
    return fetcher(dataset, auto_collation, collate_fn, drop_last)
