"""DataLoader worker processes: the batches they hand back (through shared
memory, never pickled tensor data), their seeds and WorkerInfo, iterable
datasets split among them, persistent workers, errors and deaths reported
with the worker's name, and nothing left behind; and an MNIST-style
training loop fed by two workers against PyTorch's."""

import gc
import multiprocessing
import os
import pathlib
import signal
import time

import numpy
import pytest

import ember
from ember.utils import data
from ember.utils.data import dataloader
from ember.utils.data._utils import shared_batch

SHARED_MEMORY = pathlib.Path("/dev/shm")


def shared_blocks():
    """The shared-memory blocks that exist now. Python names them psm_*;
    semaphores of other libraries in this process (joblib's loky, once
    scikit-learn is imported) are not the DataLoader's."""
    if not SHARED_MEMORY.is_dir():
        return set()
    return {entry for entry in SHARED_MEMORY.iterdir() if entry.name.startswith("psm_")}


@pytest.fixture
def no_leftovers():
    """Fails the test if a worker or a shared-memory block outlives it."""
    before = shared_blocks()
    yield
    gc.collect()  # an iterator kept by an exception's traceback cycle shuts down when collected
    assert multiprocessing.active_children() == []
    assert shared_blocks() - before == set()


class Mixed(data.Dataset):
    """Samples of every kind default_collate and the transport handle."""

    def __len__(self):
        return 10

    def __getitem__(self, index):
        return {
            "image": ember.full((2, 3), float(index)),
            "half": ember.tensor([index, -index], dtype=ember.float16),
            "brain": ember.tensor([index / 8], dtype=ember.bfloat16),
            "mask": ember.tensor([index % 2 == 0, True]),
            "pair": (index, index * 0.5),
            "array": numpy.arange(3, dtype=numpy.int32) * index,
            "name": f"item{index}",
        }


def plain(value):
    if isinstance(value, ember.Tensor):
        return str(value.dtype), tuple(value.shape), value.tolist()
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


def test_workers_hand_back_the_batches_of_the_main_process(no_leftovers):
    expected = [plain(batch) for batch in data.DataLoader(Mixed(), batch_size=3)]
    for workers in (1, 2):
        assert [plain(batch) for batch in data.DataLoader(Mixed(), batch_size=3, num_workers=workers)] == expected


def test_custom_collate_results_and_numpy_arrays_come_back_whole(no_leftovers):
    def collate(batch):
        return {"arrays": [numpy.full((2, 2), i, dtype=numpy.float64) for i in range(len(batch))],
                "same": [ember.ones(2)] * 2, "empty": ember.zeros(0, 3), "view": ember.arange(8.0)[::2],
                "grad": ember.ones(2, requires_grad=True)}

    batch = next(iter(data.DataLoader(range(4), batch_size=2, num_workers=1, collate_fn=collate)))
    assert [array.tolist() for array in batch["arrays"]] == [[[0.0, 0.0]] * 2, [[1.0, 1.0]] * 2]
    assert batch["arrays"][0].dtype == numpy.float64 and batch["arrays"][0].flags.writeable
    assert batch["same"][0] is batch["same"][1]  # one tensor sent twice arrives once
    assert tuple(batch["empty"].shape) == (0, 3) and batch["view"].tolist() == [0.0, 2.0, 4.0, 6.0]
    assert batch["grad"].requires_grad


def test_tensor_data_travels_outside_the_pickle():
    batch = {"images": ember.ones(64, 1, 28, 28), "labels": ember.arange(64), "names": ["a"] * 3}
    pickled, block = shared_batch.pack(batch)
    assert block is not None and len(pickled) < 1000  # 200 KB of tensor data are not in it
    try:
        assert pathlib.Path(SHARED_MEMORY, block).exists() or not SHARED_MEMORY.is_dir()
    finally:
        restored = shared_batch.unpack((pickled, block))
    assert not pathlib.Path(SHARED_MEMORY, block).exists()
    assert plain(restored) == plain(batch)
    assert shared_batch.pack({"n": 1, "s": "x"})[1] is None  # nothing to share, no block


