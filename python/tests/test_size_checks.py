"""Sizes, strides and offsets whose products or sums pass int64 raise
PyTorch's RuntimeError (Note [Checked size arithmetic]); before, each of
these crashed, or made a view into another tensor's memory."""

import pytest

import ember


@pytest.mark.parametrize("make", [
    lambda: ember.zeros(2**62),
    lambda: ember.arange(0, 2**61),
    lambda: ember.rand(2**62),
    lambda: ember.ones(1).expand(2**62).contiguous(),
    lambda: ember.mm(ember.ones(2**31, 0), ember.ones(0, 2**31)),
    lambda: ember.empty(2**32, 2**32),
    lambda: ember.linspace(0, 1, 2**62),
    lambda: ember.full((2**62,), 1.0),
    lambda: ember.empty(2**61, device="meta"),
    lambda: ember.eye(2**32),
], ids=["zeros", "arange", "rand", "contiguous", "mm", "empty", "linspace", "full", "meta", "eye"])
def test_storages_past_int64_bytes(make):
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed with sizes="):
        make()


@pytest.mark.parametrize("make", [
    lambda: ember.ones(1, 1).expand(2**32, 2**32),
    lambda: ember.ones(1).expand(2**62).unsqueeze(0).expand(4, 2**62),
], ids=["expand", "expand-twice"])
def test_element_counts_past_int64(make):
    with pytest.raises(RuntimeError, match="integer multiplication overflow"):
        make()


def test_as_strided_cannot_reach_another_tensors_memory():
    x = ember.zeros(4)
    neighbour = ember.full((4,), 7.0)
    for stride in (2**62 + 1, 2**62 + 4, 2**63 - 1, 2**63 - 4):
        with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
            x.as_strided([3], [stride])
    with pytest.raises(RuntimeError, match="negative sizes or strides"):
        x.as_strided([3], [-1])
    assert x.tolist() == [0.0] * 4 and neighbour.tolist() == [7.0] * 4


def test_narrow_slice_and_view_bounds():
    x = ember.arange(6.0).reshape(2, 3)
    with pytest.raises(RuntimeError, match=r"start \(1\) \+ length \(9223372036854775807\) exceeds"):
        x.narrow(1, 1, 2**63 - 1)
    with pytest.raises(IndexError, match="start out of range"):
        x.narrow(1, -2**63, 1)
    # A step past the size leaves one element, as Python's slicing does.
    assert x[::2**63 - 1].shape == (1, 3) and x[::2**63 - 1].tolist() == [[0.0, 1.0, 2.0]]
    assert x[:, 1::2**62].tolist() == [[1.0], [4.0]]
    assert x[2**63 - 1:].shape == (0, 3)
    wide = ember.ones(1).expand(2**62)
    assert wide.view(-1).shape == (2**62,)
    with pytest.raises(RuntimeError, match="is invalid for input of size 0"):
        ember.empty(0).view(2**62, 2**62, 0)
