"""The Optimizer base: parameter groups with their hyperparameters, per
parameter state, zero_grad, and state dicts in PyTorch's layout (state keyed
by the parameter's position across groups)."""

from .. import _C
from ..autograd.grad_mode import enable_grad, no_grad


class _Required:
    def __repr__(self):
        return "<required parameter>"


required = _Required()


def check_hyperparameters(**values):
    """PyTorch's ValueError for a negative lr, eps, weight_decay or a beta
    outside [0, 1)."""
    labels = {"lr": "learning rate", "eps": "epsilon value"}
    for name, value in values.items():
        if name == "betas":
            for index, beta in enumerate(value):
                if not 0.0 <= beta < 1.0:
                    raise ValueError(f"Invalid beta parameter at index {index}: {beta}")
        elif not 0.0 <= value:
            raise ValueError(f"Invalid {labels.get(name, name + ' value')}: {value}")


def implementation_choices(**choices):
    """PyTorch's choices of how a step runs (foreach, fused, capturable,
    differentiable), kept in the defaults and so in state dicts as PyTorch
    keeps them. Ember has one implementation of each update, which serves
    every choice but a differentiable step."""
    if choices.get("differentiable"):
        raise NotImplementedError("differentiable=True: Ember's optimizer steps are not differentiable")
    return choices


def lerp_(tensor, end, weight):
    """tensor += weight * (end - tensor), in place, computed as PyTorch's
    lerp is (from the nearer end, for exactness at both)."""
    if weight < 0.5:
        return tensor.add_(end - tensor, alpha=weight)
    return tensor.copy_(end - (end - tensor) * (1 - weight))


def zeros_like(param):
    return _C._zeros(list(param.shape), param.dtype, param.device)


def step_counter(value=0.0):
    """A state's "step": a float32 0-d tensor, as in PyTorch's state dicts."""
    return _C._full([], value, _C.float32, _C.device("cpu"))


class Optimizer:
    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = {}
        self.param_groups = []
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        groups = params if isinstance(params[0], dict) else [{"params": params}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        group = dict(param_group)
        params = group["params"]
        group["params"] = [params] if isinstance(params, _C.Tensor) else list(params)
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            group.setdefault(name, default)
        existing = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in existing for p in group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            for param in group["params"]:
                if param.grad is None:
                    continue
                if set_to_none:
                    param.grad = None
                else:
                    param.grad.zero_()

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                params = [param for param in group["params"] if param.grad is not None]
                if params:
                    states = [self.state.setdefault(param, {}) for param in params]
                    self._update_group(group, params, [param.grad for param in params], states)
        return loss

    def _update_group(self, group, params, grads, states):
        """Updates a group's parameters that have gradients, in place, with
        one call into ember._C._foreach (Note [Foreach updates]); creates
        their state on the first step (subclasses)."""
        raise NotImplementedError

    def state_dict(self):
        index = {}
        groups = []
        for group in self.param_groups:
            packed = {key: value for key, value in group.items() if key != "params"}
            packed["params"] = [index.setdefault(id(p), len(index)) for p in group["params"]]
            groups.append(packed)
        state = {index[id(p)]: dict(values) for p, values in self.state.items() if id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        params_by_index = {}
        for own, saved in zip(self.param_groups, groups):
            if len(own["params"]) != len(saved["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                                 "optimizer's group")
            params_by_index.update(zip(saved["params"], own["params"]))
            own.update({key: value for key, value in saved.items() if key != "params"})
        self.state = {}
        for index, values in state_dict["state"].items():
            param = params_by_index[int(index)]
            self.state[param] = {key: value.to(param.device) if isinstance(value, _C.Tensor) and
                                 value.is_floating_point() else value for key, value in values.items()}

    def __repr__(self):
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines += [f"    {key}: {group[key]}" for key in sorted(group) if key != "params"]
        return "\n".join(lines) + "\n)"
