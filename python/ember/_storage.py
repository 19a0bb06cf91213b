"""Tensor.untyped_storage() and Tensor.storage(): views of the memory a
tensor lies in, for code that asks where that memory is, how big it is, or
whether two tensors share it (torch.UntypedStorage, torch.TypedStorage).

Ember's storage belongs to the core and is not a Python object, so each
call gives a new view of it; two views are the same storage when their
data_ptr() are equal, which is how PyTorch programs compare them too. The
views read; they do not resize or replace memory (resize_ raises).
"""

import warnings

from . import _C


class UntypedStorage:
    """The bytes a tensor's elements lie in, from the first to the last of its storage."""

    def __init__(self, tensor):
        self._tensor = tensor
        self._address, self._nbytes = _C._storage_extent(tensor)

    @property
    def device(self):
        return self._tensor.device

    def data_ptr(self):
        return self._address

    def nbytes(self):
        return self._nbytes

    def size(self):
        return self._nbytes

    __len__ = size

    def element_size(self):
        return 1

    def is_shared(self):
        return self._tensor.is_shared()

    def _elements(self):
        """The whole storage as a 1-d tensor of the tensor's dtype."""
        tensor = self._tensor.detach()
        return tensor.as_strided([self._nbytes // tensor.element_size()], [1], 0)

    def tolist(self):
        return list(_C._tensor_bytes(self._elements()))

    def resize_(self, size):
        raise NotImplementedError("UntypedStorage.resize_: Ember's tensors own their storage through the core; "
                                  "make a new tensor instead")

    def __repr__(self):
        return f" {self._nbytes} bytes\n[ember.storage.UntypedStorage(device={self.device}) of size {self._nbytes}]"


class TypedStorage:
    """The elements of a tensor's storage in its dtype (deprecated in PyTorch, as here)."""

    def __init__(self, tensor):
        self._untyped = UntypedStorage(tensor)
        self.dtype = tensor.dtype

    @property
    def device(self):
        return self._untyped.device

    def data_ptr(self):
        return self._untyped.data_ptr()

    def nbytes(self):
        return self._untyped.nbytes()

    def element_size(self):
        return self.dtype.itemsize

    def size(self):
        return self._untyped.nbytes() // self.dtype.itemsize

    __len__ = size

    def untyped(self):
        return self._untyped

    def is_shared(self):
        return self._untyped.is_shared()

    def tolist(self):
        return self._untyped._elements().tolist()


def untyped_storage(self):
    return UntypedStorage(self)


def storage(self):
    warnings.warn("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only "
                  "storage class. This should only matter to you if you are using storages directly.  To access "
                  "UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()", UserWarning,
                  stacklevel=2)
    return TypedStorage(self)


_C.Tensor.untyped_storage = untyped_storage
_C.Tensor.storage = storage
