"""ember.utils.data in the main process against torch.utils.data: datasets,
random_split, samplers, default_collate/default_convert, DataLoader's
batching and argument checks; and ember.Generator."""

import collections

import numpy
import pytest

import ember
from ember.utils import data


def plain(value):
    """Nested Python values for comparing batches across the two libraries:
    a tensor becomes (dtype name, shape, values)."""
    if hasattr(value, "tolist") and hasattr(value, "dtype") and not isinstance(value, numpy.ndarray):
        return (str(value.dtype).split(".")[-1], tuple(value.shape), value.tolist())
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value).__name__, [plain(item) for item in value]
    return value


def both(torch, build):
    """build(lib, data module) for ember and for PyTorch, as plain values."""
    return plain(build(ember, data)), plain(build(torch, torch.utils.data))


def raised(call):
    try:
        call()
    except Exception as error:
        return type(error)
    return None


def test_tensor_dataset_concat_and_subset_index_like_pytorch(torch):
    def build(lib, module):
        first = module.TensorDataset(lib.arange(6).reshape(3, 2), lib.tensor([1.5, 2.5, 3.5]))
        second = module.TensorDataset(lib.arange(4).reshape(2, 2) * 10, lib.tensor([7.0, 8.0]))
        joined = first + second
        subset = module.Subset(joined, [4, 0, 2])
        rows = module.Subset(first, [2, 0])
        return ([first[1], joined[3], joined[-1], joined.cumulative_sizes, len(joined)],
                [subset[0], subset.__getitems__([2, 0]), len(subset), rows[[1, 0]], rows.__getitems__([1])])

    ours, theirs = both(torch, build)
    assert ours == theirs


def test_dataset_errors(torch):
    def build(lib, module):
        joined = module.ConcatDataset([module.TensorDataset(lib.arange(3))])
        return [raised(lambda: joined[-4]), raised(lambda: joined[3]), raised(lambda: module.Dataset()[0]),
                raised(lambda: module.IterableDataset())]

    assert build(ember, data) == build(torch, torch.utils.data)
    # PyTorch asserts these; Ember raises errors that survive python -O.
    with pytest.raises(ValueError, match=r"first dimensions are \[2, 3\]"):
        data.TensorDataset(ember.zeros(2), ember.zeros(3))
    with pytest.raises(ValueError, match="empty"):
        data.ConcatDataset([])
    with pytest.raises(TypeError, match="IterableDataset"):
        data.ConcatDataset([data.IterableDataset()])

    class Overriding(data.Subset):
        def __getitem__(self, index):
            return index

    with pytest.raises(NotImplementedError, match="__getitems__"):
        Overriding([1, 2], [0])


def test_chain_dataset_streams_one_after_another():
    class Counting(data.IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n))

        def __len__(self):
            return self.n

    chained = Counting(2) + Counting(3)
    assert list(chained) == [0, 1, 0, 1, 2] and len(chained) == 5
    with pytest.raises(TypeError, match="only supports IterableDataset"):
        list(data.ChainDataset([[1, 2]]))


def test_random_split_lengths_fractions_and_errors(torch):
    parts = data.random_split(range(10), [3, 7], generator=ember.Generator().manual_seed(4))
    assert [len(part) for part in parts] == [3, 7]
    assert sorted(parts[0].indices + parts[1].indices) == list(range(10))
    again = data.random_split(range(10), [3, 7], generator=ember.Generator().manual_seed(4))
    assert [part.indices for part in again] == [part.indices for part in parts]
    for lengths in ([0.33, 0.33, 0.34], [0.5, 0.5], [0.1, 0.9]):
        ours = [len(part) for part in data.random_split(range(11), lengths)]
        assert ours == [len(part) for part in torch.utils.data.random_split(range(11), lengths)]
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        data.random_split(range(2), [1.0, 0.0])
    for lengths in ([3, 3], [0.5, 1.5], [-0.5, 1.5]):
        assert raised(lambda: data.random_split(range(10), lengths)) is ValueError
        assert raised(lambda: torch.utils.data.random_split(range(10), lengths)) is ValueError
    with pytest.raises(ValueError, match=r"Sum of input lengths \(6\) does not equal the length of the input "
                                         r"dataset \(10\)"):
        data.random_split(range(10), [3, 3])


