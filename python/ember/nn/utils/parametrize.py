"""Parametrizations: a module's tensor recomputed on every read from the
tensors it is made of, as torch.nn.utils.parametrize does it.

Registering a parametrization on ``module.weight`` moves the parameter to
``module.parametrizations.weight.original`` (``original0``, ``original1`` ...
when the parametrization's ``right_inverse`` splits it) and turns ``weight``
into a property of a subclass made for this one module
(``ParametrizedLinear`` for a Linear): reading it runs the parametrizations,
assigning to it runs their ``right_inverse``s."""

import collections.abc
import copy
from contextlib import contextmanager

from ... import _C
from ...autograd.grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations", "transfer_parametrizations_and_params"]

# Inside `cached()`, each parametrized tensor is computed once, on its first
# read, and kept here under (id(module), tensor name) until the outermost
# `cached()` exits.
_cache_depth = 0
_cache = {}


@contextmanager
def cached():
    """Reads of parametrized tensors inside the block reuse one computation each."""
    global _cache_depth
    _cache_depth += 1
    try:
        yield
    finally:
        _cache_depth -= 1
        if not _cache_depth:
            _cache.clear()


def _register_tensor(module, name, tensor):
    if isinstance(tensor, Parameter):
        module.register_parameter(name, tensor)
    else:
        module.register_buffer(name, tensor)


def _replace_data(destination, source):
    """destination takes source's data in place, keeping its identity, as
    PyTorch's set_ does: optimizers holding destination see the new value."""
    if destination is not source:
        destination.data = source


def _type_name(value):
    return type(value).__name__


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, and the tensors
    they start from: ``original``, or ``original0``... when the first one's
    ``right_inverse`` returns a sequence."""

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype
        with no_grad():
            new = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, (_C.Tensor, collections.abc.Sequence)):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                             f"Got {_type_name(new)}")
        self.is_tensor = isinstance(new, _C.Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if new.dtype != original.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                                 f"original.dtype: {original.dtype}\nright_inverse(original).dtype: {new.dtype}")
            if new.device != original.device:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the device.\n"
                                 f"original.device: {original.device}\n"
                                 f"right_inverse(original).device: {new.device}")
            with no_grad():
                _replace_data(original, new)
            _register_tensor(self, "original", original)
        else:
            for index, part in enumerate(new):
                if not isinstance(part, _C.Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...)."
                                     f" Got element {index} of the sequence with type {_type_name(part)}.")
                if isinstance(original, Parameter):
                    part = Parameter(part, original.requires_grad)
                part.requires_grad_(original.requires_grad)
                _register_tensor(self, f"original{index}", part)
        if not self.unsafe:
            value = self()
            if not isinstance(value, _C.Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {_type_name(value)}.")
            if value.dtype != original_dtype:
                raise ValueError("Registering a parametrization may not change the dtype of the tensor, unless "
                                 f"`unsafe` flag is enabled.\nunparametrized dtype: {original_dtype}\n"
                                 f"parametrized dtype: {value.dtype}")
            if value.shape != original_shape:
                raise ValueError("Registering a parametrization may not change the shape of the tensor, unless "
                                 f"`unsafe` flag is enabled.\nunparametrized shape: {original_shape}\n"
                                 f"parametrized shape: {value.shape}")

    def _originals(self):
        return [self.original] if self.is_tensor else [getattr(self, f"original{i}") for i in range(self.ntensors)]

    def right_inverse(self, value):
        """Sets the originals so that the parametrizations give `value`."""
        with no_grad():
            for module in reversed(list(self)):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {_type_name(module)} does not implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, _C.Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {_type_name(value)}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype {value.dtype} while "
                                     f"`original` has dtype {self.original.dtype}")
                _replace_data(self.original, value)
                return
            if not isinstance(value, collections.abc.Sequence):
                raise ValueError(f"'right_inverse' must return a sequence of tensors. Got {_type_name(value)}.")
            if len(value) != self.ntensors:
                raise ValueError(f"'right_inverse' must return a sequence of tensors of length {self.ntensors}. "
                                 f"Got a sequence of length {len(value)}.")
            for index, (original, part) in enumerate(zip(self._originals(), value)):
                if not isinstance(part, _C.Tensor):
                    raise ValueError("'right_inverse' must return a sequence of tensors or reference-type opaques. "
                                     f"Got element {index} of type {_type_name(part)}.")
                if part.dtype != original.dtype:
                    raise ValueError(f"Tensor {index} returned by `right_inverse` has dtype {part.dtype} while "
                                     f"`original{index}` has dtype {original.dtype}")
                _replace_data(original, part)

    def forward(self):
        first, *rest = list(self)
        value = first(*self._originals())
        for module in rest:
            value = module(value)
        return value


def _deepcopy_by_dict(self, memo):
    """copy.deepcopy without __getstate__, which parametrized modules refuse."""
    if id(self) in memo:
        return memo[id(self)]
    replica = self.__new__(type(self))
    memo[id(self)] = replica
    replica.__dict__ = copy.deepcopy(self.__dict__, memo)
    return replica


def _refuse_pickling(self):
    raise RuntimeError("Serialization of parametrized modules is only supported through state_dict(). See:\n"
                       "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
                       "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")


def _give_own_class(module):
    """module's class becomes a new subclass of it, so that properties added
    for its parametrized tensors touch no other instance."""
    cls = type(module)
    namespace = {"__getstate__": _refuse_pickling}
    if not hasattr(cls, "__deepcopy__"):
        namespace["__deepcopy__"] = _deepcopy_by_dict
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), namespace)


def _add_property(module, tensor_name):
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def read(self):
        parametrization = self.parametrizations[tensor_name]
        if not _cache_depth:
            return parametrization()
        key = (id(self), tensor_name)
        if key not in _cache:
            _cache[key] = parametrization()
        return _cache[key]

    def assign(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(type(module), tensor_name, property(read, assign))


def _check_kept(value, current, name, sentence, label):
    """A parametrization chained on an existing one keeps the tensor's dtype and shape."""
    for attribute in ("dtype", "shape"):
        have, want = getattr(value, attribute), getattr(current, attribute)
        if have != want:
            raise ValueError(f"{sentence.format(attribute)}, unless the `unsafe` flag is enabled.\n"
                             f"{name}.{attribute}: {want}\n{label.format(attribute)}: {have}")


