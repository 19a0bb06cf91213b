"""Tensors over memory that others own, without a copy: from_dlpack takes
anything with ``__dlpack__`` (NumPy arrays, PyTorch tensors, other Ember
tensors) or a raw "dltensor" capsule, and Tensor.__dlpack__ (C++) goes the
other way; frombuffer takes any object with Python's buffer protocol."""

from . import _C


def from_dlpack(ext_tensor):
    """A tensor sharing ``ext_tensor``'s memory."""
    if hasattr(ext_tensor, "__dlpack__"):
        try:
            capsule = ext_tensor.__dlpack__(max_version=(1, 0))
        except TypeError:  # a producer from before DLPack 1.0
            capsule = ext_tensor.__dlpack__()
    else:
        capsule = ext_tensor
    return _C._from_dlpack_capsule(capsule)


def from_numpy(ndarray):
    """A tensor sharing ``ndarray``'s memory; writes through either show in both."""
    import numpy

    if not isinstance(ndarray, numpy.ndarray):
        raise TypeError(f"from_numpy: expected numpy.ndarray, got {type(ndarray).__name__}")
    if not ndarray.flags.writeable:
        raise ValueError("from_numpy: the array is read-only and a tensor would write to it; pass a copy")
    return from_dlpack(ndarray)


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor sharing the memory of ``buffer`` (bytes, bytearray,
    array.array, mmap, memoryview, ...): ``count`` elements of ``dtype``
    (all that fit when -1) from byte ``offset`` on. The tensor keeps the
    buffer alive; a read-only buffer (bytes) gives a tensor that refuses
    in-place writes, where PyTorch warns and lets them through."""
    tensor = _C._tensor_sharing_buffer(buffer, dtype, count, offset)
    if requires_grad:
        tensor.requires_grad_(True)
    return tensor
