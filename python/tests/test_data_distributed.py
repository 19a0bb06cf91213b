"""ember.utils.data.DistributedSampler against torch's: the same counts,
padding and drop_last behaviour, a partition of the dataset across ranks,
and one permutation per (seed, epoch) on every rank."""

import pytest

import ember
import ember.utils.data as data
from ember.utils.data.distributed import DistributedSampler

torch = pytest.importorskip("torch", reason="torch is the reference for DistributedSampler")
from torch.utils.data.distributed import DistributedSampler as TorchSampler  # noqa: E402


def shares(sampler_class, size, replicas, **kwargs):
    return [list(sampler_class(range(size), num_replicas=replicas, rank=rank, **kwargs)) for rank in range(replicas)]


def test_import_paths_match_torch():
    assert data.DistributedSampler is DistributedSampler
    assert issubclass(DistributedSampler, data.Sampler)


@pytest.mark.parametrize("size,replicas", [(10, 3), (12, 4), (2, 5), (7, 1)])
@pytest.mark.parametrize("drop_last", [False, True])
def test_unshuffled_shares_equal_torchs(size, replicas, drop_last):
    ours = shares(DistributedSampler, size, replicas, shuffle=False, drop_last=drop_last)
    theirs = shares(TorchSampler, size, replicas, shuffle=False, drop_last=drop_last)
    assert ours == theirs
    assert [len(DistributedSampler(range(size), replicas, rank, drop_last=drop_last)) for rank in range(replicas)] == \
        [len(share) for share in theirs]


@pytest.mark.parametrize("size,replicas", [(10, 3), (12, 4), (2, 5)])
@pytest.mark.parametrize("drop_last", [False, True])
def test_shuffled_shares_partition_the_dataset_like_torch(size, replicas, drop_last):
    ours = shares(DistributedSampler, size, replicas, seed=7, drop_last=drop_last)
    theirs = shares(TorchSampler, size, replicas, seed=7, drop_last=drop_last)
    assert [len(share) for share in ours] == [len(share) for share in theirs]
    taken = sorted(index for share in ours for index in share)
    if drop_last:
        # Distinct indices, the tail dropped.
        assert len(set(taken)) == len(taken) == replicas * (size // replicas)
    else:
        # Every index, and the padding repeats the permutation's first ones.
        assert set(taken) == set(range(size))
        assert len(taken) == len(ours[0]) * replicas


def test_padding_repeats_the_order_from_its_start():
    # 2 indices over 5 replicas: the order 0, 1 repeated, as torch pads.
    assert shares(DistributedSampler, 2, 5, shuffle=False) == [[0], [1], [0], [1], [0]]


def test_each_epoch_is_one_permutation_for_every_rank_and_repeatable():
    def epoch_order(epoch, seed=0):
        samplers = [DistributedSampler(range(20), num_replicas=4, rank=rank, seed=seed) for rank in range(4)]
        for sampler in samplers:
            sampler.set_epoch(epoch)
        return [list(sampler) for sampler in samplers]

    first = epoch_order(0)
    assert sorted(i for share in first for i in share) == list(range(20))
    assert epoch_order(0) == first
    assert epoch_order(1) != first
    assert epoch_order(0, seed=1) != first
    # Global random state does not enter.
    ember.manual_seed(123)
    assert epoch_order(0) == first


def test_errors_match_torch():
    with pytest.raises(ValueError, match=r"Invalid rank 2, rank should be in the interval \[0, 1\]"):
        DistributedSampler(range(3), num_replicas=2, rank=2)
    with pytest.raises(ValueError, match=r"Invalid rank -1"):
        DistributedSampler(range(3), num_replicas=2, rank=-1)


def test_without_a_process_group_the_defaults_raise_torchs_message():
    import ember.distributed as dist
    if hasattr(dist, "is_initialized") and dist.is_initialized():
        pytest.skip("a default process group is initialized in this process")
    message = "Default process group has not been initialized, please make sure to call init_process_group."
    with pytest.raises(ValueError, match=message):
        DistributedSampler(range(3))
    with pytest.raises(ValueError, match=message):
        DistributedSampler(range(3), num_replicas=2)


def test_works_with_a_dataloader():
    dataset = data.TensorDataset(ember.arange(10))
    loader = data.DataLoader(dataset, batch_size=2,
                             sampler=DistributedSampler(dataset, num_replicas=2, rank=1, shuffle=False))
    assert [batch[0].tolist() for batch in loader] == [[1, 3], [5, 7], [9]]
