"""Tensors through pickle: `pickle.dumps(tensor)`, `copy.copy`, tensors in
the arguments of a process started with spawn or forkserver.

A pickled tensor carries its elements' bytes in row-major order, its shape,
dtype, device, requires_grad, class and attributes; it loads as a new leaf
with memory of its own (a non-CPU tensor goes back to its device, which must
exist where it is loaded). Unlike PyTorch's, each tensor carries its own
copy: two views of one storage pickled together load as two separate
tensors. Multiprocessing's pickler sends CPU tensors through shared memory
instead (ember/multiprocessing/reductions.py).

`ember.save` never pickles (ember/serialization.py): this is for Python's own
plumbing, and like every pickle it must only be loaded from a trusted source.
"""

from . import _C
from ._C import Tensor


def tensor_state(tensor):
    """The attributes a subclass or a user set on the tensor, as pickle keeps them."""
    return dict(tensor.__dict__) if hasattr(tensor, "__dict__") else {}


def rebuild_as(cls, tensor, requires_grad, state):
    """`tensor` (a new leaf) as an instance of `cls` with `state` set."""
    if cls is not Tensor:
        tensor = tensor.as_subclass(cls)
    if requires_grad:
        tensor.requires_grad_(True)
    for name, value in state.items():
        setattr(tensor, name, value)
    return tensor


def _rebuild_tensor(cls, payload, dtype_name, shape, device, requires_grad, state):
    dtype = getattr(_C, dtype_name)
    if payload is None:
        tensor = _C._empty(list(shape), dtype, _C.device(device))
    else:
        tensor = _C._tensor_from_buffer(payload, 0, dtype, list(shape))
        if device != "cpu":
            tensor = tensor.to(device)
    return rebuild_as(cls, tensor, requires_grad, state)


def dtype_name(dtype):
    return str(dtype).rsplit(".", 1)[-1]


def reduce_copy(tensor):
    """The pickle reduction of a tensor that carries a copy of its elements."""
    payload = None if tensor.device.type == "meta" else _C._tensor_bytes(tensor.detach())
    return (_rebuild_tensor, (type(tensor), payload, dtype_name(tensor.dtype), tuple(tensor.shape),
                              str(tensor.device), tensor.requires_grad, tensor_state(tensor)))


Tensor.__reduce_ex__ = lambda self, protocol: reduce_copy(self)
