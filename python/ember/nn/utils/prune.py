"""torch.nn.utils.prune: zeroing a parameter's entries through a mask, as
PyTorch's pruning does.

Pruning `weight` of a module moves the parameter to `weight_orig`, keeps
the mask as the buffer `weight_mask`, and makes `weight` a plain attribute,
`weight_orig * weight_mask`, which a forward pre-hook (the pruning method
itself) recomputes before every call, so gradients reach `weight_orig`
through the mask. Pruning a parameter again prunes among the entries (or
channels) still kept, the masks combined by a PruningContainer. remove()
makes it permanent: `weight` becomes a parameter holding the pruned values.
"""

import numbers

from ... import _C, _factories
from ...autograd.grad_mode import no_grad
from ...linalg import vector_norm

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured", "L1Unstructured",
           "RandomStructured", "LnStructured", "CustomFromMask", "identity", "random_unstructured", "l1_unstructured",
           "random_structured", "ln_structured", "global_unstructured", "custom_from_mask", "remove", "is_pruned"]


def _count_to_prune(amount, size):
    """How many of `size` entries `amount` names: an int as it is, a float as that fraction, rounded."""
    if isinstance(amount, numbers.Integral):
        return int(amount)
    return round(amount * size)


def _check_amount(amount):
    if not isinstance(amount, numbers.Real) or isinstance(amount, bool):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral) and (float(amount) > 1.0 or float(amount) < 0.0)):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer")


def _check_count(count, size):
    if count > size:
        raise ValueError(f"amount={count} should be smaller than the number of parameters to prune={size}")


def _norm_over_other_dims(t, n, dim):
    """The n-norm of each slice of t along dim (in [0, t.dim()); "fro" is 2)."""
    return vector_norm(t, ord=2 if n == "fro" else n, dim=[d for d in range(t.dim()) if d != dim])


def _channels_mask(t, dim, kept):
    """A mask of t's shape that keeps the slices `kept` (indices) along dim."""
    mask = _factories.zeros_like(t)
    index = [slice(None)] * t.dim()
    index[dim] = kept
    mask[tuple(index)] = 1
    return mask


def _pruning_hook(module, name):
    """The key and the pruning method of module's forward pre-hook that prunes `name`, or (None, None)."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            return key, hook
    return None, None


class BasePruningMethod:
    """A way to compute a mask; apply(module, name, ...) prunes with it."""

    PRUNING_TYPE = None
    _tensor_name = None

    def __call__(self, module, inputs):
        setattr(module, self._tensor_name, self.apply_mask(module))

    def compute_mask(self, t, default_mask):
        raise NotImplementedError

    def apply_mask(self, module):
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        return getattr(module, self._tensor_name + "_mask").to(getattr(module, self._tensor_name + "_orig").dtype) \
            * getattr(module, self._tensor_name + "_orig")

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        key, old_method = _pruning_hook(module, name)
        if old_method is not None:
            del module._forward_pre_hooks[key]
        method = cls(*args, **kwargs)
        method._tensor_name = name
        if old_method is not None:
            container = old_method if isinstance(old_method, PruningContainer) else PruningContainer(old_method)
            container.add_pruning_method(method)
            method = container
        orig = getattr(module, name)
        if importance_scores is not None and tuple(importance_scores.shape) != tuple(orig.shape):
            raise ValueError(f"importance_scores should have the same shape as parameter {name} of {module}")
        if old_method is None:
            default_mask = _factories.ones_like(orig)
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        scores = importance_scores if importance_scores is not None else getattr(module, name + "_orig")
        with no_grad():
            mask = method.compute_mask(scores.detach(), default_mask=default_mask)
        module.register_buffer(name + "_mask", mask)
        setattr(module, name, method.apply_mask(module))
        module.register_forward_pre_hook(method)
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        scores = importance_scores if importance_scores is not None else t
        default_mask = default_mask if default_mask is not None else _factories.ones_like(t)
        return t * self.compute_mask(scores, default_mask=default_mask)

    def remove(self, module):
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = weight.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


class PruningContainer(BasePruningMethod):
    """Several pruning methods applied in turn to one parameter."""

    def __init__(self, *methods):
        self._pruning_methods = ()
        if len(methods) == 1 and not isinstance(methods[0], BasePruningMethod):
            methods = tuple(methods[0])
        for method in methods:
            self.add_pruning_method(method)

    def add_pruning_method(self, method):
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name and self._tensor_name is not None:
            raise ValueError(f"Can only add pruning methods acting on the parameter named '{self._tensor_name}' to "
                             f"PruningContainer. Found '{method._tensor_name}'")
        self._pruning_methods += (method,)
        self._tensor_name = method._tensor_name

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, index):
        return self._pruning_methods[index]

    def compute_mask(self, t, default_mask):
        method = self._pruning_methods[-1]
        mask = default_mask.to(t.dtype)
        if method.PRUNING_TYPE == "unstructured":
            kept = default_mask == 1
            partial = method.compute_mask(t[kept], default_mask=default_mask[kept])
            mask[kept] = partial.to(mask.dtype)
            return mask
        if method.PRUNING_TYPE == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError("Pruning methods of PRUNING_TYPE 'structured' need to have the attribute `dim` "
                                     "defined.")
            dim = method.dim % max(t.dim(), 1)
            others = [d for d in range(t.dim()) if d != dim]
            kept = (default_mask.sum(others) != 0).nonzero().reshape(-1) if others else \
                (default_mask != 0).nonzero().reshape(-1)
            index = [slice(None)] * t.dim()
            index[dim] = kept
            index = tuple(index)
            partial = method.compute_mask(t[index], default_mask=default_mask[index])
            mask[index] = partial.to(mask.dtype)
            return mask
        if method.PRUNING_TYPE == "global":
            return method.compute_mask(t, default_mask=default_mask)
        raise ValueError(f"Unrecognized PRUNING_TYPE {method.PRUNING_TYPE}")


class Identity(BasePruningMethod):
    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


class _Unstructured(BasePruningMethod):
    """Prunes the `amount` entries that _chosen picks, anywhere in the tensor."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        size = t.numel()
        count = _count_to_prune(self.amount, size)
        _check_count(count, size)
        mask = default_mask.clone()
        if count:
            mask.view(-1)[self._chosen(t.reshape(-1), count)] = 0
        return mask


