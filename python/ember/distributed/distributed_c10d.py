"""Process groups and collectives, with torch.distributed's names and
behaviour: `init_process_group`, `new_group`, `all_reduce`, `broadcast`,
`all_gather`, `reduce_scatter_tensor`, `send`/`recv` and the rest.

A group runs on collective engines, which are plugins ("gloo" for CPU
tensors and, staged through host memory, for every device without an
engine of its own). Each collective is queued on the group's worker thread;
`async_op=True` returns its `Work`, anything else waits for it. Errors name
the collective, its sequence number, the rank and the operands; a peer that
failed or stopped is named too.
"""

import datetime
import os

from .. import _C
from .._tensor import Tensor
from .rendezvous import rendezvous

_D = _C._distributed
ReduceOp = _D.ReduceOp

_DEFAULT_TIMEOUT = datetime.timedelta(minutes=30)
_DEBUG_VARIABLE = "EMBER_DISTRIBUTED_DEBUG"

__all__ = ["ReduceOp", "is_available", "is_initialized", "is_gloo_available", "is_nccl_available",
           "is_torchelastic_launched", "init_process_group", "destroy_process_group", "new_group", "get_rank",
           "get_world_size", "get_backend", "get_group_rank", "get_global_rank", "get_process_group_ranks",
           "all_reduce", "broadcast", "reduce", "all_gather_into_tensor", "all_gather",
           "reduce_scatter_tensor", "reduce_scatter", "gather", "scatter", "all_to_all_single", "all_to_all",
           "isend", "irecv", "send", "recv", "barrier", "monitored_barrier", "Backend", "Work",
           "ProcessGroup", "GroupMember", "group", "is_backend_available", "is_mpi_available", "is_ucc_available",
           "is_xccl_available", "get_node_local_rank", "P2POp", "batch_isend_irecv", "new_subgroups",
           "new_subgroups_by_enumeration", "all_reduce_coalesced"]


class Backend(str):
    """A backend name as torch spells them: "gloo", "nccl", or per device
    type "cpu:gloo,cuda:nccl"."""

    GLOO = "gloo"
    NCCL = "nccl"
    UNDEFINED = "undefined"

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError(f"Backend name must be a string, but got: {name!r}")
        return super().__new__(cls, name.lower())


class Work:
    """An asynchronous collective (torch.distributed.Work)."""

    def __init__(self, handle, tensors=None, finish=None):
        self._handle = handle
        self._tensors = tensors
        self._finish = finish

    def wait(self, timeout=None):
        seconds = 0.0 if timeout is None else _seconds(timeout)
        self._handle.wait(seconds)
        if self._finish is not None:
            finish, self._finish = self._finish, None
            finish()
        return True

    def is_completed(self):
        return self._handle.is_completed()

    def is_success(self):
        return self._handle.is_success()

    def exception(self):
        if not self._handle.has_exception():
            return None
        try:
            self._handle.wait(0.0)
        except Exception as error:  # the collective's own error, as torch returns it
            return error
        return None

    def result(self):
        return list(self._tensors) if self._tensors is not None else self._handle.result()

    def get_future(self):
        """A future of the collective's output tensors, settled by waiting for this work."""
        from ..futures import Future

        def settle():
            self.wait()
            return self.result()

        return Future(_settle=settle)

    def __repr__(self):
        return repr(self._handle)


class ProcessGroup:
    """One rank's membership of a group; `rank()` and `size()` as torch's."""

    def __init__(self, handle, global_ranks, backend):
        self._handle = handle
        self._global_ranks = list(global_ranks)
        self._backend = backend

    def rank(self):
        return self._handle.rank

    def size(self):
        return self._handle.size

    def name(self):
        return self._handle.name

    def __repr__(self):
        return f"<ember.distributed.ProcessGroup {self._handle.name!r} rank {self.rank()} of {self.size()}>"


class GroupMember:
    """torch's sentinels: `WORLD` (the default group) and `NON_GROUP_MEMBER`,
    what new_group returns to ranks outside it."""

    WORLD = None
    NON_GROUP_MEMBER = object()


# torch.distributed.group.WORLD is the default group, as GroupMember.WORLD.
group = GroupMember


class _State:
    store = None
    groups = []
    group_count = 0


def _seconds(timeout):
    if isinstance(timeout, datetime.timedelta):
        return timeout.total_seconds()
    return float(timeout)