def _check_chained(module, tensor_name, parametrization):
    current = getattr(module, tensor_name)
    name = f"module.{tensor_name}"
    value = parametrization(current)
    if not isinstance(value, _C.Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {_type_name(value)}.")
    _check_kept(value, current, name, "Registering a parametrization may not change the {} of the tensor",
                f"parametrization({name}).{{}}")
    if not hasattr(parametrization, "right_inverse"):
        return
    try:
        inverse = parametrization.right_inverse(value)
    except NotImplementedError:
        return
    if not isinstance(inverse, _C.Tensor):
        raise ValueError(f"parametrization.right_inverse must return a tensor. Got: {_type_name(inverse)}")
    _check_kept(inverse, current, name,
                f"The tensor returned by parametrization.right_inverse must have the same {{}} as {name}",
                "returned {}")


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Makes module.<tensor_name> parametrization(<its original>); a second
    registration on the same name applies after the first."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_chained(module, tensor_name, parametrization)
        chain = module.parametrizations[tensor_name]
        chain.append(parametrization)
        chain.unsafe |= unsafe
    elif tensor_name in module._parameters or tensor_name in module._buffers:
        chain = ParametrizationList([parametrization], getattr(module, tensor_name), unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _give_own_class(module)
            module.parametrizations = ModuleDict()
        _add_property(module, tensor_name)
        module.parametrizations[tensor_name] = chain
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with "
                         f"name '{tensor_name}'")
    return module


def is_parametrized(module, tensor_name=None):
    """Whether module has any parametrization, or one on tensor_name."""
    parametrizations = getattr(module, "parametrizations", None)
    if not isinstance(parametrizations, ModuleDict):
        return False
    return len(parametrizations) > 0 if tensor_name is None else tensor_name in parametrizations


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Turns module.<tensor_name> back into a plain parameter or buffer
    holding its parametrized value, or its original with
    leave_parametrized=False; the module gets its own class back when no
    parametrization is left."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    chain = module.parametrizations[tensor_name]
    if chain.is_tensor:
        original = chain.original
        if leave_parametrized:
            with no_grad():
                _replace_data(original, getattr(module, tensor_name))
    elif leave_parametrized:
        value = getattr(module, tensor_name)
        original = Parameter(value) if value.requires_grad else value
    else:
        raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized in "
                         "terms of a sequence of tensors.")
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    _register_tensor(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = type(module).__bases__[0]
    return module


def type_before_parametrizations(module):
    """The module's class as it was before any parametrization."""
    return type(module).__bases__[0] if is_parametrized(module) else type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Registers from_module's parametrizations (of every tensor, or of
    tensor_name) on to_module, sharing their modules and originals; to_module
    gets a parameter of that name first where it has none."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        source = from_module.parametrizations[name]
        for parametrization in source:
            register_parametrization(to_module, name, parametrization)
        target = to_module.parametrizations[name]
        if source.is_tensor:
            target.original = source.original
        else:
            for index in range(source.ntensors):
                setattr(target, f"original{index}", getattr(source, f"original{index}"))
    return to_module
