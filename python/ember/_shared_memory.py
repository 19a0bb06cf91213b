"""CPU tensors in memory that other processes map too: Tensor.share_memory_()
and Tensor.is_shared(), under Module.share_memory() and the tensors
multiprocessing sends (ember/multiprocessing/reductions.py); Note [Shared
tensors] below says how."""

import mmap
import os
import tempfile
import weakref

from . import _C
from ._dlpack import frombuffer

# Note [Shared tensors]
# share_memory_() moves a tensor's elements into an anonymous shared mapping
# (a memfd on Linux, an unlinked temporary file elsewhere) and repoints the
# tensor to it, as `tensor.data = ...` does, so the tensor object, its
# requires_grad and its grad stay; its strides become row-major. The mapping's
# file descriptor stays open while a tensor uses the mapping: another process
# receives a duplicate of it (multiprocessing passes descriptors to spawned
# children and over its resource sharer) and maps the same pages, so in-place
# writes on either side show on both, as Hogwild training needs. No file name
# exists, so nothing is left behind when the processes end, however they end.
# PyTorch moves a tensor's whole storage; Ember moves the tensor's own
# elements, so other views taken from it before the move keep the private
# memory.


class SharedMapping(mmap.mmap):
    """A shared mapping of a whole descriptor, which it keeps open (`fd`)
    to hand to other processes, and the address its first byte has here."""

    fd = -1
    address = 0


def _anonymous_file(nbytes):
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("ember-shared-tensor", os.MFD_CLOEXEC)
    else:
        with tempfile.TemporaryFile(dir="/dev/shm" if os.path.isdir("/dev/shm") else None) as file:
            fd = os.dup(file.fileno())
    try:
        os.ftruncate(fd, nbytes)
    except BaseException:
        os.close(fd)
        raise
    return fd


def map_shared(fd, nbytes):
    """Maps `nbytes` of descriptor `fd`, which the mapping then owns."""
    try:
        mapping = SharedMapping(fd, nbytes)
    except BaseException:
        os.close(fd)
        raise
    mapping.fd = fd
    weakref.finalize(mapping, os.close, fd)
    return mapping


def tensor_on_mapping(mapping, dtype, shape, stride, offset):
    """A tensor over `mapping`'s elements of `dtype`, a view with the given geometry."""
    flat = frombuffer(mapping, dtype=dtype, count=len(mapping) // dtype.itemsize)
    if not mapping.address:
        mapping.address = flat.data_ptr()
    return flat.as_strided(list(shape), list(stride), offset)


def shared_mapping_of(tensor):
    """The SharedMapping a tensor's memory is in, or None."""
    owner = _C._buffer_owner(tensor)
    return owner if isinstance(owner, SharedMapping) else None


def is_shared(self):
    """Whether the tensor's memory is a shared mapping (share_memory_)."""
    return shared_mapping_of(self) is not None


def share_memory_(self):
    """Moves a CPU tensor's elements into shared memory (Note [Shared
    tensors]); a tensor already there, or on another device, stays."""
    if self.device.type != "cpu" or is_shared(self):
        return self
    # A mapping cannot be empty: an empty tensor takes one element's bytes.
    nbytes = max(self.numel(), 1) * self.element_size()
    mapping = map_shared(_anonymous_file(nbytes), nbytes)
    shared = tensor_on_mapping(mapping, self.dtype, [self.numel()], [1], 0).view(list(self.shape))
    shared.copy_(self.detach())
    self.data = shared
    return self


_C.Tensor.share_memory_ = share_memory_
_C.Tensor.is_shared = is_shared
