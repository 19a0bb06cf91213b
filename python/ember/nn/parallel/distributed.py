"""DistributedDataParallel: each rank trains a replica of the module on its
share of the batch; gradients are averaged across ranks while the backward
pass runs (Note [DDP buckets])."""

import contextlib
import zlib

from ... import _C
from ..modules.module import Module

# Note [DDP buckets]
# Parameters are grouped into buckets (the first of at most 1 MiB, the
# rest of bucket_cap_mb, 25 MiB by default, of one dtype and device each), in reverse order of
# registration, roughly the order the backward produces their gradients.
# A hook after each parameter's gradient accumulation marks it ready; when
# every parameter of a bucket is ready, its gradients are copied into the
# bucket's flat buffer and an asynchronous all_reduce starts, while the
# backward goes on. Buckets start strictly in order, so every rank issues the
# same collectives in the same order even when gradients become ready in
# another order. A callback at the end of the backward starts what is left,
# waits for all, divides by the world size and writes the averages back into
# .grad (with gradient_as_bucket_view, .grad is a view of the bucket and
# nothing is copied). After the first iteration the buckets are rebuilt once
# in the order gradients actually became ready on rank 0, which every rank
# adopts. Their all-reduces are compared across ranks (Note [Collective
# fingerprints]) in the first two synced iterations, before and after the
# rebuild, and not after: the layout no longer changes.

_FIRST_BUCKET_BYTES = 1024 * 1024


class _Bucket:
    def __init__(self, indices, params):
        from ... import zeros
        self.indices = indices
        self.offsets = []
        total = 0
        for i in indices:
            self.offsets.append(total)
            total += params[i].numel()
        self.buffer = zeros([total], dtype=params[indices[0]].dtype, device=params[indices[0]].device)
        self.pending = set(indices)
        self.work = None

    def view_of(self, position, param):
        start = self.offsets[position]
        return self.buffer[start:start + param.numel()].view(param.shape)