class RandomUnstructured(_Unstructured):
    def _chosen(self, flat, count):
        return _factories.rand_like(flat).topk(count).indices

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(_Unstructured):
    def _chosen(self, flat, count):
        return flat.abs().topk(count, largest=False).indices

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class _Structured(BasePruningMethod):
    """Prunes the `amount` slices along `dim` that _kept(t, dim, count) leaves out."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _check_amount(amount)
        self.amount, self.dim = amount, dim

    def compute_mask(self, t, default_mask):
        channels = t.shape[self.dim]
        count = _count_to_prune(self.amount, channels)
        _check_count(count, channels)
        if count == 0:
            return default_mask
        dim = self.dim % t.dim()
        return _channels_mask(t, dim, self._kept(t, dim, channels - count)) * default_mask.to(t.dtype)


class RandomStructured(_Structured):
    def _kept(self, t, dim, count):
        return _factories.rand(t.shape[dim]).topk(count).indices

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(_Structured):
    def __init__(self, amount, n, dim=-1):
        super().__init__(amount, dim)
        self.n = n

    def _kept(self, t, dim, count):
        return _norm_over_other_dims(t, self.n, dim).topk(count).indices

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if tuple(default_mask.shape) != tuple(self.mask.shape):
            raise AssertionError(f"the mask's shape {list(self.mask.shape)} is not the parameter's "
                                 f"{list(default_mask.shape)}")
        return default_mask * self.mask.to(default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


def identity(module, name):
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module, name, mask):
    CustomFromMask.apply(module, name, mask)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prunes the (module, name) pairs together: pruning_method (an
    unstructured one) chooses among all their entries at once."""
    parameters = list(parameters)
    if not parameters:
        raise TypeError("global_unstructured(): parameters must be a non-empty iterable of (module, name) pairs")
    importance_scores = importance_scores or {}
    scores = [importance_scores.get((module, name), getattr(module, name)).detach().reshape(-1)
              for module, name in parameters]
    masks = [getattr(module, name + "_mask", _factories.ones_like(getattr(module, name))).reshape(-1)
             for module, name in parameters]
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(f'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
                        f"{pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    with no_grad():
        final = container.compute_mask(_C.cat(scores), _C.cat(masks))
    start = 0
    for module, name in parameters:
        size = getattr(module, name).numel()
        custom_from_mask(module, name, final[start:start + size].view_as(getattr(module, name)))
        start += size


def remove(module, name):
    """Makes the pruning of module.name permanent: a parameter holding the
    pruned values, without the _orig parameter, the mask and the hook."""
    key, method = _pruning_hook(module, name)
    if method is not None:
        method.remove(module)
        del module._forward_pre_hooks[key]
        return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")


def is_pruned(module):
    """Whether any submodule of module has a parameter pruned."""
    return any(isinstance(hook, BasePruningMethod) for sub in module.modules()
               for hook in sub._forward_pre_hooks.values())
