"""Spectral normalization by a forward pre-hook (torch.nn.utils.spectral_norm,
superseded there by parametrizations.spectral_norm): before every call
module.<name> is recomputed as <name>_orig divided by its largest singular
value, which power iteration on the buffers <name>_u and <name>_v estimates,
one or more steps of it per training-mode call."""

import ember

from .. import functional as F
from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..parameter import Parameter, is_lazy

__all__ = ["SpectralNorm", "spectral_norm", "remove_spectral_norm", "default_spectral_dim", "weight_as_matrix"]


def default_spectral_dim(module):
    """The weight dim that holds the output channels: 1 for a transposed
    convolution, whose weight is (in, out, ...), else 0."""
    return 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0


def weight_as_matrix(weight, dim):
    """weight with `dim` first, flattened to rows."""
    if dim != 0:
        weight = weight.permute([dim] + [d for d in range(weight.dim()) if d != dim])
    return weight.flatten(1)


class SpectralNorm:
    """The pre-hook that recomputes module.<name> before each forward."""

    # Recorded in state dict metadata; version 0 saved <name> in place of <name>_v.
    _version = 1

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.name, self.n_power_iterations, self.dim, self.eps = name, n_power_iterations, dim, eps

    def reshape_weight_to_matrix(self, weight):
        return weight_as_matrix(weight, self.dim)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        matrix = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            # In place, so that the buffers stay the tensors state_dict() holds;
            # the clones keep the weight's graph off the next step's updates.
            with ember.no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(F.normalize(matrix.t().mv(u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(matrix.mv(v), dim=0, eps=self.eps))
            u, v = u.clone(), v.clone()
        return weight / u.dot(matrix.mv(v))

    def remove(self, module):
        with ember.no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    def _solve_v_and_rescale(self, matrix, u, target_sigma):
        """The v for which u . (matrix v) is target_sigma, for a version-0
        state dict that kept the normalized weight instead of v."""
        v = ember.linalg.pinv(matrix.t().mm(matrix)).mm(matrix.t()).mv(u)
        return v * (target_sigma / u.dot(matrix.mv(v)))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        if any(isinstance(hook, SpectralNorm) and hook.name == name for hook in module._forward_pre_hooks.values()):
            raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        hook = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters.get(name)
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        if is_lazy(weight):
            raise ValueError("The module passed to `SpectralNorm` can't have uninitialized parameters. Make sure to "
                             "run the dummy forward before applying spectral normalization")
        with ember.no_grad():
            rows, columns = hook.reshape_weight_to_matrix(weight).shape
            u = F.normalize(weight.new_empty([rows]).normal_(0, 1), dim=0, eps=eps)
            v = F.normalize(weight.new_empty([columns]).normal_(0, 1), dim=0, eps=eps)
        delattr(module, name)
        module.register_parameter(name + "_orig", weight)
        # Until the first forward, module.<name> is the unnormalized weight, as in PyTorch.
        setattr(module, name, weight.data)
        module.register_buffer(name + "_u", u)
        module.register_buffer(name + "_v", v)
        module.register_forward_pre_hook(hook)
        module._register_state_dict_hook(_RecordVersion(hook))
        module._register_load_state_dict_pre_hook(_LoadOlderVersion(hook))
        return hook


class _RecordVersion:
    """State dict hook: notes the layout version in the module's metadata."""

    def __init__(self, spectral_norm):
        self.spectral_norm = spectral_norm

    def __call__(self, module, state_dict, prefix, local_metadata):
        versions = local_metadata.setdefault("spectral_norm", {})
        key = self.spectral_norm.name + ".version"
        if key in versions:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        versions[key] = self.spectral_norm._version


class _LoadOlderVersion:
    """Load pre-hook: rebuilds <name>_v from a version-0 state dict's
    normalized <name>, which it drops."""

    def __init__(self, spectral_norm):
        self.spectral_norm = spectral_norm

    def __call__(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        hook = self.spectral_norm
        version = local_metadata.get("spectral_norm", {}).get(hook.name + ".version")
        if version is not None and version >= 1:
            return
        key = prefix + hook.name
        if version is None and key not in state_dict and all(key + s in state_dict for s in ("_orig", "_u", "_v")):
            return  # a current layout saved without metadata
        absent = [key + suffix for suffix in ("_orig", "", "_u") if key + suffix not in state_dict]
        if absent:
            if strict:
                missing_keys.extend(absent)
            return
        with ember.no_grad():
            weight_orig = state_dict[key + "_orig"]
            sigma = (weight_orig / state_dict.pop(key)).mean()
            state_dict[key + "_v"] = hook._solve_v_and_rescale(hook.reshape_weight_to_matrix(weight_orig),
                                                               state_dict[key + "_u"], sigma)


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divides module.<name> by its spectral norm before every call."""
    SpectralNorm.apply(module, name, n_power_iterations, default_spectral_dim(module) if dim is None else dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Makes module.<name> a plain parameter again, holding the normalized
    weight, and drops the hooks spectral_norm added."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    for hooks, kind in ((module._state_dict_hooks, _RecordVersion),
                        (module._load_state_dict_pre_hooks, _LoadOlderVersion)):
        for key, hook in list(hooks.items()):
            if isinstance(hook, kind) and hook.spectral_norm.name == name:
                del hooks[key]
    return module