def test_random_split_and_shuffles_follow_manual_seed():
    def draw():
        ember.manual_seed(11)
        split = [part.indices for part in data.random_split(range(20), [5, 15])]
        return split, list(data.RandomSampler(range(20))), [b.tolist() for b in data.DataLoader(range(9), 4,
                                                                                                  shuffle=True)]

    first, second = draw(), draw()
    assert first == second
    assert sorted(first[1]) == list(range(20)) and first[1] != list(range(20))


def test_sequential_and_batch_samplers_match_pytorch(torch):
    def build(lib, module):
        results = [list(module.SequentialSampler(range(5)))]
        for drop_last in (False, True):
            batches = module.BatchSampler(module.SequentialSampler(range(7)), 3, drop_last)
            results += [list(batches), len(batches)]
        results.append(list(module.BatchSampler([9, 8, 7, 6], 2, False)))
        return results

    assert build(ember, data) == build(torch, torch.utils.data)


def test_random_samplers_draw_permutations_and_ranges():
    generator = ember.Generator().manual_seed(0)
    order = list(data.RandomSampler(range(10), generator=generator))
    assert sorted(order) == list(range(10))
    assert list(data.RandomSampler(range(10), generator=ember.Generator().manual_seed(0))) == order
    assert list(data.RandomSampler(range(10), generator=generator)) != order  # the stream goes on
    several = list(data.RandomSampler(range(4), num_samples=10, generator=generator))
    assert sorted(several[:4]) == sorted(several[4:8]) == list(range(4)) and len(several) == 10
    drawn = list(data.RandomSampler(range(3), replacement=True, num_samples=300, generator=generator))
    assert set(drawn) == {0, 1, 2} and len(drawn) == 300
    assert len(data.RandomSampler(range(5), num_samples=7)) == 7
    subset = list(data.SubsetRandomSampler([10, 20, 30, 40], generator=generator))
    assert sorted(subset) == [10, 20, 30, 40] and len(data.SubsetRandomSampler([1, 2])) == 2


def test_weighted_random_sampler():
    generator = ember.Generator().manual_seed(1)
    drawn = list(data.WeightedRandomSampler([0.0, 1.0, 3.0], 4000, generator=generator))
    counts = collections.Counter(drawn)
    assert counts[0] == 0 and 0.7 < counts[2] / len(drawn) < 0.8
    unique = list(data.WeightedRandomSampler(ember.tensor([1.0, 5.0, 0.0, 2.0]), 3, replacement=False,
                                             generator=generator))
    assert len(set(unique)) == 3 and 2 not in unique
    # Weight-0 indices come once the others are spent, as with multinomial.
    assert sorted(data.WeightedRandomSampler([1.0, 0.0, 0.0], 3, replacement=False)) == [0, 1, 2]
    sampler = data.WeightedRandomSampler([1, 2], 5)
    assert len(sampler) == 5 and sampler.weights.dtype == ember.float64


def test_sampler_argument_errors_match_pytorch(torch):
    def build(module):
        return [raised(call) for call in (
            lambda: module.RandomSampler(range(3), replacement=1),
            lambda: module.RandomSampler(range(3), num_samples=0),
            lambda: module.RandomSampler(range(3), num_samples=1.5),
            lambda: module.BatchSampler(range(3), 0, False),
            lambda: module.BatchSampler(range(3), 2, 1),
            lambda: module.WeightedRandomSampler([[1.0]], 2),
            lambda: module.WeightedRandomSampler([1.0], 0),
            lambda: module.WeightedRandomSampler([1.0], 2, replacement=3),
            lambda: list(module.WeightedRandomSampler([1.0, -1.0], 2)),
            lambda: list(module.WeightedRandomSampler([0.0, 0.0], 2)),
            lambda: list(module.WeightedRandomSampler([1.0, 1.0], 3, replacement=False)),
            lambda: list(module.Sampler()))]

    assert build(data) == build(torch.utils.data)


Point = collections.namedtuple("Point", "x y")


