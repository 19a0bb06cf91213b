"""searchsorted, bucketize and unique against PyTorch, over dtypes, shapes,
batched boundaries, sorters and empty inputs."""

import numpy
import pytest

import ember
from helpers import assert_close

RNG = numpy.random.default_rng(0)


@pytest.mark.parametrize("length", [0, 1, 2, 7, 16])
@pytest.mark.parametrize("dtype", ["int64", "float32", "float64"])
def test_searchsorted_matches_pytorch(torch, device, length, dtype):
    boundaries = numpy.sort(RNG.integers(0, 10, length)).astype(dtype)
    values = RNG.integers(-1, 11, (3, 4)).astype(dtype)
    for right in (False, True):
        expected = torch.searchsorted(torch.tensor(boundaries), torch.tensor(values), right=right)
        actual = ember.searchsorted(ember.tensor(boundaries, device=device), ember.tensor(values, device=device),
                                    right=right)
        assert_close(actual, expected)
    side = ember.searchsorted(ember.tensor(boundaries, device=device), ember.tensor(values, device=device),
                              side="right", out_int32=True)
    assert_close(side, torch.searchsorted(torch.tensor(boundaries), torch.tensor(values), side="right",
                                          out_int32=True))


@pytest.mark.filterwarnings("ignore:torch.searchsorted")
def test_searchsorted_batched_sorter_and_scalars(torch, device):
    boundaries = numpy.sort(RNG.standard_normal((2, 3, 6)), axis=-1)
    values = RNG.standard_normal((2, 3, 4))
    e_boundaries, e_values = ember.tensor(boundaries, device=device), ember.tensor(values, device=device)
    t_boundaries, t_values = torch.tensor(boundaries), torch.tensor(values)
    assert_close(ember.searchsorted(e_boundaries, e_values), torch.searchsorted(t_boundaries, t_values))
    assert_close(ember.searchsorted(e_boundaries.transpose(0, 1).contiguous().transpose(0, 1), e_values[..., ::2]),
                 torch.searchsorted(t_boundaries, t_values[..., ::2]))
    unsorted = RNG.permutation(8).astype("float64")
    sorter = numpy.argsort(unsorted)
    assert_close(ember.searchsorted(ember.tensor(unsorted, device=device), ember.tensor([2.5, 7.0], device=device),
                                    sorter=ember.tensor(sorter, device=device)),
                 torch.searchsorted(torch.tensor(unsorted), torch.tensor([2.5, 7.0]), sorter=torch.tensor(sorter)))
    assert_close(ember.searchsorted(ember.tensor([1, 2, 3], device=device), 2),
                 torch.searchsorted(torch.tensor([1, 2, 3]), 2))
    mixed = ember.searchsorted(ember.tensor([1, 2, 3], device=device), ember.tensor([1.5, 2.0], device=device))
    assert_close(mixed, torch.searchsorted(torch.tensor([1, 2, 3]), torch.tensor([1.5, 2.0])))


def test_bucketize_matches_pytorch(torch, device):
    values = RNG.standard_normal((3, 5))
    boundaries = numpy.array([-1.0, 0.0, 0.0, 1.0])
    for right in (False, True):
        assert_close(ember.bucketize(ember.tensor(values, device=device), ember.tensor(boundaries, device=device),
                                     right=right),
                     torch.bucketize(torch.tensor(values), torch.tensor(boundaries), right=right))


@pytest.mark.parametrize("dtype", ["int64", "float32", "bool"])
def test_unique_matches_pytorch(torch, device, dtype):
    values = RNG.integers(0, 4, (3, 5)).astype(dtype)
    expected = torch.unique(torch.tensor(values), return_inverse=True, return_counts=True)
    actual = ember.unique(ember.tensor(values, device=device), return_inverse=True, return_counts=True)
    for a, e in zip(actual, expected):
        assert_close(a, e)
    assert_close(ember.tensor(values, device=device).t().unique(), torch.tensor(values).t().unique())
    unordered = ember.unique(ember.tensor(values, device=device), sorted=False)
    assert sorted(unordered.tolist()) == sorted(torch.unique(torch.tensor(values)).tolist())


def test_unique_nan_empty_and_dims(torch, device):
    nan = float("nan")
    with_nan = [3.0, nan, 1.0, nan, 3.0]
    actual = ember.unique(ember.tensor(with_nan, device=device), return_inverse=True, return_counts=True)
    expected = torch.unique(torch.tensor(with_nan), return_inverse=True, return_counts=True)
    for a, e in zip(actual, expected):
        numpy.testing.assert_array_equal(a.cpu().numpy(), e.numpy())
    empty = ember.unique(ember.zeros(0, dtype=ember.int64, device=device), return_inverse=True, return_counts=True)
    for a, e in zip(empty, torch.unique(torch.zeros(0, dtype=torch.int64), return_inverse=True, return_counts=True)):
        assert_close(a, e)
    slices = RNG.integers(0, 2, (2, 3, 4))
    for dim in range(3):
        actual = ember.unique(ember.tensor(slices, device=device), dim=dim, return_inverse=True, return_counts=True)
        expected = torch.unique(torch.tensor(slices), dim=dim, return_inverse=True, return_counts=True)
        for a, e in zip(actual, expected):
            assert_close(a, e)


@pytest.mark.parametrize("dtype", ["int64", "int32", "int8", "uint8", "bool"])
def test_integer_sorts_of_long_lines_match_pytorchs_stable_order(torch, device, dtype):
    """Note [Radix sort of integer lines]: lines of at least 256 take a radix sort; the indices of ties
    are in input order, ascending and descending, across the dtype's whole range."""
    info = numpy.iinfo(numpy.int64 if dtype == "bool" else dtype)
    values = RNG.integers(0, 2, (3, 700)) if dtype == "bool" else RNG.integers(info.min, info.max, (3, 700),
                                                                                 endpoint=True)
    values[:, ::5] = values[:, :1]
    values = values.astype(dtype)
    for dim, data in ((1, values), (0, values.T.copy())):
        for descending in (False, True):
            expected = torch.sort(torch.tensor(data), dim=dim, descending=descending, stable=True)
            actual = ember.sort(ember.tensor(data, device=device), dim=dim, descending=descending, stable=True)
            assert_close(actual.values, expected.values)
            assert_close(actual.indices, expected.indices)
