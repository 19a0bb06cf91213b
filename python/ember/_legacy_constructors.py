"""PyTorch's legacy constructors, which older programs still write:
`Tensor(2, 3)` and `Tensor([1, 2])` (the default dtype), and the typed
classes `FloatTensor`, `LongTensor`, ... (`ember.cuda.FloatTensor` and so on
for other device types), with `isinstance(x, ember.FloatTensor)` asking for
a float32 tensor on that device type, and `x.type(ember.LongTensor)`.

Each takes no argument (an empty tensor), sizes (ints or a Size: memory not
set), a sequence or array of values (copied), or a tensor of its own dtype
(returned as it is); `device=` picks the device."""

import numbers

from . import _C, _factories
from ._C import Tensor
from ._tensor import Size, _TYPE_NAMES


def legacy_new(dtype, device, args, name):
    """A tensor from a legacy constructor's arguments (device None: the default device)."""
    if not args:
        return _factories.empty([0], dtype=dtype, device=device)
    if len(args) == 1 and isinstance(args[0], Size):
        args = tuple(args[0])
    if all(isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in args):
        return _factories.empty([int(a) for a in args], dtype=dtype, device=device)
    if len(args) == 1:
        (data,) = args
        if isinstance(data, Tensor):
            if data.dtype != dtype or (device is not None and data.device != device):
                raise TypeError(f"{name}(): expected a tensor of dtype {dtype} (got {data.dtype} on {data.device})")
            return data
        if isinstance(data, (numbers.Number, str)):
            raise TypeError(f"{name}(): data must be a sequence (got {type(data).__name__})")
        return _factories.tensor(data, dtype=dtype, device=device)
    raise TypeError(f"{name}(): expected sizes as ints, one sequence of values or one tensor, but got "
                    f"({', '.join(type(a).__name__ for a in args)})")


class TensorType(type):
    """The class of the typed constructors (PyTorch's torch.tensortype)."""

    def __instancecheck__(cls, instance):
        return isinstance(instance, Tensor) and instance.dtype == cls.dtype and instance.device.type == cls.device_type

    def __call__(cls, *args, device=None):
        if device is None:
            device = _C.device(cls.device_type)
        elif not isinstance(device, _C.device):
            device = _C.device(device)
        if device.type != cls.device_type:
            raise RuntimeError(f"{cls.__name__}(): legacy constructor expects device type: {cls.device_type} but "
                               f"device type: {device.type} was passed")
        return legacy_new(cls.dtype, device, args, cls.__name__)

    def __repr__(cls):
        return f"<class '{cls.__module__}.{cls.__name__}'>"


def tensor_types(module_name, device_type):
    """{name: class} of the typed constructors of one device type."""
    types = {}
    for dtype, name in _TYPE_NAMES.items():
        types[name] = TensorType(name, (), {"dtype": dtype, "device_type": device_type, "__module__": module_name,
                                            "__doc__": f"Legacy constructor of {dtype} tensors on {device_type}."})
    return types


_tensor_init = Tensor.__init__


def _init(self, *args, device=None):
    """Tensor(tensor) shares the tensor's memory (as nn.Parameter builds on);
    any other arguments are the legacy constructor's, in the default dtype."""
    if len(args) == 1 and isinstance(args[0], Tensor) and device is None:
        _tensor_init(self, args[0])
    else:
        resolved = None if device is None else device if isinstance(device, _C.device) else _C.device(device)
        _tensor_init(self, legacy_new(_C.get_default_dtype(), resolved, args, "Tensor"))


Tensor.__init__ = _init