def _engines(backend):
    """"gloo" → {"": "gloo"}; "cpu:gloo,cuda:nccl" → per device type."""
    engines = {}
    for part in str(backend).split(","):
        part = part.strip()
        if not part:
            continue
        if ":" in part:
            device_type, engine = part.split(":", 1)
            engines[device_type.strip()] = engine.strip()
        else:
            engines[""] = part
    if not engines:
        raise ValueError(f"init_process_group: backend {backend!r} names no engine")
    if "" not in engines and "cpu" in engines:
        engines[""] = engines["cpu"]
    return engines


def _debug_flags():
    mode = os.environ.get(_DEBUG_VARIABLE, "INFO").upper()
    if mode not in ("OFF", "INFO", "DETAIL"):
        raise ValueError(f"{_DEBUG_VARIABLE} must be OFF, INFO or DETAIL, got {mode!r}")
    return mode != "OFF", mode == "DETAIL"


def _default_backend():
    """As torch picks it: NCCL for CUDA tensors where it can run, Gloo for
    the rest."""
    from .. import cuda
    if is_nccl_available() and cuda.is_available():
        return "cpu:gloo,cuda:nccl"
    return "gloo"


def is_available():
    return True


def is_initialized():
    return GroupMember.WORLD is not None


def is_gloo_available():
    return any(engine["name"] == "gloo" for engine in _D.collective_engines())


def is_nccl_available():
    return any(engine["name"] == "nccl" for engine in _D.collective_engines())


def is_backend_available(backend):
    """Whether a collective engine of that name (gloo, nccl) is loaded."""
    return any(engine["name"] == str(backend).lower() for engine in _D.collective_engines())


def is_mpi_available():
    return False


def is_ucc_available():
    return False


def is_xccl_available():
    return False


def get_node_local_rank(fallback_rank=None):
    """This process's rank on its machine, from LOCAL_RANK (which ember-run sets)."""
    if "LOCAL_RANK" in os.environ:
        return int(os.environ["LOCAL_RANK"])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError("LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow "
                       "`get_node_local_rank` to work, assuming you are not running in a multi-device context and "
                       "want the code to run locally instead.")


def is_torchelastic_launched():
    return os.environ.get("EMBER_STORE_HOSTED") == "1"


def _world():
    if GroupMember.WORLD is None:
        raise ValueError("Default process group has not been initialized, please make sure to call "
                         "init_process_group.")
    return GroupMember.WORLD


def _group(group):
    if group is None or group is GroupMember.WORLD:
        return _world()
    if group is GroupMember.NON_GROUP_MEMBER:
        raise ValueError("this rank is not a member of the group it passed")
    if not isinstance(group, ProcessGroup):
        raise TypeError(f"group must be a ProcessGroup, got {type(group).__name__}")
    return group


def _make_group(store, rank, world_size, backend, timeout, name, global_ranks):
    check, log = _debug_flags()
    handle = _D.ProcessGroup(store, rank, world_size, _seconds(timeout), _engines(backend), name, check, log,
                             os.environ.get("EMBER_DISTRIBUTED_HOSTNAME", "127.0.0.1"))
    group = ProcessGroup(handle, global_ranks, Backend(backend))
    _State.groups.append(group)
    return group


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    """Joins the default group; blocks until every rank joined or `timeout`
    (30 minutes by default) passed."""
    if GroupMember.WORLD is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if store is not None and init_method is not None:
        raise ValueError("Cannot specify both init_method and store.")
    timeout = _DEFAULT_TIMEOUT if timeout is None else timeout
    if not isinstance(timeout, datetime.timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {type(timeout).__name__}")
    backend = _default_backend() if backend is None else backend
    if store is None:
        store, rank, world_size = rendezvous(init_method or "env://", rank, world_size, timeout)
    elif rank < 0 or world_size <= 0:
        raise ValueError("world_size and rank must be given with store")
    store.set_timeout(timeout)
    _State.store = store
    GroupMember.WORLD = _make_group(store, rank, world_size, backend, timeout, group_name or "default",
                                    range(world_size))


def destroy_process_group(group=None):
    """Ends `group` (every group, for the default one): what is in flight
    fails, naming the shutdown."""
    if group is None or group is GroupMember.WORLD:
        for member in reversed(_State.groups):
            member._handle.shutdown()
        _State.groups = []
        _State.store = None
        GroupMember.WORLD = None
        return
    if group is GroupMember.NON_GROUP_MEMBER:
        return
    group._handle.shutdown()
    _State.groups = [g for g in _State.groups if g is not group]


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None):
    """A group of some ranks; every rank of the default group calls it, with
    the same ranks, as under torch. Ranks outside it get NON_GROUP_MEMBER."""
    world = _world()
    _State.group_count += 1
    name = f"group{_State.group_count}"
    ranks = sorted(range(world.size()) if ranks is None else ranks)
    if len(set(ranks)) != len(ranks) or any(r < 0 or r >= world.size() for r in ranks):
        raise ValueError(f"new_group: ranks {ranks} must be distinct ranks of the world of {world.size()}")
    me = get_rank()
    if me not in ranks:
        return GroupMember.NON_GROUP_MEMBER
    return _make_group(_State.store, ranks.index(me), len(ranks), backend or world._backend,
                       timeout or _DEFAULT_TIMEOUT, name, ranks)


