"""One rank of a multi-process test: `python worker.py SCENARIO RANK WORLD
STORE_FILE OUT_FILE [ARG]`. It joins a gloo group through a FileStore
(which outlives any rank), runs the scenario and writes a JSON report:
{"ok": bool, "failures": [...], ...} or the error it ended with."""

import json
import os
import sys
import time
import traceback

import numpy as np

import ember
import ember.distributed as dist

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool"]


def values(dtype, rank, n, salt=0):
    """Rank-specific values every rank can recompute, exact in every dtype."""
    base = (np.arange(n, dtype=np.int64) * 7 + rank * 3 + salt) % 5
    if dtype == "bool":
        return (base % 2).astype(bool)
    if dtype == "uint8":
        return base.astype(np.uint8)
    return base.astype(np.float32 if dtype in ("float16", "bfloat16") else dtype)


def to_ember(array, dtype):
    t = ember.tensor(array.astype(np.float32) if dtype == "bfloat16" else array)
    return t.to(getattr(ember, dtype)) if dtype == "bfloat16" else t


def to_numpy(t):
    return (t.float() if t.dtype == ember.bfloat16 else t).numpy()


def reduce_reference(arrays, op, dtype):
    stack = np.stack(arrays)
    if dtype == "bool":
        return stack.any(0) if op in ("SUM", "MAX") else stack.all(0)
    fn = {"SUM": np.sum, "PRODUCT": np.prod, "MIN": np.min, "MAX": np.max, "AVG": np.mean}[op]
    out = fn(stack.astype(np.float64), axis=0)
    return out


# Sizes given in bytes: 4 KiB is the most a collective carries inside its
# check (Note [Collectives inside the check]); 1 MiB is a large operand.
BYTE_SIZES = {-1: (1 << 20, 1), -2: (4 << 10, 0), -3: (4 << 10, 1)}


def elements(code, dtype):
    """code >= 0: that many elements; else BYTE_SIZES' bytes plus extra elements."""
    if code >= 0:
        return code
    size, extra = BYTE_SIZES[code]
    return size // np.dtype(np.float32 if dtype == "bfloat16" else
                            (np.uint16 if dtype == "float16" else dtype)).itemsize + extra


