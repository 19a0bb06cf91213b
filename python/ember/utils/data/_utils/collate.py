"""default_collate (a list of samples to a batch) and default_convert (one
sample's NumPy values to tensors), with PyTorch's rules: tensors and NumPy
arrays stack along a new first dim, numbers become a tensor (floats in
float64), strings stay as they are, and mappings, named tuples and
sequences are collated field by field."""

import collections.abc
import re

from .... import _C, _factories, _ops

_COLLATE_ERROR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
# NumPy dtypes of strings and objects (dtype.str like '<U1', '|S3', '|O'),
# which no tensor can hold.
_NUMPY_TEXT_OR_OBJECT = re.compile(r"[SaUO]")


def _is_numpy(value):
    return type(value).__module__ == "numpy" and type(value).__name__ not in ("str_", "bytes_", "string_")


def _is_namedtuple(value):
    return isinstance(value, tuple) and hasattr(value, "_fields")


def _rebuilt(sample, items):
    """A mapping or sequence of ``sample``'s type holding ``items``, or a plain
    dict or list where that type cannot be built from one."""
    try:
        return type(sample)(items)
    except TypeError:
        return dict(items) if isinstance(sample, collections.abc.Mapping) else list(items)


def default_collate(batch):
    """Turns a list of samples into a batch (see the module docstring)."""
    sample = batch[0]
    if isinstance(sample, _C.Tensor):
        return _ops.stack(list(batch), 0)
    if _is_numpy(sample):
        if sample.ndim > 0 or type(sample).__name__ in ("ndarray", "memmap"):
            if _NUMPY_TEXT_OR_OBJECT.search(sample.dtype.str):
                raise TypeError(_COLLATE_ERROR.format(sample.dtype))
            return default_collate([_factories.as_tensor(array) for array in batch])
        import numpy  # NumPy scalars: one array keeps their dtype

        return _factories.as_tensor(numpy.array(batch))
    if isinstance(sample, float):
        return _factories.tensor(batch, dtype=_C.float64)
    if isinstance(sample, int):
        return _factories.tensor(batch)
    if isinstance(sample, (str, bytes)):
        return batch
    if isinstance(sample, collections.abc.Mapping):
        return _rebuilt(sample, {key: default_collate([d[key] for d in batch]) for key in sample})
    if _is_namedtuple(sample):
        return type(sample)(*(default_collate(field) for field in zip(*batch)))
    if isinstance(sample, collections.abc.Sequence):
        if any(len(item) != len(sample) for item in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        fields = [default_collate(field) for field in zip(*batch)]
        # A tuple sample gives a list of fields, as in PyTorch.
        return fields if isinstance(sample, tuple) else _rebuilt(sample, fields)
    raise TypeError(_COLLATE_ERROR.format(type(sample)))


def default_convert(data):
    """One sample with its NumPy arrays and scalars made tensors (the
    ``collate_fn`` of a DataLoader with ``batch_size=None``)."""
    if isinstance(data, _C.Tensor):
        return data
    if _is_numpy(data):
        if type(data).__name__ in ("ndarray", "memmap") and _NUMPY_TEXT_OR_OBJECT.search(data.dtype.str):
            return data
        return _factories.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuilt(data, {key: default_convert(value) for key, value in data.items()})
    if _is_namedtuple(data):
        return type(data)(*(default_convert(value) for value in data))
    if isinstance(data, tuple):
        return [default_convert(value) for value in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuilt(data, [default_convert(value) for value in data])
    return data
