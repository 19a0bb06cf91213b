"""Tensor.untyped_storage() and Tensor.storage() against PyTorch: the
storage's address, size and bytes, shared by views, and the deprecation
warning of TypedStorage."""

import warnings

import pytest

import ember


def storage_report(torch):
    report = []
    t = torch.arange(10.0)[2:6]
    untyped = t.untyped_storage()
    report.append((type(untyped).__name__, untyped.nbytes(), untyped.size(), untyped.data_ptr() == t.data_ptr() - 8,
                   untyped.element_size(), str(untyped.device), len(untyped), untyped.is_shared()))
    with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
        typed = t.storage()
    report.append((type(typed).__name__, typed.size(), str(typed.dtype).split(".")[-1],
                   typed.data_ptr() == untyped.data_ptr(), len(typed), typed.tolist()[:3], typed.element_size(),
                   typed.nbytes()))
    report.append((t.untyped_storage().data_ptr() == t[1:].untyped_storage().data_ptr(),
                   torch.ones(2).untyped_storage().data_ptr() != t.untyped_storage().data_ptr()))
    report.append(torch.tensor([1, 2], dtype=torch.uint8).untyped_storage().tolist())
    report.append((t.view(2, 2).t().untyped_storage().nbytes(), isinstance(untyped, torch.UntypedStorage)))
    return report


def test_storages_report_what_pytorchs_report(torch):
    assert storage_report(ember) == storage_report(torch)


def test_a_storage_view_does_not_resize():
    with pytest.raises(NotImplementedError, match="resize_"):
        ember.ones(2).untyped_storage().resize_(0)
    assert ember.ones(3).share_memory_().untyped_storage().is_shared()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ember.ones(2).untyped_storage()  # only the typed storage is deprecated
