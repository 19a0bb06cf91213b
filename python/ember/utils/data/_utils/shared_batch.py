"""Batches from DataLoader workers to the main process, their tensors and
NumPy arrays through shared memory (Note [Batches through shared memory])."""

import io
import math
import pickle
import sys
from multiprocessing import shared_memory

from .... import _C

# Note [Batches through shared memory]
# A worker pickles its batch with a Pickler whose persistent_id takes every
# tensor and NumPy array out of the stream: each gets an aligned range of one
# multiprocessing.shared_memory block for the whole batch and its bytes are
# copied there, while the pickle keeps only (dtype, shape, offset). The
# queue to the main process carries the block's name and that small pickle.
# The main process attaches the block, copies each range into a new tensor
# or array, and unlinks the block. So tensor data is never pickled, and it
# is copied once on each side. A block lives from the worker's send until
# the main process reads it; the main process reads all a worker sent before
# it lets the worker go (see _MultiProcessingIterator.shutdown), and the
# resource tracker that multiprocessing runs removes the blocks of a worker
# that was killed. The data is only ever unpickled by the process that
# started the workers, from its own workers.

_ALIGNMENT = 64


class _BatchPickler(pickle.Pickler):
    def __init__(self, stream):
        super().__init__(stream, pickle.HIGHEST_PROTOCOL)
        self.payloads = []  # (offset, tensor or array), kept alive so that ids stay unique
        self.ids = {}  # id(value) -> its persistent id, so a value sent twice arrives once
        self.nbytes = 0

    def persistent_id(self, value):
        if id(value) in self.ids:
            return self.ids[id(value)]
        if isinstance(value, _C.Tensor):
            nbytes = value.numel() * value.element_size()
            description = ("tensor", value.dtype, list(value.shape), value.requires_grad, str(value.device))
        elif _is_numpy_array(value) and not value.dtype.hasobject:
            nbytes = value.nbytes
            description = ("ndarray", value.dtype, value.shape)
        else:
            return None
        offset = -(-self.nbytes // _ALIGNMENT) * _ALIGNMENT
        self.nbytes = offset + nbytes
        self.ids[id(value)] = persistent_id = (len(self.payloads), offset, *description)
        self.payloads.append((offset, value))
        return persistent_id


def _is_numpy_array(value):
    numpy = sys.modules.get("numpy")  # without NumPy loaded there are no arrays
    return numpy is not None and isinstance(value, numpy.ndarray)


def _write(buffer, offset, value):
    numpy = sys.modules.get("numpy")
    if isinstance(value, _C.Tensor):
        if numpy is None or value.dtype == _C.bfloat16:  # NumPy has no bfloat16
            data = _C._tensor_bytes(value)
            buffer[offset:offset + len(data)] = data
            return
        value = value.numpy(force=True)
    numpy.copyto(numpy.ndarray(value.shape, value.dtype, buffer, offset), value)


def pack(value):
    """``value`` as (pickle, name of its shared block or None)."""
    stream = io.BytesIO()
    pickler = _BatchPickler(stream)
    pickler.dump(value)
    if not pickler.payloads:
        return stream.getvalue(), None
    block = shared_memory.SharedMemory(create=True, size=max(pickler.nbytes, 1))
    try:
        for offset, payload in pickler.payloads:
            _write(block.buf, offset, payload)
    except BaseException:
        block.close()
        block.unlink()
        raise
    block.close()
    return stream.getvalue(), block.name


class _BatchUnpickler(pickle.Unpickler):
    def __init__(self, stream, buffer):
        super().__init__(stream)
        self.buffer = buffer
        self.values = {}  # payload number -> value, for values sent more than once

    def persistent_load(self, persistent_id):
        number, offset, kind, *description = persistent_id
        if number not in self.values:
            self.values[number] = self._read(offset, kind, *description)
        return self.values[number]

    def _read(self, offset, kind, *description):
        if kind == "tensor":
            dtype, shape, requires_grad, device = description
            tensor = _C._tensor_from_buffer(self.buffer, offset, dtype, shape)
            if device != "cpu":
                tensor = tensor.to(_C.device(device))
            return tensor.requires_grad_() if requires_grad else tensor
        import numpy

        dtype, shape = description
        count = math.prod(shape)
        if count == 0:
            return numpy.empty(shape, dtype)
        return numpy.frombuffer(self.buffer, dtype, count, offset).reshape(shape).copy()


def unpack(packed):
    """The value pack() gave ``packed`` for; frees its shared block."""
    pickled, name = packed
    if name is None:
        return pickle.loads(pickled)
    block = shared_memory.SharedMemory(name=name)
    try:
        return _BatchUnpickler(io.BytesIO(pickled), block.buf).load()
    finally:
        block.close()
        block.unlink()


def discard(packed):
    """Frees the shared block of a packed value nobody will read."""
    _, name = packed
    if name is not None:
        block = shared_memory.SharedMemory(name=name)
        block.close()
        block.unlink()
