"""LazyModuleMixin: a module whose parameters and buffers wait, as
UninitializedParameter/UninitializedBuffer, for the first forward to show
their shapes; it then initializes them and becomes cls_to_become (LazyLinear
a Linear), as torch.nn.modules.lazy does."""

from ..parameter import is_lazy
from .module import _note_state_change


class LazyModuleMixin:
    """Put first among the bases; the subclass defines
    initialize_parameters(*forward_args, **forward_kwargs), which
    materializes every placeholder."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        """Gives each placeholder the shape of the initialized entry loaded into it."""
        for name, tensor in list(self._parameters.items()) + list(self._buffers.items()):
            key = prefix + name
            if key in state_dict and is_lazy(tensor) and not is_lazy(state_dict[key]):
                tensor.materialize(state_dict[key].shape)
                _note_state_change()

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(f"initialize_parameters is not implemented for {type(self).__name__}")

    def has_uninitialized_params(self):
        return any(is_lazy(tensor) for tensor in list(self._parameters.values()) + list(self._buffers.values()))

    def reset_parameters(self):
        # Nothing to draw before the shapes are known: neither for the
        # placeholders nor for the empty tensors the base class's
        # constructor makes before they replace them.
        if not self.has_uninitialized_params() and all(param.numel() for param in self.parameters(recurse=False)):
            super().reset_parameters()

    def _infer_parameters(self, module, args, kwargs=None):
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {type(self).__name__} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        del module._initialize_hook
        del module._load_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become
        # The parameters changed shape in place and forward may have changed
        # with the class (Note [Module state version]).
        _note_state_change()