def new_subgroups_by_enumeration(ranks_per_subgroup_list, timeout=None, backend=None, pg_options=None,
                                 group_desc=None):
    """(this rank's subgroup, every subgroup) for disjoint lists of ranks; every rank calls it."""
    seen = [r for ranks in ranks_per_subgroup_list for r in ranks]
    if len(set(seen)) != len(seen):
        raise ValueError(f"new_subgroups_by_enumeration: a rank appears in more than one subgroup: "
                         f"{ranks_per_subgroup_list}")
    groups = [new_group(ranks, timeout=timeout, backend=backend) for ranks in ranks_per_subgroup_list]
    mine = next((g for g in groups if g is not GroupMember.NON_GROUP_MEMBER), None)
    return mine, groups


def new_subgroups(group_size=None, group=None, timeout=None, backend=None, pg_options=None, group_desc=None):
    """(this rank's subgroup, every subgroup) of consecutive ranks, group_size each (the ranks of one node,
    LOCAL_WORLD_SIZE, by default)."""
    world = get_world_size(group)
    if group_size is None:
        group_size = int(os.environ.get("LOCAL_WORLD_SIZE", world))
    if group_size <= 0 or world % group_size:
        raise ValueError(f"new_subgroups: the world size {world} must be a multiple of a positive group_size, got "
                         f"{group_size}")
    return new_subgroups_by_enumeration([list(range(start, start + group_size))
                                         for start in range(0, world, group_size)], timeout, backend)


def _copy_flat_into(flat, tensors):
    """Each tensor's share of `flat`, in order, copied back into it."""
    offset = 0
    for t in tensors:
        t.copy_(flat[offset:offset + t.numel()].view(t.shape))
        offset += t.numel()


def broadcast_coalesced(tensors, src, group=None):
    """Broadcasts tensors of one dtype and device from `src` (a rank of the group) as one flat buffer, written
    back into them (without recording autograd history)."""
    from ..autograd.grad_mode import no_grad

    with no_grad():
        flat = _C.cat([t.detach().reshape(-1) for t in tensors])
        broadcast(flat, src=get_global_rank(group, src), group=group)
        _copy_flat_into(flat, tensors)


def all_reduce_coalesced(tensors, op=ReduceOp.SUM, group=None, async_op=False):
    """all_reduce of a list of tensors of one dtype and device as one flat buffer."""
    tensors = list(tensors)
    if not tensors or len({(t.dtype, str(t.device)) for t in tensors}) != 1:
        raise ValueError("all_reduce_coalesced: expects a non-empty list of tensors of one dtype and device")
    flat = _C.cat([t.reshape(-1) for t in tensors])
    coalesced = Work(all_reduce(flat, op=op, group=group, async_op=True)._handle, tensors,
                     finish=lambda: _copy_flat_into(flat, tensors))
    if async_op:
        return coalesced
    coalesced.wait()
    return None


def get_rank(group=None):
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    return _group(group).rank()


def get_world_size(group=None):
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    return _group(group).size()


def get_backend(group=None):
    return _group(group)._backend


def get_group_rank(group, global_rank):
    group = _group(group)
    if global_rank not in group._global_ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return group._global_ranks.index(global_rank)


def get_global_rank(group, group_rank):
    group = _group(group)
    if not 0 <= group_rank < group.size():
        raise ValueError(f"Group rank {group_rank} is not part of group {group}")
    return group._global_ranks[group_rank]


def get_process_group_ranks(group):
    return list(_group(group)._global_ranks)


def _check_tensor(name, tensor):
    if not isinstance(tensor, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type ember.Tensor but got "
                        f"{type(tensor).__name__} instead.")


