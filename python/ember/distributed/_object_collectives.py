"""torch.distributed's object collectives: `all_gather_object`,
`broadcast_object_list`, `gather_object`, `scatter_object_list`,
`send_object_list` and `recv_object_list`.

Each object is pickled into a uint8 tensor; the byte counts travel first
(an int64 collective), every rank pads its bytes to the largest count where
the tensor collective needs equal sizes, and each receiver unpickles a
rank's bytes trimmed to that rank's count. Tensors inside an object travel
as pickle carries them (ember/_tensor_pickling.py): dtype, shape, device and
bytes.

Unpickling runs whatever code the pickled bytes name, so these collectives
are for peers whose objects are trusted, as in PyTorch.
"""

import pickle
import warnings

from .. import _C
from .distributed_c10d import (GroupMember, _engines, _group, _root, all_gather_into_tensor, broadcast, gather, recv,
                               scatter, send)

__all__ = ["all_gather_object", "broadcast_object_list", "gather_object", "scatter_object_list",
           "send_object_list", "recv_object_list"]


def _object_to_bytes(obj, device):
    data = pickle.dumps(obj)
    return _C._tensor_from_buffer(data, 0, _C.uint8, [len(data)]).to(device)


def _bytes_to_object(byte_tensor):
    return pickle.loads(_C._tensor_bytes(byte_tensor.cpu()))


def _padded(byte_tensor, size):
    from .. import cat, zeros
    return cat([byte_tensor, zeros(size - byte_tensor.numel(), dtype=_C.uint8, device=byte_tensor.device)])


def _objects_from(byte_tensor, sizes):
    """The objects whose bytes lie one after another in `byte_tensor`."""
    objects, offset = [], 0
    for size in sizes:
        objects.append(_bytes_to_object(byte_tensor[offset:offset + size]))
        offset += size
    return objects


def _device(group, device):
    """As torch picks it: the group's CPU engine's tensors, or the device
    of its only engine (an NCCL group's GPU)."""
    if device is not None:
        return _C.device(device) if isinstance(device, str) else device
    engines = _engines(_group(group)._backend)
    return _C.device("cpu" if "" in engines else next(iter(engines)))


def _is_member(group, name):
    if group is GroupMember.NON_GROUP_MEMBER:
        warnings.warn(f"Running {name} on global rank {_group(None).rank()} which does not belong to the given "
                      "group.", stacklevel=3)
        return False
    return True


def _group_peer(group, rank, group_rank, name):
    """The group rank that torch's (global rank, group rank) pair names:
    exactly one of them, the global one as the group counts it."""
    if group_rank is not None:
        if rank is not None:
            raise ValueError("Can't specify both group_rank and global_rank")
        return group_rank
    if rank is None:
        raise ValueError("Must specify global_rank or group_rank")
    return _root(group, rank, name)


def _not_self(group, group_rank, role):
    if _group(group).rank() == group_rank:
        raise ValueError(f"Invalid {role} rank: {role} rank should not be the same as the rank of the current "
                         "process.")


def _all_sizes(byte_tensor, group):
    """Every rank's byte count, in group rank order."""
    from .. import empty, tensor
    sizes = empty(_group(group).size(), dtype=_C.int64, device=byte_tensor.device)
    all_gather_into_tensor(sizes, tensor([byte_tensor.numel()], dtype=_C.int64, device=byte_tensor.device),
                           group=group)
    return sizes.tolist()


