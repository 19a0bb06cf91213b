"""Weight normalization by a forward pre-hook (torch.nn.utils.weight_norm,
deprecated there in favour of parametrizations.weight_norm): module.<name>
is recomputed from <name>_g (magnitude) and <name>_v (direction) before
every call."""

import warnings

from ..parameter import Parameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm", "norm_except_dim", "normalized_weight"]


def norm_except_dim(v, dim):
    """The 2-norm of v over every dim but `dim`, shaped to broadcast against
    v; over all of v when dim is -1, as torch.norm_except_dim."""
    if dim == -1:
        return v.norm()
    dim = dim % v.dim()
    others = [d for d in range(v.dim()) if d != dim]
    return (v * v).sum(others, keepdim=True).sqrt()


def normalized_weight(v, g, dim):
    """g * v / |v|, torch._weight_norm."""
    return v * (g / norm_except_dim(v, dim))


class WeightNorm:
    """The pre-hook that recomputes module.<name> before each forward."""

    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module):
        return normalized_weight(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"), self.dim)

    @staticmethod
    def apply(module, name, dim):
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=3)
        if any(isinstance(hook, WeightNorm) and hook.name == name for hook in module._forward_pre_hooks.values()):
            raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        hook = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, hook.dim).detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, hook.compute_weight(module))
        module.register_forward_pre_hook(hook)
        return hook

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
