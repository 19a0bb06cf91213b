"""ZeroRedundancyOptimizer (ZeRO stage 1): each rank keeps the optimizer
state of a share of the parameters only, updates that share, and broadcasts
it to the other ranks after each step.

The shares are PyTorch's: each group's parameters, largest first, go to the
rank holding the fewest elements so far. The object's param_groups are the
global ones (an LR schedule changes them), copied into the rank's local
optimizer before each step. state_dict() needs consolidate_state_dict(to)
on every rank first and then holds the whole state, in the layout of a
plain optimizer over all parameters, on rank `to`; load_state_dict takes
that layout on every rank."""

from ...optim.optimizer import Optimizer
from .. import distributed_c10d as c10d
from .._object_collectives import gather_object

__all__ = ["ZeroRedundancyOptimizer"]


class ZeroRedundancyOptimizer(Optimizer):
    def __init__(self, params, optimizer_class, process_group=None, parameters_as_bucket_view=False,
                 overlap_with_ddp=False, **defaults):
        if overlap_with_ddp:
            raise NotImplementedError("ZeroRedundancyOptimizer(overlap_with_ddp=True) is not supported; step the "
                                      "optimizer after backward")
        super().__init__(params, defaults)
        self.process_group = process_group
        self.world_size = c10d.get_world_size(process_group)
        self.rank = c10d.get_rank(process_group)
        self._optimizer_class, self._defaults = optimizer_class, defaults
        self._partition()

    def _partition(self):
        """owners[i]: the rank updating global parameter i; the local optimizer over this rank's share."""
        self._params = [p for group in self.param_groups for p in group["params"]]
        index = {id(p): i for i, p in enumerate(self._params)}
        self._owners = [0] * len(self._params)
        sizes = [0] * self.world_size
        local_groups = []
        for group in self.param_groups:
            for param in sorted(group["params"], key=lambda t: t.numel(), reverse=True):
                rank = sizes.index(min(sizes))
                self._owners[index[id(param)]] = rank
                sizes[rank] += param.numel()
            mine = [p for p in group["params"] if self._owners[index[id(p)]] == self.rank]
            local_groups.append({**{k: v for k, v in group.items() if k != "params"}, "params": mine})
        # A rank may own nothing of a group (or of any): its local optimizer has only the groups it owns.
        self._local_groups = local_groups
        owned = [g for g in local_groups if g["params"]]
        self.optim = self._optimizer_class(owned, **self._defaults) if owned else None
        self._all_state_dicts = None

    def add_param_group(self, param_group):
        super().add_param_group(param_group)
        if hasattr(self, "_owners"):
            self._partition()

    def _sync_param_groups(self):
        if self.optim is None:
            return
        local = iter(self.optim.param_groups)
        for group, mine in zip(self.param_groups, self._local_groups):
            if mine["params"]:
                next(local).update({k: v for k, v in group.items() if k != "params"})

    def step(self, closure=None, **kwargs):
        self._sync_param_groups()
        loss = self.optim.step(closure, **kwargs) if self.optim is not None else (closure() if closure else None)
        self._broadcast_shares()
        return loss

    def _broadcast_shares(self):
        for owner in range(self.world_size):
            share = [p for p, rank in zip(self._params, self._owners) if rank == owner]
            if share:
                c10d.broadcast_coalesced(share, owner, self.process_group)

    def _local_to_global(self):
        """Global indices of the local optimizer's parameters, in its state dict's numbering."""
        index = {id(p): i for i, p in enumerate(self._params)}
        return [index[id(p)] for g in self._local_groups for p in g["params"]]

    def consolidate_state_dict(self, to=0):
        """Gathers every rank's share of the state on rank `to` (all ranks call it)."""
        local = self.optim.state_dict() if self.optim is not None else {"state": {}}
        mapping = self._local_to_global()
        shared = {mapping[int(i)]: values for i, values in local["state"].items()}
        gathered = [None] * self.world_size if self.rank == to else None
        gather_object(shared, gathered, dst=c10d.get_global_rank(self.process_group, to) if self.process_group
                      is not None else to, group=self.process_group)
        self._all_state_dicts = gathered

    def state_dict(self):
        if self._all_state_dicts is None:
            raise RuntimeError(f"Optimizer state has not been consolidated on this rank. Please call "
                               f"`consolidate_state_dict(to={self.rank})` on all ranks beforehand if you meant to "
                               f"save the global state.")
        state = {}
        for share in self._all_state_dicts:
            state.update(share)
        groups, offset = [], 0
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = list(range(offset, offset + len(group["params"])))
            offset += len(group["params"])
            groups.append(packed)
        return {"state": dict(sorted(state.items())), "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Takes the whole state (as state_dict() gives it) on every rank and keeps this rank's share."""
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for own, saved in zip(self.param_groups, groups):
            own.update({k: v for k, v in saved.items() if k != "params"})
        if self.optim is None:
            return
        mapping = self._local_to_global()
        local_state = {position: state_dict["state"][index] for position, index in enumerate(mapping)
                       if index in state_dict["state"]}
        local_groups = []
        position = 0
        for own, mine in zip(self.param_groups, self._local_groups):
            if mine["params"]:
                local_groups.append({**{k: v for k, v in own.items() if k != "params"},
                                     "params": list(range(position, position + len(mine["params"])))})
                position += len(mine["params"])
        self.optim.load_state_dict({"state": local_state, "param_groups": local_groups})
        self._sync_param_groups()

    def _update_group(self, group, params, grads, states):
        raise RuntimeError("ZeroRedundancyOptimizer steps through its local optimizer")
