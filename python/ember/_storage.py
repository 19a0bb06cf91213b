"""Tensor.untyped_storage() and Tensor.storage(): views of the memory a
tensor lies in, for code that asks where that memory is, how big it is, or
whether two tensors share it (torch.UntypedStorage, torch.TypedStorage).

Ember's storage belongs to the core and is not a Python object, so each
call gives a new view of it; two views are the same storage when their
data_ptr() are equal, which is how PyTorch programs compare them too. The
views read; they do not resize or replace memory (resize_ raises).
Tensor.set_ points a tensor at another tensor's or a storage's memory.
"""

import warnings

from . import _C
from ._memory_format import strides_for


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


def set_(self, source=None, storage_offset=0, size=None, stride=None):
    """Makes this tensor look at `source`'s memory, keeping its own autograd
    identity: a tensor's (with its shape, strides and offset, or those given)
    or a storage's (all of it, or the size, strides and offset given); with
    no source, an empty tensor. The memory keeps its dtype: it must be this
    tensor's."""
    if self.requires_grad and self.is_leaf and _C.is_grad_enabled():
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if source is None:
        self.data = _C._zeros([0], self.dtype, self.device)
        return self
    if isinstance(source, (UntypedStorage, TypedStorage)):
        base = UntypedStorage(source._tensor)._elements()
        size = [base.shape[0] - storage_offset] if size is None else size
    elif isinstance(source, _C.Tensor):
        base = source
    else:
        raise TypeError(f"set_(): expected a Tensor or a storage as source, got {type(source).__name__}")
    if base.dtype != self.dtype:
        raise RuntimeError(f"Could not set tensor of type {str(self.dtype).removeprefix('ember.')} to a tensor of type "
                           f"{str(base.dtype).removeprefix('ember.')}")
    if size is not None:
        base = base.detach().as_strided(list(size), strides_for(list(size)) if stride is None else list(stride),
                                        storage_offset)
    self.data = base
    return self


_C.Tensor.set_ = set_
_C.Tensor.untyped_storage = untyped_storage
_C.Tensor.storage = storage