def collectives(rank, world, report, sizes):
    failures = report.setdefault("failures", [])

    def check(name, got, want):
        want = np.asarray(want)
        if got.shape != want.shape or not np.array_equal(got.astype(np.float64), want.astype(np.float64)):
            failures.append(f"{name}: got {got.ravel()[:6]} want {want.ravel()[:6]} shapes {got.shape} {want.shape}")

    for dtype in DTYPES:
        for n in sizes:
            n = elements(n, dtype)
            mine = [values(dtype, r, n) for r in range(world)]
            ops = ["SUM", "MIN", "MAX"] + (["PRODUCT"] if n < 1000 else []) + \
                  (["AVG"] if dtype.startswith("float") or dtype == "bfloat16" else [])
            for op in ops:
                t = to_ember(mine[rank], dtype)
                dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
                want = reduce_reference(mine, op, dtype)
                if op == "AVG":
                    got = to_numpy(t).astype(np.float64)
                    if not np.allclose(got, want, rtol=1e-2, atol=1e-2):
                        failures.append(f"all_reduce AVG {dtype} n={n}")
                    continue
                check(f"all_reduce {op} {dtype} n={n}", to_numpy(t), want)
            for root in {0, world - 1}:
                t = to_ember(mine[rank], dtype)
                dist.broadcast(t, src=root)
                check(f"broadcast {dtype} n={n} root={root}", to_numpy(t), mine[root])
                t = to_ember(mine[rank], dtype)
                dist.reduce(t, dst=root, op=dist.ReduceOp.SUM)
                if rank == root:
                    check(f"reduce {dtype} n={n}", to_numpy(t), reduce_reference(mine, "SUM", dtype))
            out = to_ember(np.zeros(n * world, dtype=mine[0].dtype), dtype)
            dist.all_gather_into_tensor(out, to_ember(mine[rank], dtype))
            check(f"all_gather_into_tensor {dtype} n={n}", to_numpy(out), np.concatenate(mine))
            listed = [to_ember(np.zeros(n, dtype=mine[0].dtype), dtype) for _ in range(world)]
            dist.all_gather(listed, to_ember(mine[rank], dtype))
            for r in range(world):
                check(f"all_gather {dtype} n={n} [{r}]", to_numpy(listed[r]), mine[r])
            full = [values(dtype, r, n * world, salt=1) for r in range(world)]
            out = to_ember(np.zeros(n, dtype=mine[0].dtype), dtype)
            dist.reduce_scatter_tensor(out, to_ember(full[rank], dtype))
            check(f"reduce_scatter_tensor {dtype} n={n}", to_numpy(out),
                  reduce_reference(full, "SUM", dtype)[rank * n:(rank + 1) * n])
            gathered = [to_ember(np.zeros(n, dtype=mine[0].dtype), dtype) for _ in range(world)] if rank == 0 else None
            dist.gather(to_ember(mine[rank], dtype), gathered, dst=0)
            if rank == 0:
                for r in range(world):
                    check(f"gather {dtype} n={n} [{r}]", to_numpy(gathered[r]), mine[r])
            out = to_ember(np.zeros(n, dtype=mine[0].dtype), dtype)
            pieces = [to_ember(values(dtype, r, n, salt=2), dtype) for r in range(world)] if rank == 0 else None
            dist.scatter(out, pieces, src=0)
            check(f"scatter {dtype} n={n}", to_numpy(out), values(dtype, rank, n, salt=2))
            blocks = [values(dtype, rank * world + j, n, salt=3) for j in range(world)]
            out = to_ember(np.zeros(n * world, dtype=mine[0].dtype), dtype)
            dist.all_to_all_single(out, to_ember(np.concatenate(blocks), dtype))
            check(f"all_to_all_single {dtype} n={n}", to_numpy(out),
                  np.concatenate([values(dtype, j * world + rank, n, salt=3) for j in range(world)]))
        if world > 1:
            if rank == 0:
                dist.send(to_ember(values(dtype, 9, 5), dtype), dst=1, tag=7)
            elif rank == 1:
                t = to_ember(np.zeros(5, dtype=values(dtype, 0, 1).dtype), dtype)
                dist.recv(t, src=0, tag=7)
                check(f"send/recv {dtype}", to_numpy(t), values(dtype, 9, 5))
    if world > 1:
        # A ring through batch_isend_irecv: each rank sends to the next and receives from the previous.
        incoming = ember.zeros(4)
        works = dist.batch_isend_irecv([dist.P2POp(dist.isend, ember.full([4], float(rank)), (rank + 1) % world),
                                        dist.P2POp(dist.irecv, incoming, (rank - 1) % world)])
        for work in works:
            work.wait()
        check("batch_isend_irecv ring", incoming.numpy(), np.full(4, (rank - 1) % world, dtype=np.float32))
    if world > 1 and world % 2 == 0:
        mine, subgroups = dist.new_subgroups(2)
        total = ember.full([3], float(rank))
        dist.all_reduce(total, group=mine)
        check("new_subgroups all_reduce", total.numpy(), np.full(3, float(rank // 2 * 4 + 1), dtype=np.float32))
        if len(subgroups) != world // 2:
            failures.append(f"new_subgroups made {len(subgroups)} groups")
    pieces = [ember.full([2], float(rank)), ember.full([1, 3], float(rank + 1))]
    work = dist.all_reduce_coalesced(pieces, async_op=True)
    work.wait()
    check("all_reduce_coalesced", np.concatenate([p.numpy().ravel() for p in pieces]),
          np.array([sum(range(world))] * 2 + [sum(range(1, world + 1))] * 3, dtype=np.float32))
    if dist.group.WORLD is not dist.GroupMember.WORLD or dist.group.WORLD is None:
        failures.append("dist.group.WORLD is not the default group")
    # Uneven all_to_all: rank r sends r + j + 1 rows of 2 to rank j.
    send_counts = [rank + j + 1 for j in range(world)]
    recv_counts = [j + rank + 1 for j in range(world)]
    source = ember.arange(sum(send_counts) * 2, dtype=ember.float32).reshape(-1, 2) + 100 * rank
    out = ember.zeros([sum(recv_counts), 2])
    dist.all_to_all_single(out, source, output_split_sizes=recv_counts, input_split_sizes=send_counts)
    want = []
    for j in range(world):
        rows = np.arange(sum(j + k + 1 for k in range(world)) * 2, dtype=np.float32).reshape(-1, 2) + 100 * j
        start = sum(j + k + 1 for k in range(rank))
        want.append(rows[start:start + recv_counts[j]])
    check("all_to_all_single uneven", out.numpy(), np.concatenate(want))
    work = dist.all_reduce(ember.ones(3), async_op=True)
    work.wait()
    if not work.is_completed() or work.exception() is not None:
        failures.append("async all_reduce did not complete cleanly")
    dist.barrier()
    report["sequence"] = dist.GroupMember.WORLD._handle.sequence


def mismatch(rank, world, report, kind):
    start = time.monotonic()
    try:
        if kind == "size":
            dist.all_reduce(ember.ones(4 + rank))
        elif kind == "size-across-the-inline-limit":
            dist.all_reduce(ember.ones(4 if rank == 0 else 1 << 16))
        elif kind == "op":
            if rank == 0:
                dist.all_reduce(ember.ones(4))
            else:
                dist.broadcast(ember.ones(4), src=0)
        else:
            dist.all_reduce(ember.ones(4, dtype=ember.float32 if rank == 0 else ember.float64))
        report["error"] = None
    except dist.DistBackendError as error:
        report["error"] = str(error)
    report["elapsed"] = time.monotonic() - start
    # The group still works: the check ran before any operand moved.
    t = ember.ones(2)
    dist.all_reduce(t)
    report["after"] = t.tolist()


def killed(rank, world, report, _):
    dist.all_reduce(ember.ones(4))
    if rank == world - 1:
        os.kill(os.getpid(), 9)
    time.sleep(0.2)
    start = time.monotonic()
    try:
        for _ in range(50):
            dist.all_reduce(ember.ones(1 << 16))
        report["error"] = None
    except dist.DistBackendError as error:
        report["error"] = str(error)
    report["elapsed"] = time.monotonic() - start


def stalled(rank, world, report, timeout):
    timeout = float(timeout)
    if rank == world - 1:
        time.sleep(timeout * 3)
        return
    start = time.monotonic()
    try:
        dist.all_reduce(ember.ones(4))
        report["error"] = None
    except dist.DistBackendError as error:
        report["error"] = str(error)
    report["elapsed"] = time.monotonic() - start


def digits_like(n=192, seed=0):
    """A fixed classification set of 8x8 "images" (no download, no sklearn)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 64)).astype(np.float32)
    w = rng.standard_normal((64, 10)).astype(np.float32)
    return x, (x @ w).argmax(1).astype(np.int64)


def make_mlp(seed):
    ember.manual_seed(seed)
    return ember.nn.Sequential(ember.nn.Linear(64, 32), ember.nn.ReLU(), ember.nn.Linear(32, 10))


def train(model, world, rank, steps, global_batch=32, micro=1, no_sync=None):
    """SGD on rank's share of each global batch; the loss is scaled so that
    the gradient is the global batch's mean whatever the world and micro."""
    x, y = digits_like()
    opt = ember.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    local = global_batch // world
    for step in range(steps):
        start = (step * global_batch) % len(x) + rank * local
        opt.zero_grad()
        chunk = local // micro
        for m in range(micro):
            xb = ember.tensor(x[start + m * chunk:start + (m + 1) * chunk])
            yb = ember.tensor(y[start + m * chunk:start + (m + 1) * chunk])
            loss = ember.nn.functional.cross_entropy(model(xb), yb, reduction="sum") / (local * world)
            loss = loss * world  # DDP averages over ranks
            if no_sync is not None and m < micro - 1:
                with no_sync():
                    loss.backward()
            else:
                loss.backward()
        opt.step()
    return [p.detach().numpy().ravel().tolist() for p in model.parameters()]


def ddp(rank, world, report, mode):
    from ember.nn.parallel import DistributedDataParallel as DDP
    model = make_mlp(seed=rank)  # rank 0's weights win at construction
    if mode == "unused":
        class WithUnused(ember.nn.Module):
            def __init__(self):
                super().__init__()
                self.body = make_mlp(0)
                self.unused = ember.nn.Linear(10, 3)

            def forward(self, x):
                return self.body(x)
        wrapped = DDP(WithUnused())
        x, y = digits_like()
        loss = ember.nn.functional.cross_entropy(wrapped(ember.tensor(x[:8])), ember.tensor(y[:8]))
        try:
            loss.backward()
            report["error"] = None
        except RuntimeError as error:
            report["error"] = str(error)
        tolerant = DDP(WithUnused(), find_unused_parameters=True)
        loss = ember.nn.functional.cross_entropy(tolerant(ember.tensor(x[:8])), ember.tensor(y[:8]))
        loss.backward()
        report["tolerant_grad"] = tolerant.module.body[0].weight.grad.sum().item()
        report["unused_grad_is_none"] = tolerant.module.unused.weight.grad is None
        return
    wrapped = DDP(model, bucket_cap_mb=0.001 if mode in ("small_buckets", "fp16_hook") else None,
                  gradient_as_bucket_view=mode == "bucket_view")
    if mode in ("allreduce_hook", "fp16_hook"):
        from ember.distributed.algorithms.ddp_comm_hooks import default_hooks

        seen = []

        def hook(state, bucket: dist.GradBucket) -> ember.futures.Future[ember.Tensor]:
            seen.append((bucket.index(), bucket.is_last(), len(bucket.parameters()), len(bucket.gradients())))
            chosen = default_hooks.allreduce_hook if mode == "allreduce_hook" else default_hooks.fp16_compress_hook
            return chosen(state, bucket)

        wrapped.register_comm_hook(None, hook)
        try:
            wrapped.register_comm_hook(None, hook)
        except RuntimeError as error:
            report["second_registration"] = str(error)
        report["params"] = train(wrapped, world, rank, steps=12)
        report["first_buckets_seen"] = seen[:len(wrapped._buckets)]
        return
    micro = 2 if mode == "no_sync" else 1
    report["params"] = train(wrapped, world, rank, steps=12, micro=micro,
                             no_sync=wrapped.no_sync if mode == "no_sync" else None)
    report["buckets"] = len(wrapped._buckets)


def zero(rank, world, report, _):
    """ZeroRedundancyOptimizer(Adam) under DDP with a step schedule, against a plain Adam on every rank: the
    same parameters, the consolidated state equal to the plain optimizer's, and an optimizer resumed from
    that state stepping as the original does."""
    import copy

    from ember.distributed.optim import ZeroRedundancyOptimizer
    from ember.nn.parallel import DistributedDataParallel as DDP
    x, y = digits_like()

    def train_steps(model, optimizer, first, count, schedule=None):
        for step in range(first, first + count):
            rows = slice(step * 16 + rank * 8, step * 16 + rank * 8 + 8)
            optimizer.zero_grad()
            ember.nn.functional.cross_entropy(model(ember.tensor(x[rows])), ember.tensor(y[rows])).backward()
            optimizer.step()
            if schedule is not None:
                schedule.step()

    def zero_adam(model):
        return ZeroRedundancyOptimizer(model.parameters(), ember.optim.Adam, lr=1e-2)

    plain_model = DDP(make_mlp(seed=0))
    plain = ember.optim.Adam(plain_model.parameters(), lr=1e-2)
    train_steps(plain_model, plain, 0, 4, ember.optim.lr_scheduler.StepLR(plain, step_size=2, gamma=0.5))
    zero_model = DDP(make_mlp(seed=0))
    sharded = zero_adam(zero_model)
    train_steps(zero_model, sharded, 0, 4, ember.optim.lr_scheduler.StepLR(sharded, step_size=2, gamma=0.5))
    report["owners"] = sharded._owners
    report["same_params"] = all(bool(ember.equal(a, b)) for a, b in zip(plain_model.parameters(),
                                                                      zero_model.parameters()))
    sharded.consolidate_state_dict(to=0)
    shared = [None]
    if rank == 0:
        consolidated, expected = sharded.state_dict(), plain.state_dict()
        report["same_state"] = all(bool(ember.equal(consolidated["state"][i][k], expected["state"][i][k]))
                                   for i in expected["state"] for k in ("exp_avg", "exp_avg_sq"))
        report["lr"] = consolidated["param_groups"][0]["lr"]
        shared = [consolidated]
    else:
        try:
            sharded.state_dict()
        except RuntimeError as error:
            report["unconsolidated"] = str(error)
    dist.broadcast_object_list(shared, src=0)
    copied_model = copy.deepcopy(zero_model.module)
    resumed_model = DDP(copied_model)
    resumed = zero_adam(resumed_model)
    resumed.load_state_dict(shared[0])
    train_steps(zero_model, sharded, 4, 2)
    train_steps(resumed_model, resumed, 4, 2)
    report["resumed_matches"] = all(bool(ember.equal(a, b)) for a, b in zip(zero_model.parameters(),
                                                                          resumed_model.parameters()))


def mixed(rank, world, report, _):
    """Asynchronous all-reduces queued on the group's worker, then a
    blocking one, which must wait its turn rather than run beside them."""
    large = [ember.full((70000,), float(rank + i)) for i in range(3)]
    works = [dist.all_reduce(t, async_op=True) for t in large]
    small = ember.full((4,), float(rank))
    dist.all_reduce(small)
    report["small"] = small.tolist()
    for work in works:
        work.wait()
    report["large"] = [t[0].item() for t in large] + [t[-1].item() for t in large]
    dist.all_reduce(small)  # and with nothing queued, on this thread
    report["again"] = small.tolist()


def staged(rank, world, report, device):
    t = ember.full((3,), float(rank + 1), device=device)
    dist.all_reduce(t)
    report["sum"] = t.cpu().tolist()
    report["device"] = str(t.device)


def resume(rank, world, report, arg):
    """Trains 10 steps of DDP, saving model and optimizer at step 5. `arg`
    is "kill" (die right after the checkpoint), "resume" (start from it) or
    "straight" (no interruption)."""
    from ember.nn.parallel import DistributedDataParallel as DDP
    phase, path = arg.split(":", 1)
    model = DDP(make_mlp(seed=0))
    opt = ember.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x, y = digits_like()
    first = 0
    if phase == "resume":
        state = dist.checkpoint.load(path)
        model.module.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        first = 5
    for step in range(first, 10):
        if step == 5 and phase == "kill":
            dist.checkpoint.save({"model": model.module.state_dict(), "optimizer": opt.state_dict()}, path)
            os.kill(os.getpid(), 9)
        xb = ember.tensor(x[step * 16 + rank * 8:step * 16 + rank * 8 + 8])
        yb = ember.tensor(y[step * 16 + rank * 8:step * 16 + rank * 8 + 8])
        opt.zero_grad()
        ember.nn.functional.cross_entropy(model(xb), yb).backward()
        opt.step()
    report["params"] = [p.detach().numpy().ravel().tolist() for p in model.parameters()]


def rank_object(rank):
    """What rank `rank` sends in the object scenario: sizes differ from
    rank to rank, from an empty string to a few kilobytes with a tensor."""
    if rank == 0:
        return ""
    if rank == 1:
        return {"nested": {"deeper": {"numbers": [1, 2.5, None, True]}}, "text": "\u00e9" * 3000,
                "tensor": ember.arange(6.0).reshape(2, 3)}
    return [ember.nn.Parameter(ember.ones(2)), {"rank": rank}]


def plain(value):
    """`value` as JSON, each tensor as its values, dtype and kind."""
    if isinstance(value, ember.Tensor):
        return {"tensor": value.tolist(), "dtype": str(value.dtype), "requires_grad": value.requires_grad,
                "parameter": isinstance(value, ember.nn.Parameter)}
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


def error_of(call):
    try:
        call()
    except Exception as error:
        return f"{type(error).__name__}: {error}"
    return None


def objects(rank, world, report, _):
    """Every object collective, the root the last rank, then again on the
    subgroup of ranks 1 and up, then the argument errors. An error raised
    before any collective runs only on the ranks that make it."""
    import warnings
    last = world - 1
    every = [rank_object(r) for r in range(world)]
    results = report["results"] = {}

    gathered = [None] * world
    dist.all_gather_object(gathered, rank_object(rank))
    results["all_gather"] = plain(gathered)
    gathered = [None] * world if rank == last else None
    dist.gather_object(rank_object(rank), gathered, dst=last)
    results["gather"] = plain(gathered)
    gathered = [None] * world if rank == 0 else None
    dist.gather_object(rank_object(rank), gathered)
    results["gather_default"] = plain(gathered)
    listed = list(every) if rank == last else [None] * world
    dist.broadcast_object_list(listed, src=last)
    results["broadcast"] = plain(listed)
    listed = ["from zero", {}] if rank == 0 else [None, None]
    dist.broadcast_object_list(listed)
    results["broadcast_default"] = plain(listed)
    nothing = []
    dist.broadcast_object_list(nothing, src=last)
    results["broadcast_empty"] = nothing
    mine = [None]
    dist.scatter_object_list(mine, every if rank == last else None, src=last)
    results["scatter"] = plain(mine)
    computed = [None] * world
    dist.all_gather_object(computed, ember.ones(1, requires_grad=True) * (rank + 2))
    results["computed"] = plain(computed) + [computed[rank].is_leaf]
    if rank == last:
        dist.send_object_list([rank_object(last), "", {"n": {"m": 1}}], dst=0)
        echoed = [None]
        results["recv_sender"] = dist.recv_object_list(echoed, src=0)
        results["recv"] = plain(echoed)
    elif rank == 0:
        received = [None] * 3
        results["recv_sender"] = dist.recv_object_list(received, src=last)
        results["recv"] = plain(received)
        dist.send_object_list([received[0]], dst=last)

    subgroup = dist.new_group(list(range(1, world)))
    if rank == 0:
        untouched = ["untouched"]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            dist.all_gather_object(untouched, "ignored", group=subgroup)
            results["outsider_recv"] = dist.recv_object_list([None], src=1, group=subgroup)
        results["outsider"] = untouched
        results["outsider_warnings"] = [str(w.message) for w in caught]
    else:
        gathered = [None] * (world - 1)
        dist.all_gather_object(gathered, rank_object(rank), group=subgroup)
        results["sub_all_gather"] = plain(gathered)
        gathered = [None] * (world - 1) if rank == 1 else None
        dist.gather_object(rank_object(rank), gathered, group=subgroup, group_dst=0)
        results["sub_gather"] = plain(gathered)
        listed = [rank_object(last)] if rank == last else [None]
        dist.broadcast_object_list(listed, src=last, group=subgroup)
        results["sub_broadcast"] = plain(listed)
        mine = [None]
        dist.scatter_object_list(mine, [f"to {r}" for r in range(1, world)] if rank == 1 else None,
                                 group=subgroup, group_src=0)
        results["sub_scatter"] = mine

    errors = report["errors"] = {}
    if rank == 0:
        errors["gather_none"] = error_of(lambda: dist.gather_object(1, None, dst=0))
        errors["gather_empty"] = error_of(lambda: dist.gather_object(1, [], dst=0))
        errors["scatter_input_none"] = error_of(lambda: dist.scatter_object_list([None], None, src=0))
        errors["scatter_input_length"] = error_of(lambda: dist.scatter_object_list([None], [1] * (world + 1)))
        errors["send_self"] = error_of(lambda: dist.send_object_list([1], dst=0))
        errors["recv_self"] = error_of(lambda: dist.recv_object_list([None], src=0))
    if rank == 1:
        errors["gather_list_off_root"] = error_of(lambda: dist.gather_object(1, [None] * world, dst=0))
    errors["scatter_output_empty"] = error_of(lambda: dist.scatter_object_list([], None, src=last))
    errors["scatter_output_tuple"] = error_of(lambda: dist.scatter_object_list((None,), None, src=last))
    errors["send_no_dst"] = error_of(lambda: dist.send_object_list([1]))
    errors["both_roots"] = error_of(lambda: dist.broadcast_object_list([None], src=0, group_src=0))
    errors["root_outside"] = error_of(lambda: dist.broadcast_object_list([None], src=world + 5))
    # These two reach the tensor collectives: every rank calls them.
    errors["gather_short"] = error_of(lambda: dist.gather_object(rank, [None] * (world - 1) if rank == 0 else None))
    errors["broadcast_lengths"] = error_of(lambda: dist.broadcast_object_list([rank] * (2 if rank == 0 else 3)))
    after = [None] * world
    dist.all_gather_object(after, rank)
    results["after_errors"] = after


SCENARIOS = {"ddp": ddp, "objects": objects, "mixed": mixed, "zero": zero, "resume": resume, "staged": staged,
             "collectives": collectives, "mismatch": mismatch, "killed": killed, "stalled": stalled}


def main():
    scenario, rank, world, store_file, out_file = sys.argv[1:6]
    arg = sys.argv[6] if len(sys.argv) > 6 else None
    rank, world = int(rank), int(world)
    report = {"rank": rank}
    try:
        import datetime
        timeout = datetime.timedelta(seconds=float(os.environ.get("TEST_GROUP_TIMEOUT", "30")))
        dist.init_process_group("gloo", init_method=f"file://{store_file}", rank=rank, world_size=world,
                                timeout=timeout)
        if scenario == "collectives":
            SCENARIOS[scenario](rank, world, report, [int(s) for s in arg.split(",")])
        else:
            SCENARIOS[scenario](rank, world, report, arg)
        report["ok"] = not report.get("failures")
        if scenario != "killed":
            dist.destroy_process_group()
    except BaseException as error:  # the report says what ended the rank
        report["ok"] = False
        report["exception"] = f"{type(error).__name__}: {error}"
        report["traceback"] = traceback.format_exc()
    with open(out_file + ".tmp", "w") as f:
        json.dump(report, f)
    os.replace(out_file + ".tmp", out_file)
    sys.stdout.flush()
    # A survivor of a killed peer skips interpreter teardown: the group's
    # threads were told nothing about the dead peer's sockets.
    if scenario == "killed":
        os._exit(0)


if __name__ == "__main__":
    main()