class Seeds(data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        info = data.get_worker_info()
        return (info.id, info.num_workers, info.seed, ember.rand(1).item(), numpy.random.rand(),
                os.environ.get("EMBER_TEST_INIT"), info.dataset is not None)


def set_marker(worker_id):
    os.environ["EMBER_TEST_INIT"] = f"init{worker_id}"


def test_worker_seeds_info_and_init_fn(no_leftovers):
    def run(seed):
        loader = data.DataLoader(Seeds(), batch_size=None, num_workers=2, worker_init_fn=set_marker,
                                 generator=ember.Generator().manual_seed(seed))
        return list(loader)

    first = run(3)
    assert [sample[:2] for sample in first] == [[0, 2], [1, 2], [0, 2], [1, 2]]
    assert [sample[5:] for sample in first] == [["init0", True], ["init1", True]] * 2
    assert first[1][2] == first[0][2] + 1  # base seed + worker id
    assert first[0][3] != first[1][3] and first[0][4] != first[1][4]  # each worker its own streams
    assert run(3) == first and run(4) != first
    info = data.WorkerInfo(id=0, num_workers=1, seed=0, dataset=None)
    with pytest.raises(RuntimeError, match="Cannot assign attributes to WorkerInfo objects"):
        info.id = 1


def _split_range(lib, module):
    class Range(module.IterableDataset):
        """PyTorch's documented example: each worker reads its share."""

        def __init__(self, start, end):
            self.start, self.end = start, end

        def __iter__(self):
            info = module.get_worker_info()
            if info is None:
                return iter(range(self.start, self.end))
            per_worker = -(-(self.end - self.start) // info.num_workers)
            begin = self.start + info.id * per_worker
            return iter(range(begin, min(begin + per_worker, self.end)))

    loaders = [module.DataLoader(Range(3, 10), batch_size=2, num_workers=2),
               module.DataLoader(Range(3, 10), batch_size=2, num_workers=2, drop_last=True),
               module.DataLoader(Range(0, 5), batch_size=None, num_workers=2)]
    return [[batch if isinstance(batch, int) else batch.tolist() for batch in loader] for loader in loaders]


def test_iterable_dataset_divided_among_workers_matches_pytorch(torch, no_leftovers):
    assert _split_range(ember, data) == _split_range(torch, torch.utils.data)


class Pids(data.Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, index):
        return index, os.getpid()


def test_persistent_workers_serve_every_pass(no_leftovers):
    loader = data.DataLoader(Pids(), batch_size=2, num_workers=2, persistent_workers=True)
    first = list(loader)
    partial = iter(loader)
    next(partial)  # a pass left unfinished
    second = list(loader)
    assert [batch[0].tolist() for batch in second] == [[0, 1], [2, 3], [4, 5]]
    pids = {pid for batch in first + second for pid in batch[1].tolist()}
    assert len(pids) == 2 and os.getpid() not in pids
    assert {pid for batch in second for pid in batch[1].tolist()} == pids  # the same two processes
    del loader, partial, first, second


def test_out_of_order_batches_when_not_in_order(no_leftovers):
    loader = data.DataLoader(range(12), batch_size=3, num_workers=2, in_order=False)
    assert sorted(value for batch in loader for value in batch.tolist()) == list(range(12))


class Failing(data.Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        if index == 5:
            raise KeyError(f"no sample {index}")
        return index


def test_a_worker_error_names_the_worker_and_keeps_its_type_and_traceback(no_leftovers):
    batches = []
    with pytest.raises(KeyError) as caught:
        for batch in data.DataLoader(Failing(), batch_size=2, num_workers=2):
            batches.append(batch.tolist())
    message = str(caught.value)
    assert batches == [[0, 1], [2, 3]]
    assert message.startswith("Caught KeyError in DataLoader worker process 0.\nOriginal Traceback")
    assert "in __getitem__" in message and "KeyError: 'no sample 5'" in message
    del caught


class LocalError(Exception):
    def __init__(self, code, detail):
        super().__init__(code, detail)


def raise_unusual_error(worker_id):
    raise LocalError(3, "init failed")


def test_an_error_whose_type_cannot_be_rebuilt_is_a_runtime_error(no_leftovers):
    with pytest.raises(RuntimeError, match="Caught LocalError in DataLoader worker process 0") as caught:
        list(data.DataLoader(range(2), num_workers=1, worker_init_fn=raise_unusual_error))
    assert "init failed" in str(caught.value)
    del caught


class Dying(data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        os.kill(os.getpid(), signal.SIGKILL)


def test_a_worker_that_dies_is_reported_at_once(no_leftovers):
    with pytest.raises(RuntimeError, match=r"DataLoader worker 0 \(pid \d+\) exited unexpectedly: it was killed by "
                                           r"signal SIGKILL"):
        list(data.DataLoader(Dying(), num_workers=1))


class Waiting(data.Dataset):
    def __init__(self):
        self.release = multiprocessing.Event()

    def __len__(self):
        return 2

    def __getitem__(self, index):
        self.release.wait(10)
        return index


def test_timeout(no_leftovers):
    dataset = Waiting()
    iterator = iter(data.DataLoader(dataset, num_workers=1, timeout=0.2))
    with pytest.raises(RuntimeError, match=r"DataLoader timed out after 0.2 seconds"):
        next(iterator)
    dataset.release.set()  # so that shutting down does not wait for the worker
    del iterator


def test_an_unfinished_pass_shuts_its_workers_down(no_leftovers):
    iterator = iter(data.DataLoader(Mixed(), batch_size=2, num_workers=2))
    next(iterator)
    del iterator  # batches in flight are read and their shared blocks freed


# The training loop of pytorch/examples' mnist/main.py (Net, train(),
# Adadelta with StepLR), smaller (12x12 images, fewer channels) and without
# its dropout, whose masks no two libraries draw alike; the data are
# synthetic digits.
def make_net(torch):
    nn_, F_ = torch.nn, torch.nn.functional

    class Net(nn_.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn_.Conv2d(1, 4, 3, 1)
            self.conv2 = nn_.Conv2d(4, 8, 3, 1)
            self.fc1 = nn_.Linear(128, 32)
            self.fc2 = nn_.Linear(32, 10)

        def forward(self, x):
            x = F_.relu(self.conv1(x))
            x = F_.relu(self.conv2(x))
            x = F_.max_pool2d(x, 2)
            x = torch.flatten(x, 1)
            x = F_.relu(self.fc1(x))
            return F_.log_softmax(self.fc2(x), dim=1)

    return Net()


def make_digits(torch):
    class Digits(torch.utils.data.Dataset):
        """Images as NumPy arrays, turned into normalized tensors on read, as
        torchvision's ToTensor and Normalize would."""

        def __init__(self, images, labels):
            self.images, self.labels = images, labels

        def __len__(self):
            return len(self.labels)

        def __getitem__(self, index):
            image = (torch.tensor(self.images[index][None]) - 0.1307) / 0.3081
            return image, int(self.labels[index])

    rng = numpy.random.default_rng(0)
    images = rng.random((96, 12, 12), dtype=numpy.float32)
    labels = (images[:, :6].sum(axis=(1, 2)) * 10 / 72).astype(numpy.int64).clip(0, 9)
    return Digits(images, labels), rng.permutation(len(labels)).tolist()


def train(torch, weights):
    model = make_net(torch)
    model.load_state_dict({name: torch.tensor(value) for name, value in weights.items()})
    dataset, order = make_digits(torch)
    loader = torch.utils.data.DataLoader(dataset, batch_size=16, sampler=order, num_workers=2,
                                         persistent_workers=True)
    optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)
    losses = []
    for epoch in range(2):
        model.train()
        for data_, target in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.nll_loss(model(data_), target)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        scheduler.step()
    return losses


def test_mnist_style_training_through_two_workers_matches_pytorch(torch, no_leftovers):
    torch.manual_seed(0)
    weights = {name: value.detach().numpy().copy() for name, value in make_net(torch).state_dict().items()}
    theirs = train(torch, weights)
    ours = train(ember, weights)
    assert len(ours) == 12
    numpy.testing.assert_allclose(ours, theirs, rtol=1e-4)
    assert ours[-1] < ours[0]


class PicklesOnce:
    """A worker_init_fn that only the first spawned worker receives."""

    pickled = 0

    def __call__(self, worker_id):
        pass

    def __reduce__(self):
        PicklesOnce.pickled += 1
        if PicklesOnce.pickled > 1:
            raise TypeError("pickled twice")
        return PicklesOnce, ()


def test_a_worker_that_cannot_start_stops_those_started_before_it(no_leftovers, monkeypatch):
    # Worker 0 must see its pipe end and exit, not wait out the time shutdown allows (made long here).
    monkeypatch.setattr(dataloader, "_WORKER_EXIT_SECONDS", 60)
    loader = data.DataLoader(range(4), num_workers=2, multiprocessing_context="spawn", worker_init_fn=PicklesOnce())
    started = time.monotonic()
    with pytest.raises(TypeError, match="worker 1 could not start: pickled twice"):
        iter(loader)
    assert time.monotonic() - started < 30


def test_spawned_workers_take_a_dataset_of_tensors_through_shared_memory(no_leftovers):
    loader = data.DataLoader(range(4), batch_size=2, num_workers=1, multiprocessing_context="spawn")
    assert [batch.tolist() for batch in loader] == [[0, 1], [2, 3]]
    values = ember.arange(6.0).view(3, 2)
    tensors = data.TensorDataset(values)
    batches = list(data.DataLoader(tensors, batch_size=2, num_workers=1, multiprocessing_context="spawn"))
    assert [batch.tolist() for (batch,) in batches] == [[[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0]]]
    assert values.is_shared()