def _run(group, kind, *, op=ReduceOp.SUM, root=0, tag=0, input=None, output=None, input_splits=(),
         output_splits=(), async_op=False, tensors=None, finish=None, timeout=None, check=True):
    group = _group(group)
    if isinstance(op, str):
        op = getattr(ReduceOp, op.upper())
    handle = group._handle.run(kind, op, root, tag, list(input_splits), list(output_splits),
                               0.0 if timeout is None else _seconds(timeout), input, output, check,
                               not async_op)
    work = Work(handle, tensors, finish)
    if async_op:
        return work
    work.wait()
    return None


def _root(group, src, name="src"):
    group = _group(group)
    if src not in group._global_ranks:
        raise ValueError(f"{name} {src} is not a rank of the group (ranks {group._global_ranks})")
    return group._global_ranks.index(src)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    _check_tensor("tensor", tensor)
    return _run(group, _D.ALL_REDUCE, op=op, output=tensor, async_op=async_op, tensors=[tensor])


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    _check_tensor("tensor", tensor)
    root = group_src if group_src is not None else _root(group, 0 if src is None else src)
    return _run(group, _D.BROADCAST, root=root, output=tensor, async_op=async_op, tensors=[tensor])


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    _check_tensor("tensor", tensor)
    root = group_dst if group_dst is not None else _root(group, 0 if dst is None else dst, "dst")
    return _run(group, _D.REDUCE, op=op, root=root, output=tensor, async_op=async_op, tensors=[tensor])


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    _check_tensor("output_tensor", output_tensor)
    _check_tensor("input_tensor", input_tensor)
    return _run(group, _D.ALL_GATHER, input=input_tensor, output=output_tensor, async_op=async_op,
                tensors=[output_tensor])


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Gathers every rank's `tensor` into `tensor_list` (one per rank, each
    of tensor's shape)."""
    _check_tensor("tensor", tensor)
    size = get_world_size(group)
    if len(tensor_list) != size:
        raise ValueError(f"all_gather: tensor_list has {len(tensor_list)} tensors for a group of {size} ranks")
    for t in tensor_list:
        _check_tensor("tensor_list", t)
        if tuple(t.shape) != tuple(tensor.shape) or t.dtype != tensor.dtype:
            raise ValueError(f"all_gather: every tensor of tensor_list must be {tensor.dtype} {tuple(tensor.shape)}, "
                             f"got {t.dtype} {tuple(t.shape)}")
    from .. import empty
    gathered = empty((size,) + tuple(tensor.shape), dtype=tensor.dtype, device=tensor.device)

    def finish():
        from .. import no_grad
        with no_grad():
            for i, t in enumerate(tensor_list):
                t.copy_(gathered[i])

    work = _run(group, _D.ALL_GATHER, input=tensor.contiguous(), output=gathered, async_op=True,
                tensors=tensor_list, finish=finish)
    if async_op:
        return work
    work.wait()
    return None


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    _check_tensor("output", output)
    _check_tensor("input", input)
    return _run(group, _D.REDUCE_SCATTER, op=op, input=input, output=output, async_op=async_op, tensors=[output])


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    from .. import cat
    _check_tensor("output", output)
    size = get_world_size(group)
    if len(input_list) != size:
        raise ValueError(f"reduce_scatter: input_list has {len(input_list)} tensors for a group of {size} ranks")
    flat = cat([t.reshape(-1) for t in input_list])
    return reduce_scatter_tensor(output, flat, op=op, group=group, async_op=async_op)


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    from .. import empty, no_grad
    _check_tensor("tensor", tensor)
    root = group_dst if group_dst is not None else _root(group, 0 if dst is None else dst, "dst")
    size = get_world_size(group)
    is_root = _group(group).rank() == root
    if is_root:
        if gather_list is None or len(gather_list) != size:
            raise ValueError(f"gather: the destination rank needs a gather_list of {size} tensors")
        gathered = empty((size,) + tuple(tensor.shape), dtype=tensor.dtype, device=tensor.device)
    elif gather_list:
        raise ValueError("gather: gather_list must be empty on ranks other than the destination")
    else:
        gathered = None

    def finish():
        if is_root:
            with no_grad():
                for i, t in enumerate(gather_list):
                    t.copy_(gathered[i])

    work = _run(group, _D.GATHER, root=root, input=tensor.contiguous(), output=gathered, async_op=True,
                tensors=gather_list or [], finish=finish)
    if async_op:
        return work
    work.wait()
    return None


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    from .. import stack
    _check_tensor("tensor", tensor)
    root = group_src if group_src is not None else _root(group, 0 if src is None else src)
    size = get_world_size(group)
    source = None
    if _group(group).rank() == root:
        if scatter_list is None or len(scatter_list) != size:
            raise ValueError(f"scatter: the source rank needs a scatter_list of {size} tensors")
        source = stack([t.to(tensor.device) for t in scatter_list])
    elif scatter_list:
        raise ValueError("scatter: scatter_list must be empty on ranks other than the source")
    return _run(group, _D.SCATTER, root=root, input=source, output=tensor, async_op=async_op, tensors=[tensor])


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None, async_op=False):
    _check_tensor("output", output)
    _check_tensor("input", input)
    return _run(group, _D.ALL_TO_ALL, input=input, output=output, input_splits=input_split_sizes or (),
                output_splits=output_split_sizes or (), async_op=async_op, tensors=[output])


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    from .. import cat, no_grad
    size = get_world_size(group)
    if len(output_tensor_list) != size or len(input_tensor_list) != size:
        raise ValueError(f"all_to_all: both lists need {size} tensors")
    flat_in = cat([t.reshape(-1) for t in input_tensor_list])
    flat_out = cat([t.reshape(-1) for t in output_tensor_list])
    in_counts = [t.numel() for t in input_tensor_list]
    out_counts = [t.numel() for t in output_tensor_list]

    def finish():
        with no_grad():
            offset = 0
            for t, n in zip(output_tensor_list, out_counts):
                t.copy_(flat_out[offset:offset + n].reshape(t.shape))
                offset += n

    work = _run(group, _D.ALL_TO_ALL, input=flat_in, output=flat_out, input_splits=in_counts,
                output_splits=out_counts, async_op=True, tensors=output_tensor_list, finish=finish)
    if async_op:
        return work
    work.wait()
    return None


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    _check_tensor("tensor", tensor)
    peer = group_dst if group_dst is not None else _root(group, dst, "dst")
    return _run(group, _D.SEND, root=peer, tag=tag, input=tensor.contiguous(), async_op=True, tensors=[tensor])


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    _check_tensor("tensor", tensor)
    peer = group_src if group_src is not None else _root(group, src)
    return _run(group, _D.RECV, root=peer, tag=tag, output=tensor, async_op=True, tensors=[tensor])


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    isend(tensor, dst, group, tag, group_dst).wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    irecv(tensor, src, group, tag, group_src).wait()
    return src if src is not None else get_global_rank(group, group_src)