@pytest.mark.parametrize("samples", [
    [ember.tensor([1.0, 2.0]), ember.tensor([3.0, 4.0])],
    [1, 2, 3],
    [True, False],
    [0.5, 1.5],
    ["a", "b"],
    [(1, "a", 2.0), (2, "b", 3.0)],
    [[1, 2], [3, 4]],
    [{"x": numpy.zeros(2, numpy.float32), "y": 1}, {"x": numpy.ones(2, numpy.float32), "y": 2}],
    [Point(1, 2.0), Point(3, 4.0)],
    [numpy.float32(1), numpy.float32(2)],
    [numpy.int16(1), numpy.int16(2)],
    [numpy.arange(3), numpy.arange(3) + 1],
    [(ember.tensor(1), {"k": [ember.tensor([1, 2])]}), (ember.tensor(2), {"k": [ember.tensor([3, 4])]})],
], ids=lambda samples: type(samples[0]).__name__)
def test_default_collate_matches_pytorch(torch, samples):
    theirs_samples = [_to_torch(torch, sample) for sample in samples]
    ours = data.default_collate(samples)
    theirs = torch.utils.data.default_collate(theirs_samples)
    assert plain(ours) == plain(theirs)
    if isinstance(samples[0], Point):
        assert isinstance(ours, Point)


def _to_torch(torch, value):
    if isinstance(value, ember.Tensor):
        return torch.from_numpy(value.numpy().copy())
    if isinstance(value, dict):
        return {key: _to_torch(torch, item) for key, item in value.items()}
    if isinstance(value, Point):
        return value
    if isinstance(value, (list, tuple)):
        return type(value)(_to_torch(torch, item) for item in value)
    return value


def test_default_collate_errors_match_pytorch(torch):
    for samples in ([object()], [numpy.array(["a"])], [[1, 2], [3]], [[numpy.array([object()])]]):
        ours, theirs = raised(lambda: data.default_collate(samples)), raised(
            lambda: torch.utils.data.default_collate(samples))
        assert ours is theirs and ours is not None, samples
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors, numpy arrays, numbers, "
                                        "dicts or lists; found <class 'object'>"):
        data.default_collate([object()])
    with pytest.raises(RuntimeError, match="stack"):
        data.default_collate([ember.zeros(2), ember.zeros(3)])


def test_default_convert_matches_pytorch(torch):
    sample = {"image": numpy.ones((2, 2), numpy.float32), "pair": (numpy.int64(3), "label"),
              "items": [numpy.zeros(1)], "text": numpy.array(["a"]), "number": 4}
    ours, theirs = data.default_convert(sample), torch.utils.data.default_convert(sample)
    assert plain({k: v for k, v in ours.items() if k != "text"}) == plain(
        {k: v for k, v in theirs.items() if k != "text"})
    assert ours["text"] is sample["text"] and theirs["text"] is sample["text"]