class DistributedDataParallel(Module):
    """torch.nn.parallel.DistributedDataParallel over ember.distributed: at
    construction it checks that every rank holds a module of the same
    parameter shapes and copies rank 0's parameters and buffers to all."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False, init_sync=True):
        super().__init__()
        from ... import distributed as dist
        self.module = module
        self.process_group = process_group
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.require_backward_grad_sync = True
        self._dist = dist
        self._world_size = dist.get_world_size(process_group)
        named = [(n, p) for n, p in module.named_parameters() if p.requires_grad]
        if not named:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        self._names = [n for n, _ in named]
        self._params = [p for _, p in named]
        self._bucket_bytes = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
        self._check_same_shapes()
        if init_sync:
            self._broadcast_state()
        self._build_buckets(list(reversed(range(len(self._params)))))
        self._ready_order = []
        self._rebuilt = False
        self._in_backward = False
        self._next_bucket = 0
        self._synced_iterations = 0
        self._check_buckets = True
        self._comm_hook = None
        self._handles = [p.register_post_accumulate_grad_hook(self._hook_for(i)) for i, p in enumerate(self._params)]

    # -- construction -------------------------------------------------------

    def _check_same_shapes(self):
        from ... import tensor, zeros, int64
        shapes = ";".join(f"{tuple(p.shape)}{p.dtype}" for p in self._params).encode()
        mine = tensor([len(self._params), sum(p.numel() for p in self._params), zlib.crc32(shapes)], dtype=int64)
        everyone = zeros([self._world_size, 3], dtype=int64)
        self._dist.all_gather_into_tensor(everyone, mine, group=self.process_group)
        rows = everyone.tolist()
        me = self._dist.get_rank(self.process_group)
        for rank, row in enumerate(rows):
            if row != rows[0]:
                raise RuntimeError(
                    f"DistributedDataParallel: the module differs across ranks: rank 0 has {rows[0][0]} parameters "
                    f"({rows[0][1]} elements), rank {rank} has {row[0]} ({row[1]} elements)"
                    + ("" if row[:2] != rows[0][:2] else ", of other shapes or dtypes")
                    + f" (this is rank {me})")

    def _coalesced_broadcast(self, tensors):
        groups = {}
        for t in tensors:
            groups.setdefault((t.dtype, str(t.device)), []).append(t)
        for members in groups.values():
            self._dist.distributed_c10d.broadcast_coalesced(members, 0, self.process_group)

    def _broadcast_state(self):
        tensors = list(self.module.parameters()) + list(self.module.buffers())
        if tensors:
            self._coalesced_broadcast(tensors)

    def _build_buckets(self, order):
        self._buckets = []
        self._bucket_of = {}
        current, size, cap = [], 0, min(_FIRST_BUCKET_BYTES, self._bucket_bytes)
        for i in order:
            p = self._params[i]
            if current:
                first = self._params[current[0]]
                if size + p.numel() * p.element_size() > cap or p.dtype != first.dtype or p.device != first.device:
                    self._buckets.append(_Bucket(current, self._params))
                    current, size, cap = [], 0, self._bucket_bytes
            current.append(i)
            size += p.numel() * p.element_size()
        if current:
            self._buckets.append(_Bucket(current, self._params))
        for b, bucket in enumerate(self._buckets):
            for position, i in enumerate(bucket.indices):
                self._bucket_of[i] = (b, position)

    def _rebuild_from_ready_order(self):
        """Once, after the first synced iteration: rank 0's ready order."""
        from ... import tensor, int64
        order = self._ready_order + [i for i in range(len(self._params)) if i not in self._ready_order]
        shared = tensor(order, dtype=int64)
        self._dist.broadcast(shared, src=self._dist.get_global_rank(self.process_group, 0)
                             if self.process_group is not None else 0, group=self.process_group)
        self._build_buckets(shared.tolist())
        self._rebuilt = True

    def register_comm_hook(self, state, hook):
        """hook(state, bucket) replaces the all-reduce of each bucket: it starts the reduction of
        bucket.buffer() and returns a future of the averaged flat buffer (ember.distributed.algorithms.
        ddp_comm_hooks has PyTorch's allreduce and fp16/bf16 compression hooks)."""
        if self._comm_hook is not None:
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can only be called once.")
        if not callable(hook):
            raise TypeError(f"register_comm_hook: hook must be callable, got {type(hook).__name__}")
        self._comm_hook = (state, hook)

    # -- the iteration ------------------------------------------------------

    @contextlib.contextmanager
    def no_sync(self):
        """Gradients accumulate locally inside; the first backward after it
        averages the sum."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    def forward(self, *inputs, **kwargs):
        if self.require_backward_grad_sync and _C.is_grad_enabled():
            if not self._rebuilt and self._ready_order:
                self._rebuild_from_ready_order()
            for bucket in self._buckets:
                bucket.pending = set(bucket.indices)
                bucket.work = None
            self._next_bucket = 0
            self._in_backward = False
            self._check_buckets = self._synced_iterations < 2
            self._synced_iterations += 1
        if self.broadcast_buffers:
            buffers = list(self.module.buffers())
            if buffers and self._world_size > 1:
                self._coalesced_broadcast(buffers)
        return self.module(*inputs, **kwargs)

    def _hook_for(self, index):
        def hook(param):
            if not self.require_backward_grad_sync:
                return
            if not self._in_backward:
                self._in_backward = True
                _C._queue_callback(self._finish_backward)
            if not self._rebuilt:
                self._ready_order.append(index)
            b, _ = self._bucket_of[index]
            self._buckets[b].pending.discard(index)
            self._launch_ready_buckets()
        return hook

    def _launch(self, bucket):
        from ... import no_grad
        with no_grad():
            for position, i in enumerate(bucket.indices):
                p = self._params[i]
                view = bucket.view_of(position, p)
                if p.grad is None:
                    view.zero_()
                elif not (self.gradient_as_bucket_view and p.grad.data_ptr() == view.data_ptr()):
                    view.copy_(p.grad)
        if self._comm_hook is not None:
            # The hook starts the reduction and gives a future of the averaged buffer (Note [DDP buckets]).
            state, hook = self._comm_hook
            position = self._buckets.index(bucket)
            last = position == len(self._buckets) - 1
            bucket.future = hook(state, self._dist.GradBucket(position, bucket, self._params, last))
            return
        # Buckets are compared across ranks on the first synced iteration
        # and after their rebuild; from then on their layout is fixed.
        bucket.work = self._dist.distributed_c10d._run(self.process_group, _C._distributed.ALL_REDUCE,
                                                       output=bucket.buffer, async_op=True,
                                                       tensors=[bucket.buffer], check=self._check_buckets)

    def _launch_ready_buckets(self):
        while self._next_bucket < len(self._buckets) and not self._buckets[self._next_bucket].pending:
            self._launch(self._buckets[self._next_bucket])
            self._next_bucket += 1

    def _launch_used_parameters(self, unused_here):
        """Which parameters some rank used, as a 0/1 flag each (a MAX
        all-reduce), launched after the buckets, in the same order on every
        rank."""
        from ... import ones, int32
        flags = ones(len(self._params), dtype=int32)
        for i in unused_here:
            flags[i] = 0
        work = self._dist.distributed_c10d._run(self.process_group, _C._distributed.ALL_REDUCE, op="max",
                                                output=flags, async_op=True, tensors=[flags],
                                                check=self._check_buckets)
        return work, flags

    def _finish_backward(self):
        from ... import no_grad
        self._in_backward = False
        missing = [i for bucket in self._buckets for i in sorted(bucket.pending)]
        if missing and not self.find_unused_parameters:
            # Every rank with unused parameters stops here; ranks that used
            # them wait in their all_reduce until the group's timeout names
            # this one.
            names = ", ".join(self._names[i] for i in missing)
            raise RuntimeError(
                "DistributedDataParallel: these parameters received no gradient in this backward pass: "
                f"{names} (indices {missing}). Pass find_unused_parameters=True to DistributedDataParallel if "
                "the forward pass leaves them out on purpose, or make sure every output the parameters produce "
                "takes part in the loss.")
        for bucket in self._buckets:
            bucket.pending.clear()
        self._launch_ready_buckets()
        used = self._launch_used_parameters(missing) if self.find_unused_parameters else None
        with no_grad():
            for bucket in self._buckets:
                if self._comm_hook is not None:
                    averaged = bucket.future.wait()
                    averaged = averaged[0] if isinstance(averaged, (list, tuple)) else averaged
                    if averaged.data_ptr() != bucket.buffer.data_ptr():
                        bucket.buffer.copy_(averaged)
                else:
                    bucket.work.wait()
            # As in torch: a parameter no rank used keeps its gradient (None
            # stays None); one some rank used gets the average.
            unused_everywhere = set()
            if used is not None:
                used[0].wait()
                unused_everywhere = {i for i, flag in enumerate(used[1].tolist()) if flag == 0}
            for bucket in self._buckets:
                if self._comm_hook is None:
                    bucket.buffer.div_(self._world_size)
                for position, i in enumerate(bucket.indices):
                    p = self._params[i]
                    if i in unused_everywhere:
                        continue
                    view = bucket.view_of(position, p)
                    if self.gradient_as_bucket_view:
                        p.grad = view
                    elif p.grad is None:
                        p.grad = view.clone()
                    else:
                        p.grad.copy_(view)