class P2POp:
    """One point-to-point operation (isend or irecv with its tensor and peer) for batch_isend_irecv."""

    def __init__(self, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        if op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                             "``torch.distributed.irecv``.")
        if (peer is None) == (group_peer is None):
            raise ValueError("P2POp: exactly one of peer and group_peer must be given")
        self.op, self.tensor, self.tag = op, tensor, tag
        self.peer, self.group, self.group_peer = peer, group, group_peer

    def __repr__(self):
        return f"P2POp(op={self.op.__name__}, peer={self.peer}, tensor shape={list(self.tensor.shape)})"


# Note [Deadlock-free batches]
# A group's engine runs its operations one at a time and a send waits for
# its receive, so batch_isend_irecv cannot start a list in the order given:
# in a ring every rank would send first and wait forever. It starts them by
# the pair of ranks each joins, lower pairs first; within a pair the lower
# rank sends before it receives and the higher one receives first. The
# lowest pair not yet done is then next on both its ranks, so every step
# finds its partner. Operations of one direction keep their order, which is
# how their receives match.
def batch_isend_irecv(p2p_op_list):
    """Starts every operation of the list (Note [Deadlock-free batches]) and
    returns their Works in the list's order."""
    if not p2p_op_list or not all(isinstance(p2p, P2POp) for p2p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type ``torch.distributed.P2POp``.")

    def position(p2p):
        own = get_rank(p2p.group) if p2p.group_peer is not None else get_rank()
        peer = p2p.group_peer if p2p.group_peer is not None else p2p.peer
        sends_first = own < peer
        return (min(own, peer), max(own, peer), (p2p.op is isend) != sends_first)

    order = sorted(range(len(p2p_op_list)), key=lambda i: position(p2p_op_list[i]))
    works = [None] * len(p2p_op_list)
    for i in order:
        p2p = p2p_op_list[i]
        works[i] = p2p.op(p2p.tensor, p2p.peer, p2p.group, p2p.tag, p2p.group_peer)
    return works


def barrier(group=None, async_op=False, device_ids=None, timeout=None):
    return _run(group, _D.BARRIER, async_op=async_op, tensors=[], timeout=timeout)


def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    barrier(group, timeout=timeout)