def all_gather_object(object_list, obj, group=None):
    """Sets `object_list[i]` to group rank i's `obj` on every rank; the list
    holds one entry per rank. Unpickles the peers' objects: call it only
    with trusted peers."""
    from .. import empty
    if not _is_member(group, "all_gather_object"):
        return
    mine = _object_to_bytes(obj, _device(group, None))
    sizes = _all_sizes(mine, group)
    width = max(sizes)
    gathered = empty(width * len(sizes), dtype=_C.uint8, device=mine.device)
    all_gather_into_tensor(gathered, _padded(mine, width), group=group)
    for i, size in enumerate(sizes):
        object_list[i] = _bytes_to_object(gathered[i * width:i * width + size])


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """Sets `object_gather_list[i]` to group rank i's `obj` on the
    destination (global rank `dst` or group rank `group_dst`, global rank
    0 by default); other ranks pass no list. Unpickles the peers' objects:
    call it only with trusted peers."""
    from .. import empty
    if not _is_member(group, "gather_object"):
        return
    root = _group_peer(group, 0 if dst is None and group_dst is None else dst, group_dst, "dst")
    is_root = _group(group).rank() == root
    if is_root and not object_gather_list:
        raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    if not is_root and object_gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    mine = _object_to_bytes(obj, _device(group, None))
    sizes = _all_sizes(mine, group)
    width = max(sizes)
    gathered = [empty(width, dtype=_C.uint8, device=mine.device) for _ in sizes] if is_root else None
    gather(_padded(mine, width), gathered, group=group, group_dst=root)
    if is_root:
        for i, (size, padded) in enumerate(zip(sizes, gathered)):
            object_gather_list[i] = _bytes_to_object(padded[:size])


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Replaces every rank's `object_list` entries by the source's (global
    rank `src` or group rank `group_src`, global rank 0 by default); each
    rank's list has the source's length. `device` is where the bytes
    travel from. Unpickles the source's objects: call it only with a trusted
    source."""
    from .. import cat, empty, tensor
    if not _is_member(group, "broadcast_object_list"):
        return
    root = _group_peer(group, 0 if src is None and group_src is None else src, group_src, "src")
    device = _device(group, device)
    is_root = _group(group).rank() == root
    if is_root:
        pieces = [_object_to_bytes(obj, device) for obj in object_list]
        sizes = tensor([piece.numel() for piece in pieces], dtype=_C.int64, device=device)
    else:
        sizes = empty(len(object_list), dtype=_C.int64, device=device)
    broadcast(sizes, group=group, group_src=root)
    if is_root:
        broadcast(cat(pieces) if pieces else empty(0, dtype=_C.uint8, device=device), group=group, group_src=root)
        return
    data = empty(sum(sizes.tolist()), dtype=_C.uint8, device=device)
    broadcast(data, group=group, group_src=root)
    object_list[:] = _objects_from(data, sizes.tolist())


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None, group=None,
                        group_src=None):
    """Sets `scatter_object_output_list[0]` on group rank i to the source's
    `scatter_object_input_list[i]` (the source: global rank `src` or group
    rank `group_src`, global rank 0 by default). Unpickles the source's
    object: call it only with a trusted source."""
    from .. import empty, tensor
    if not _is_member(group, "scatter_object_list"):
        return
    root = _group_peer(group, 0 if src is None and group_src is None else src, group_src, "src")
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at least 1.")
    group_size = _group(group).size()
    device = _device(group, None)
    pieces = None
    if _group(group).rank() == root:
        if scatter_object_input_list is None:
            raise ValueError("source rank must provide non-None scatter_object_input_list")
        if len(scatter_object_input_list) != group_size:
            raise ValueError(f"scatter_object_list: the source's scatter_object_input_list has "
                             f"{len(scatter_object_input_list)} objects for a group of {group_size} ranks")
        pieces = [_object_to_bytes(obj, device) for obj in scatter_object_input_list]
        sizes = tensor([piece.numel() for piece in pieces], dtype=_C.int64, device=device)
    else:
        sizes = empty(group_size, dtype=_C.int64, device=device)
    broadcast(sizes, group=group, group_src=root)
    sizes = sizes.tolist()
    width = max(sizes)
    mine = empty(width, dtype=_C.uint8, device=device)
    scatter(mine, [_padded(piece, width) for piece in pieces] if pieces else None, group=group, group_src=root)
    scatter_object_output_list[0] = _bytes_to_object(mine[:sizes[_group(group).rank()]])


def send_object_list(object_list, dst=None, group=None, device=None, group_dst=None):
    """Sends `object_list` to global rank `dst` (or group rank `group_dst`),
    which calls `recv_object_list` with a list of the same length. `device`
    is where the bytes travel from."""
    from .. import cat, empty, tensor
    if not _is_member(group, "send_object_list"):
        return
    peer = _group_peer(group, dst, group_dst, "dst")
    _not_self(group, peer, "destination")
    device = _device(group, device)
    pieces = [_object_to_bytes(obj, device) for obj in object_list]
    send(tensor([piece.numel() for piece in pieces], dtype=_C.int64, device=device), group=group, group_dst=peer)
    send(cat(pieces) if pieces else empty(0, dtype=_C.uint8, device=device), group=group, group_dst=peer)


def recv_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Replaces `object_list`'s entries by those global rank `src` (or
    group rank `group_src`) sent with `send_object_list`, and returns the
    sender's global rank (-1 on a rank outside `group`). Unpickles the
    sender's objects: call it only with a trusted sender."""
    from .. import empty
    if not _is_member(group, "recv_object_list"):
        return -1
    peer = _group_peer(group, src, group_src, "src")
    _not_self(group, peer, "source")
    device = _device(group, device)
    sizes = empty(len(object_list), dtype=_C.int64, device=device)
    recv(sizes, group=group, group_src=peer)
    data = empty(sum(sizes.tolist()), dtype=_C.uint8, device=device)
    sender = recv(data, group=group, group_src=peer)
    object_list[:] = _objects_from(data, sizes.tolist())
    return sender
