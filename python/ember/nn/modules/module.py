"""nn.Module: parameters, buffers and submodules registered by assignment
(``self.fc = Linear(...)``), the recursive views of them, state dicts with
their save and load hooks, modes, device/dtype moves and forward hooks, as in
PyTorch."""

import functools
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ... import _C
from ..._memory_format import in_format
from ..._tensor import parse_to_arguments
from ...autograd.grad_mode import no_grad
from ..parameter import Buffer, Parameter, is_lazy
from ._backward_hooks import BackwardHookCall

class _IncompatibleKeys(namedtuple("_IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns: the keys it found missing and unexpected."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class RemovableHandle:
    """Returned by hook registration; remove() unregisters the hook."""

    _next_id = 0

    def __init__(self, hooks, *extra_registries):
        self._registries = (hooks,) + extra_registries
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1

    def remove(self):
        for registry in self._registries:
            registry.pop(self.id, None)


# The state dict key, under a module's prefix, of what get_extra_state returns.
_EXTRA_STATE_KEY = "_extra_state"


# Note [Module state version]: bumped whenever any module's parameters,
# buffers, submodules or training flag are assigned, or a lazy module's
# placeholders take their shapes, so a compiled module
# (ember.compile) re-checks what it traced against only after a change.
_state_version = [0]


def _note_state_change():
    _state_version[0] += 1


def _check_member_name(kind, name):
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
    if "." in name:
        raise KeyError(f"{kind} name can't contain \".\"")
    if name == "":
        raise KeyError(f"{kind} name can't be empty string \"\"")


class Module:
    training = True
    # Saved in each state dict's _metadata, so that _load_from_state_dict
    # overrides can convert entries saved by an older layout of the module.
    _version = 1

    def __init__(self):
        # object.__setattr__: our own __setattr__ needs these dicts to exist.
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers", set())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_forward_hooks", OrderedDict())
        object.__setattr__(self, "_forward_pre_hooks", OrderedDict())
        object.__setattr__(self, "_forward_pre_hooks_with_kwargs", OrderedDict())
        object.__setattr__(self, "_forward_hooks_with_kwargs", OrderedDict())
        object.__setattr__(self, "_backward_hooks", OrderedDict())
        object.__setattr__(self, "_backward_pre_hooks", OrderedDict())
        object.__setattr__(self, "_state_dict_pre_hooks", OrderedDict())
        object.__setattr__(self, "_state_dict_hooks", OrderedDict())
        object.__setattr__(self, "_load_state_dict_pre_hooks", OrderedDict())
        object.__setattr__(self, "_load_state_dict_post_hooks", OrderedDict())

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} has no forward()")

    def __call__(self, *args, **kwargs):
        return self._call_with_hooks(self.forward, args, kwargs)

    def compile(self, *args, **kwargs):
        """Compiles this module's forward in place (ember.compile's arguments): the compiled forward becomes
        the instance's `forward`, so later calls run it, with the hooks around it run eagerly."""
        from ...compiler import compile as compile_module
        self.__dict__["forward"] = compile_module(self, *args, **kwargs).forward

    def _call_with_hooks(self, forward, args, kwargs):
        """forward(*args, **kwargs) between this module's pre-hooks and hooks."""
        for key, hook in list(self._forward_pre_hooks.items()):
            if key in self._forward_pre_hooks_with_kwargs:
                replaced = hook(self, args, kwargs)
                if replaced is not None:
                    if not (isinstance(replaced, tuple) and len(replaced) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                           f"but got {replaced}.")
                    args, kwargs = replaced
                continue
            replaced = hook(self, args)
            if replaced is not None:
                args = replaced if isinstance(replaced, tuple) else (replaced,)
        backward_hooks = None
        if self._backward_hooks or self._backward_pre_hooks:
            backward_hooks = BackwardHookCall(self)
            args = backward_hooks.wrap_arguments(args)
        result = forward(*args, **kwargs)
        for key, hook in list(self._forward_hooks.items()):
            if key in self._forward_hooks_with_kwargs:
                replaced = hook(self, args, kwargs, result)
            else:
                replaced = hook(self, args, result)
            if replaced is not None:
                result = replaced
        if backward_hooks is not None:
            result = backward_hooks.wrap_outputs(result)
        return result

    # --- registration
    def register_parameter(self, name, param):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameters before Module.__init__() call")
        _check_member_name("parameter", name)
        if hasattr(self, name) and name not in self._parameters:
            # A property (a parametrized tensor) or a buffer or submodule of that name.
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{type(param).__name__}' as parameter '{name}' "
                            "(nn.Parameter or None expected)")
        self._parameters[name] = param
        _note_state_change()

    def register_buffer(self, name, tensor, persistent=True):
        _check_member_name("buffer", name)
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, _C.Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' as buffer '{name}' (Tensor or None expected)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers.discard(name)
        else:
            self._non_persistent_buffers.add(name)
        _note_state_change()

    def register_module(self, name, module):
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._modules[name] = module
        _note_state_change()

    add_module = register_module

    @staticmethod
    def _add_hook(hooks, hook, prepend=False, kwargs_hooks=None, with_kwargs=False):
        """Registers hook in hooks, first when prepend; kwargs_hooks marks
        the hooks of that kind that take the call's kwargs."""
        handle = RemovableHandle(hooks) if kwargs_hooks is None else RemovableHandle(hooks, kwargs_hooks)
        hooks[handle.id] = hook
        if with_kwargs:
            kwargs_hooks[handle.id] = True
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False):
        """hook(module, args, output) -> None or a new output; with_kwargs,
        hook(module, args, kwargs, output)."""
        return self._add_hook(self._forward_hooks, hook, prepend, self._forward_hooks_with_kwargs, with_kwargs)

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """hook(module, args) -> None or new args; with_kwargs,
        hook(module, args, kwargs) -> None or (new args, new kwargs)."""
        return self._add_hook(self._forward_pre_hooks, hook, prepend, self._forward_pre_hooks_with_kwargs,
                              with_kwargs)

    def register_backward_hook(self, hook):
        """PyTorch's deprecated module backward hook, run here as a full backward hook (which is what PyTorch
        asks programs to use instead): hook(module, grad_input, grad_output)."""
        import warnings
        warnings.warn("Using a non-full backward hook when the forward contains multiple autograd Nodes is "
                      "deprecated and will be removed in future versions; it runs as a full backward hook",
                      FutureWarning, stacklevel=2)
        return self.register_full_backward_hook(hook)

    def register_full_backward_hook(self, hook, prepend=False):
        """hook(module, grad_input, grad_output) -> None or new grad_input,
        run once the gradients of the module's tensor arguments are known
        (_backward_hooks.py)."""
        return self._add_hook(self._backward_hooks, hook, prepend)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """hook(module, grad_output) -> None or new grad_output, run once the
        gradients of the module's outputs are known."""
        return self._add_hook(self._backward_pre_hooks, hook, prepend)

    def register_state_dict_pre_hook(self, hook):
        """hook(module, prefix, keep_vars), run before the module saves its entries."""
        return self._add_hook(self._state_dict_pre_hooks, hook)

    def register_state_dict_post_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata) -> None, run after
        the module and its children saved theirs; it edits state_dict in place."""
        hook._from_public_api = True
        return self._add_hook(self._state_dict_hooks, hook)

    def _register_state_dict_hook(self, hook):
        """The older form of register_state_dict_post_hook: a returned dict
        replaces the state dict, though only when this module is the root."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("Cannot register the same function as the state dict post hook that was "
                               "previously registered via register_state_dict_post_hook")
        return self._add_hook(self._state_dict_hooks, hook)

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        """hook(state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs), with the module first if with_module; it
        may rewrite the entries before this module loads them."""
        return self._add_hook(self._load_state_dict_pre_hooks, functools.partial(hook, self) if with_module else hook)

    def register_load_state_dict_pre_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata, strict,
        missing_keys, unexpected_keys, error_msgs)."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook):
        """hook(module, incompatible_keys) -> None, run after the module and its
        children loaded; clearing the key lists in place avoids strict's error."""
        return self._add_hook(self._load_state_dict_post_hooks, hook)

    def __setattr__(self, name, value):
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            self._forget(name, keep="_parameters")
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as parameter '{name}' "
                                "(nn.Parameter or None expected)")
            params[name] = None
            _note_state_change()
        elif isinstance(value, Buffer):
            self._forget(name, keep="_buffers")
            self.register_buffer(name, value.detach(), value.persistent)
        elif isinstance(value, Module):
            self._forget(name, keep="_modules")
            self.register_module(name, value)
        elif name in self.__dict__.get("_modules", {}):
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as child module '{name}'")
            self._modules[name] = None
            _note_state_change()
        elif name in self.__dict__.get("_buffers", {}):
            if value is not None and not isinstance(value, _C.Tensor):
                raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}'")
            self._buffers[name] = value
            _note_state_change()
        else:
            object.__setattr__(self, name, value)
            if name == "training":
                _note_state_change()

    def _forget(self, name, keep):
        """Drops `name` from every registry but `keep`, where re-assigning it
        keeps its place: parameters() and state_dict() order, which optimizer
        state follows, stays as it was, as in PyTorch."""
        for registry in ("_parameters", "_buffers", "_modules"):
            if registry != keep:
                self.__dict__.get(registry, {}).pop(name, None)
        self.__dict__.pop(name, None)

    def __getattr__(self, name):
        # Only reached when normal lookup fails: look in the registries.
        for registry in ("_parameters", "_buffers", "_modules"):
            values = self.__dict__.get(registry)
            if values is not None and name in values:
                return values[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for registry in ("_parameters", "_buffers", "_modules"):
            values = self.__dict__.get(registry)
            if values is not None and name in values:
                del values[name]
                _note_state_change()
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._buffers) | set(self._modules))

    # --- traversal
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        memo = set() if memo is None else memo
        if remove_duplicate and id(self) in memo:
            return
        memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(memo, f"{prefix}.{name}" if prefix else name, remove_duplicate)

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_children(self):
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self):
        for _, module in self.named_children():
            yield module

    def _named_members(self, registry, prefix, recurse, remove_duplicate=True):
        seen = set()
        modules = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in getattr(module, registry).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield (f"{module_prefix}.{name}" if module_prefix else name), value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def apply(self, fn):
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # --- state
    def get_extra_state(self):
        """What a module that defines it saves beside its tensors, under
        <prefix>_extra_state; set_extra_state receives it on load."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called.")

    def set_extra_state(self, state):
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called.")

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """Puts this module's own parameters, persistent buffers and extra
        state, not its children's, into destination; a module overrides it
        to save others. An uninitialized tensor is saved as itself: it has
        no data to detach."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars or is_lazy(param) else param.detach()
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistent_buffers:
                destination[prefix + name] = buffer if keep_vars or is_lazy(buffer) else buffer.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY] = self.get_extra_state()

    def state_dict(self, destination=None, prefix="", keep_vars=False):
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in list(self._state_dict_pre_hooks.values()):
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in list(self._state_dict_hooks.values()):
            result = hook(self, destination, prefix, local_metadata)
            if getattr(hook, "_from_public_api", False):
                if result is not None:
                    raise RuntimeError("state_dict post-hook must return None")
            elif result is not None:
                destination = result
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        """Loads this module's own entries (keys under prefix) after its load
        pre-hooks ran, adding to the key and error lists instead of raising;
        a module overrides it to load entries of an older layout."""
        for hook in list(self._load_state_dict_pre_hooks.values()):
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        own = {name: value for name, value in self._parameters.items() if value is not None}
        own.update((name, value) for name, value in self._buffers.items()
                   if value is not None and name not in self._non_persistent_buffers)
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, target in own.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, _C.Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected ember.Tensor or '
                                  f"Tensor-like object from checkpoint but received {type(value)}")
                continue
            # A lazy module's uninitialized target takes any shape (its load
            # pre-hook has materialized it unless value is uninitialized too).
            if not is_lazy(target):
                if target.dim() == 0 and value.dim() == 1:  # a scalar saved as shape [1] by old versions
                    value = value[0]
                if value.shape != target.shape:
                    error_msgs.append(f"size mismatch for {key}: copying a param with shape {value.shape} from "
                                      f"checkpoint, the shape in current model is {target.shape}.")
                    continue
            try:
                with no_grad():
                    if not assign:
                        target.copy_(value)
                    elif isinstance(target, Parameter):
                        if isinstance(value, Parameter):
                            setattr(self, name, value.requires_grad_(target.requires_grad))
                        else:
                            setattr(self, name, Parameter(value, target.requires_grad))
                    else:
                        setattr(self, name, value)
            except Exception as error:  # noqa: BLE001  (reported with the others, as PyTorch does)
                error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                                  f"{target.size()} and whose dimensions in the checkpoint are {value.size()}, an "
                                  f"exception occurred : {error.args}.")
        extra_state_key = prefix + _EXTRA_STATE_KEY
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_state_key in state_dict:
                self.set_extra_state(state_dict[extra_state_key])
            elif strict:
                missing_keys.append(extra_state_key)
        elif strict and extra_state_key in state_dict:
            unexpected_keys.append(extra_state_key)
        if strict:
            for key in state_dict:
                if not key.startswith(prefix) or key == extra_state_key:
                    continue
                head, *rest = key[len(prefix):].split(".", 1)
                if head not in (self._modules if rest else own):
                    unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Loads the entries module by module through _load_from_state_dict
        and the load hooks. With strict, missing or unexpected keys are an
        error listing them all; what matched is loaded either way."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        # A copy: pre-hooks rewrite keys without touching the caller's dict.
        state_dict = OrderedDict(state_dict)

        def load(module, local_state_dict, prefix):
            local_metadata = dict(metadata.get(prefix[:-1], {})) if metadata is not None else {}
            if assign:
                local_metadata["assign_to_params_buffers"] = True
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True, missing, unexpected, errors)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)},
                         child_prefix)
            incompatible = _IncompatibleKeys(missing, unexpected)
            for hook in list(module._load_state_dict_post_hooks.values()):
                if hook(module, incompatible) is not None:
                    raise AssertionError("Hooks registered with ``register_load_state_dict_post_hook`` are not "
                                         "expected to return new values, if incompatible_keys need to be modified, "
                                         "it should be done inplace.")

        load(self, state_dict, "")
        if strict:
            for kind, keys in (("Unexpected", unexpected), ("Missing", missing)):
                if keys:
                    errors.insert(0, f"{kind} key(s) in state_dict: " + ", ".join(f'"{k}"' for k in keys) + ". ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t" + "\n\t".join(errors))
        return _IncompatibleKeys(missing, unexpected)

    # --- modes and moves
    def train(self, mode=True):
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        _note_state_change()
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        for param in self.parameters():
            if param.grad is None:
                continue
            if set_to_none:
                param.grad = None
            else:
                param.grad.zero_()

    def _apply_to_tensors(self, convert, recurse=True):
        """Converts every parameter, its gradient and every buffer (this
        module's own only, unless recurse) by convert(tensor). A parameter
        stays the same object, its data replaced (`param.data = ...`), so an
        optimizer built before the conversion still holds it, as in
        PyTorch; an uninitialized one stays so, on the new device and dtype."""
        for module in self.modules() if recurse else [self]:
            for tensor in list(module._parameters.values()) + list(module._buffers.values()):
                if is_lazy(tensor):
                    tensor.data = convert(tensor.data)
            for param in module._parameters.values():
                if param is None or is_lazy(param):
                    continue
                with no_grad():
                    moved = convert(param)
                    if moved is not param:
                        param.data = moved
                    if param.grad is not None:
                        moved_grad = convert(param.grad)
                        if moved_grad is not param.grad:
                            param.grad = moved_grad
            for name, buffer in module._buffers.items():
                if buffer is not None and not is_lazy(buffer):
                    module._buffers[name] = convert(buffer)
        return self

    def to(self, *args, **kwargs):
        """to(device), to(dtype), to(device, dtype): floating parameters and
        buffers take the dtype; memory_format lays out the 4-d and 5-d ones
        in that format, as PyTorch's does (so channels_last with a 5-d
        parameter is an error, as Tensor.to's)."""
        target_device, target_dtype, _, target_format = parse_to_arguments(args, dict(kwargs))

        def convert(t):
            dtype = target_dtype if target_dtype is not None and t.is_floating_point() else None
            moved = t._to(target_device, dtype, False)
            if target_format is not None and t.dim() in (4, 5):
                moved = in_format(moved, target_format, "Module.to")
            return moved

        return self._apply_to_tensors(convert)

    def _to_device_type(self, device_type, device):
        if device is None:
            return self.to(device_type)
        return self.to(_C.device(device_type, device) if isinstance(device, int) else device)

    def cuda(self, device=None):
        return self._to_device_type("cuda", device)

    def xpu(self, device=None):
        return self._to_device_type("xpu", device)

    def cpu(self):
        return self.to("cpu")

    def share_memory(self):
        """Moves the parameters, their gradients and the buffers into shared
        memory (Tensor.share_memory_), for processes that train one model
        in place (Hogwild)."""
        return self._apply_to_tensors(lambda t: t.share_memory_())

    def float(self):
        return self.to(_C.float32)

    def double(self):
        return self.to(_C.float64)

    def half(self):
        return self.to(_C.float16)

    def bfloat16(self):
        return self.to(_C.bfloat16)

    def type(self, dst_type):
        """Every parameter and buffer converted to dst_type (a dtype or a
        tensor type), integer buffers included, as PyTorch's Module.type."""
        return self._apply_to_tensors(lambda t: t.type(dst_type))

    def to_empty(self, *, device, recurse=True):
        """Parameters and buffers on `device` with memory not set, as after
        building a module on the meta device; recurse=False moves this
        module's own only."""
        from ... import _factories

        def empty_on_device(t):
            return _factories.empty_like(t, device=device)

        return self._apply_to_tensors(empty_on_device, recurse)

    def set_submodule(self, target, module, strict=False):
        """Puts `module` at dotted path `target`; with strict, the path must name an existing submodule."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if strict and not isinstance(getattr(parent, name, None), Module):
            raise AttributeError(f"{type(parent).__name__} has no submodule `{name}`")
        if not isinstance(module, Module):
            raise ValueError(f"`{type(module).__name__}` is not an nn.Module")
        setattr(parent, name, module)

    def get_submodule(self, target):
        """The module at dotted path `target` ("" is this module)."""
        module = self
        if target == "":
            return module
        for name in target.split("."):
            if not hasattr(module, name):
                raise AttributeError(f"{type(module).__name__} has no attribute `{name}`")
            module = getattr(module, name)
            if not isinstance(module, Module):
                raise AttributeError(f"`{name}` is not an nn.Module")
        return module

    def _get_member(self, target):
        """(module, name) of the attribute at dotted path `target`, which must exist."""
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(f"{type(module).__name__} has no attribute `{name}`")
        return module, name

    def get_parameter(self, target):
        module, name = self._get_member(target)
        parameter = getattr(module, name)
        if not isinstance(parameter, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return parameter

    def get_buffer(self, target):
        module, name = self._get_member(target)
        if name not in module._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return getattr(module, name)

    # --- printing
    def extra_repr(self):
        return ""

    def __repr__(self):
        lines = []
        extra = self.extra_repr()
        if extra:
            lines = extra.split("\n")
        for name, module in self._modules.items():
            child = repr(module).replace("\n", "\n  ")
            lines.append(f"({name}): {child}")
        if not lines:
            return f"{type(self).__name__}()"
        if len(lines) == 1 and not self._modules:
            return f"{type(self).__name__}({lines[0]})"
        return f"{type(self).__name__}(\n  " + "\n  ".join(lines) + "\n)"
