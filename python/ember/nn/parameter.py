"""nn.Parameter, a tensor that a Module registers as a learnable parameter,
nn.Buffer, one it registers as a buffer, and the uninitialized placeholders lazy modules hold until their first
forward shows the shapes (torch.nn.parameter.UninitializedParameter and
UninitializedBuffer)."""

from .. import _C, _factories


class Parameter(_C.Tensor):
    """Shares ``data``'s memory as a new leaf that requires grad by default."""

    def __init__(self, data=None, requires_grad=True):
        if data is None:
            data = _C._empty([0], None, _C.device("cpu"))
        super().__init__(data.detach())
        if requires_grad:
            self.requires_grad_(True)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = Parameter(self.detach().clone(), self.requires_grad)
        return memo[id(self)]


class Buffer(_C.Tensor):
    """A tensor that a Module registers as a buffer when it is assigned to
    one of the module's attributes, persistent (in the state dict) unless
    told otherwise; the module keeps a plain tensor sharing its memory."""

    def __init__(self, data=None, *, persistent=True):
        if data is None:
            data = _C._empty([0], None, _C.device("cpu"))
        super().__init__(data.detach())
        self.persistent = persistent


# What an uninitialized tensor still answers besides its attributes (dtype,
# device, requires_grad, data, ...): its conversions and identity, as in
# PyTorch, so that module moves and state dict copies work before the shapes
# are known.
_ALLOWED_METHODS = frozenset({"size", "copy_", "is_complex", "is_floating_point", "half", "float", "double", "char",
                              "short", "int", "long", "cuda", "cpu", "to", "get_device", "materialize"})


class UninitializedTensorMixin:
    """Holds an empty tensor until materialize(shape) gives it storage and
    turns it into cls_to_become; every tensor method but the allowed ones,
    and the shape, raise until then. No instance slots, so that the class
    can change in place to a plain Tensor."""

    __slots__ = ()
    cls_to_become = None

    def _initialize_empty(self, requires_grad, device, dtype):
        _C.Tensor.__init__(self, _factories.empty(0, device=device, dtype=dtype))
        _C.Tensor.requires_grad_(self, requires_grad)

    def materialize(self, shape, device=None, dtype=None):
        """Gives the tensor uninitialized storage of `shape`, on its own
        device and dtype unless others are given."""
        device = self.data.device if device is None else device
        dtype = self.data.dtype if dtype is None else dtype
        self.data = _factories.empty(*shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually "
                           "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
                           "initialized one. Call `forward` to initialize the parameters before accessing their "
                           "attributes.")

    def share_memory_(self):
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
                           "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return f"<{type(self).__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        return type(self), (self.requires_grad,)

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, self.data.device, self.data.dtype)
        return memo[id(self)]


def _refusal(name):
    def refuse(self, *args, **kwargs):
        raise ValueError(f"Attempted to use an uninitialized parameter in <method '{name}' of 'ember.Tensor' "
                         "objects>. This error happens when you are using a `LazyModule` or explicitly manipulating "
                         f"`ember.nn.parameter.{type(self).__name__}` objects. When using LazyModules Call "
                         "`forward` with a dummy batch to initialize the parameters before calling torch functions")
    refuse.__name__ = name
    return refuse


def _refuse_tensor_methods(mixin):
    """Shadows each public tensor method and operator, but the allowed ones
    and those the mixin defines, with one that raises."""
    for name, method in vars(_C.Tensor).items():
        public = not name.startswith("_")
        operator = name.startswith("__") and name not in vars(object)
        if (public or operator) and callable(method) and name not in _ALLOWED_METHODS and name not in vars(mixin):
            setattr(mixin, name, _refusal(name))


_refuse_tensor_methods(UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    cls_to_become = Parameter

    def __init__(self, requires_grad=True, device=None, dtype=None):
        self._initialize_empty(requires_grad, device, dtype)


class UninitializedBuffer(UninitializedTensorMixin, _C.Tensor):
    __slots__ = ()
    cls_to_become = _C.Tensor

    def __init__(self, requires_grad=False, device=None, dtype=None):
        self._initialize_empty(requires_grad, device, dtype)


def is_lazy(tensor):
    """Whether `tensor` is an uninitialized parameter or buffer."""
    return isinstance(tensor, UninitializedTensorMixin)
