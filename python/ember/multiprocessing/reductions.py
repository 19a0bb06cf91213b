"""How multiprocessing's pickler sends tensors (torch.multiprocessing's
reductions): a CPU tensor moves into shared memory (Note [Shared tensors])
and travels as a descriptor of that memory plus its geometry, so the
receiving process works on the same elements; the sender's tensor stays in
shared memory afterwards, as PyTorch's does. A tensor on another device goes
as pickle sends it, a copy (ember/_tensor_pickling.py).

As with PyTorch's descriptors, a tensor put on a Queue must be received
while the sending process still runs: the descriptor is handed over by the
sender's resource sharer."""

from multiprocessing.reduction import DupFd, ForkingPickler

from .. import _C
from .._shared_memory import map_shared, share_memory_, shared_mapping_of, tensor_on_mapping
from .._tensor_pickling import dtype_name, rebuild_as, reduce_copy, tensor_state
from ..nn.parameter import Buffer, Parameter


def _rebuild_shared_tensor(cls, descriptor, nbytes, dtype_name, shape, stride, offset, requires_grad, state):
    mapping = map_shared(descriptor.detach(), nbytes)
    tensor = tensor_on_mapping(mapping, getattr(_C, dtype_name), shape, stride, offset)
    return rebuild_as(cls, tensor, requires_grad, state)


def reduce_tensor(tensor):
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError("Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd "
                           "does not support crossing process boundaries. If you just want to transfer the data, "
                           "call detach() on the tensor before serializing (e.g., putting it on the queue).")
    if tensor.device.type != "cpu":
        return reduce_copy(tensor)
    share_memory_(tensor)
    mapping = shared_mapping_of(tensor)
    offset = (tensor.data_ptr() - mapping.address) // tensor.element_size()
    return (_rebuild_shared_tensor,
            (type(tensor), DupFd(mapping.fd), len(mapping), dtype_name(tensor.dtype),
             tuple(tensor.shape), tuple(tensor.stride()), offset, tensor.requires_grad, tensor_state(tensor)))


def init_reductions():
    # The pickler's table goes by exact type: PyTorch's own subclasses are
    # listed, a user's subclass pickles as pickle does.
    for cls in (_C.Tensor, Parameter, Buffer):
        ForkingPickler.register(cls, reduce_tensor)