class Squares(data.Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        return {"x": float(index) ** 2, "index": index}


def _loaders(lib, module):
    class Stream(module.IterableDataset):
        def __iter__(self):
            return iter(range(5))

        def __len__(self):
            return 5

    squares = Squares(7)
    pairs = module.TensorDataset(lib.arange(10.0).reshape(5, 2), lib.arange(5))
    return [
        module.DataLoader(pairs, batch_size=2),
        module.DataLoader(pairs, batch_size=2, drop_last=True),
        module.DataLoader(squares, batch_size=3),
        module.DataLoader(squares, batch_size=None),
        module.DataLoader(squares, batch_sampler=[[0, 6], [2], [5, 1, 3]]),
        module.DataLoader(squares, sampler=[6, 5, 4], batch_size=2),
        module.DataLoader(squares, batch_size=4, collate_fn=lambda batch: [item["index"] for item in batch]),
        module.DataLoader(Stream(), batch_size=2),
        module.DataLoader(Stream(), batch_size=2, drop_last=True),
        module.DataLoader(Stream(), batch_size=None),
    ]


def test_dataloader_batches_and_lengths_match_pytorch(torch):
    def build(lib, module):
        return [(list(loader), len(loader) if not isinstance(loader.batch_sampler, list) else None)
                for loader in _loaders(lib, module)]

    ours, theirs = both(torch, build)
    assert ours == theirs


def test_dataloader_argument_errors_match_pytorch(torch):
    calls = [
        dict(num_workers=-1), dict(timeout=-1), dict(prefetch_factor=2), dict(num_workers=1, prefetch_factor=-1),
        dict(persistent_workers=True), dict(sampler=[0], shuffle=True), dict(batch_sampler=[[0]], batch_size=2),
        dict(batch_sampler=[[0]], drop_last=True), dict(batch_size=None, drop_last=True),
        dict(multiprocessing_context="spawn"), dict(num_workers=1, multiprocessing_context="nonsense"),
        dict(num_workers=1, multiprocessing_context=3),
    ]

    class Stream(data.IterableDataset):
        def __iter__(self):
            return iter(range(3))

    for kwargs in calls:
        ours = raised(lambda: data.DataLoader(range(4), **kwargs))
        assert ours is not None and ours is raised(lambda: torch.utils.data.DataLoader(range(4), **kwargs)), kwargs
    for kwargs in (dict(shuffle=True), dict(sampler=[0]), dict(batch_sampler=[[0]])):
        with pytest.raises(ValueError, match="DataLoader with IterableDataset: expected unspecified"):
            data.DataLoader(Stream(), **kwargs)
    loader = data.DataLoader(range(4))
    with pytest.raises(ValueError, match="batch_size attribute should not be set after DataLoader is initialized"):
        loader.batch_size = 3
    loader.num_workers = 0  # not frozen, as in PyTorch
    with pytest.warns(UserWarning, match="pinned"):
        data.DataLoader(range(4), pin_memory=True)


def test_worker_info_is_none_in_the_main_process():
    assert data.get_worker_info() is None
    assert list(data.DataLoader(range(3), batch_size=None, collate_fn=lambda i: data.get_worker_info())) == [None] * 3


def test_generator_streams_are_repeatable_and_independent(torch):
    first, second = ember.Generator().manual_seed(5), ember.Generator().manual_seed(5)
    assert ember.randperm(20, generator=first).tolist() == ember.randperm(20, generator=second).tolist()
    state = first.get_state()
    values = ember.rand(4, generator=first).tolist()
    first.set_state(state)
    assert ember.rand(4, generator=first).tolist() == values
    assert first.initial_seed() == 5 and ember.Generator().initial_seed() == torch.Generator().initial_seed()
    assert first.manual_seed(-1).initial_seed() == torch.Generator().manual_seed(-1).initial_seed()
    assert isinstance(first.seed(), int) and first.initial_seed() < 2**64
    integers = ember.randint(3, 8, (500,), generator=first)
    assert integers.dtype == ember.int64 and set(integers.tolist()) == set(range(3, 8))
    normal = ember.randn(2000, generator=first, dtype=ember.float64)
    assert normal.dtype == ember.float64 and abs(normal.mean().item()) < 0.1 and 0.9 < normal.std().item() < 1.1
    for dtype in (ember.float16, ember.bfloat16, ember.float32):
        uniform = ember.rand(4000, generator=first, dtype=dtype)
        assert uniform.dtype == dtype and uniform.min().item() >= 0 and uniform.max().item() < 1


def test_generator_errors_match_pytorch(torch):
    def build(lib):
        generator = lib.Generator()
        return [raised(call) for call in (
            lambda: generator.manual_seed(2**64), lambda: generator.manual_seed("a"),
            lambda: generator.set_state(lib.zeros(3)), lambda: generator.set_state(lib.zeros(3, dtype=lib.uint8)),
            lambda: lib.rand(2, dtype=lib.int64, generator=generator),
            lambda: lib.randn(2, dtype=lib.int64, generator=generator),
            lambda: lib.Generator("meta"))]

    assert build(ember) == build(torch)
    with pytest.raises(TypeError, match="generator must be an ember.Generator, not int"):
        data.RandomSampler(range(3), generator=3).__iter__().__next__()


def test_numpy_scalars_and_zero_dim_arrays_keep_dtype_and_shape(torch):
    for value in (numpy.float32(1.5), numpy.float64(2.5), numpy.int16(3), numpy.bool_(True), numpy.array(2.0)):
        ours, theirs = ember.tensor(value), torch.tensor(value)
        assert plain(ours) == plain(theirs)
        assert plain(ember.as_tensor(value)) == plain(torch.as_tensor(value))


def test_reachable_as_an_attribute_after_import_ember():
    assert ember.utils.data is data and ember.utils.data.DataLoader is data.DataLoader
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        ember.utils.nothing


def test_stack_dataset_pairs_samples_as_pytorch(torch):
    for library in (torch, ember):
        data = library.utils.data
        images, labels = data.TensorDataset(library.arange(6.0).reshape(3, 2)), [7, 8, 9]
        stacked = data.StackDataset(images, labels)
        assert len(stacked) == 3 and stacked[1][1] == 8 and stacked[1][0][0].tolist() == [2.0, 3.0]
        named = data.StackDataset(image=images, label=labels)
        assert named[2]["label"] == 9
        with pytest.raises(ValueError):
            data.StackDataset(images, [1])
