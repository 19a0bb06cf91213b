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


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """obj as a tensor, sharing its memory where it can (a tensor, a NumPy
    array, a DLPack producer, a buffer: Python's buffer protocol, read as
    dtype or the default dtype), copying where it must (sequences, numbers,
    or another dtype or device) or where copy=True; copy=False refuses to
    copy, as PyTorch's asarray does."""
    from . import _factories

    if isinstance(obj, _C.Tensor):
        shared = obj
    elif hasattr(obj, "__dlpack__") and not isinstance(obj, (bytes, bytearray, memoryview)):
        shared = from_dlpack(obj)
    elif _is_buffer(obj):
        shared = frombuffer(obj, dtype=dtype or _C.get_default_dtype())
    else:
        if copy is False:
            raise ValueError(f"asarray: a {type(obj).__name__} cannot be used without a copy (copy=False)")
        result = _factories.tensor(obj, dtype=dtype, device=device)
        return result.requires_grad_() if requires_grad else result
    changes = (dtype is not None and dtype != shared.dtype) or (device is not None and
                                                               _C.device(device) != shared.device)
    converted = shared.to(device=device, dtype=dtype) if changes else shared
    if converted is not shared and copy is False:
        raise ValueError("asarray: the dtype or device asked for needs a copy, and copy=False refuses one")
    if copy and converted is shared:
        converted = shared.clone()
    return converted.requires_grad_() if requires_grad else converted


def _is_buffer(obj):
    if isinstance(obj, (str, int, float, complex, list, tuple)):
        return False
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True
