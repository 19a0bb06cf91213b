"""Tensor methods written in Python: the ones that parse PyTorch's flexible
arguments (``to``), talk to other Python libraries (``numpy``) or call
Python functions per element (``apply_``, ``map_``). Everything else is
bound in C++ (python/src)."""

import builtins
import warnings
import weakref

from . import _C, _memory_format
from ._C import Tensor
from ._plugins import autoload

_tensor_clone = Tensor.clone


class Size(tuple):
    """The shape of a tensor: a tuple of ints, printed like torch.Size."""

    __slots__ = ()

    def __repr__(self):
        return f"ember.Size({list(self)})"

    def numel(self):
        count = 1
        for extent in self:
            count *= extent
        return count


_C._set_size_type(Size)


def parse_to_arguments(args, kwargs):
    """(device, dtype, copy, memory_format) from to()'s arguments, shared with Module.to."""
    target_device = kwargs.pop("device", None)
    target_dtype = kwargs.pop("dtype", None)
    copy = kwargs.pop("copy", False)
    target_format = kwargs.pop("memory_format", _memory_format.preserve_format)
    kwargs.pop("non_blocking", None)
    if kwargs:
        raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
    for arg in args:
        if isinstance(arg, _C.dtype):
            target_dtype = arg
        elif isinstance(arg, (str, _C.device)):
            target_device = arg
        elif isinstance(arg, Tensor):
            target_device, target_dtype = arg.device, arg.dtype
        else:
            raise TypeError(f"to() takes a dtype, a device or a tensor, got {type(arg).__name__}")
    if isinstance(target_device, str):
        autoload()  # the device's plugin may come from an installed wheel
        target_device = _C.device(target_device)
    return target_device, target_dtype, copy, target_format


def _to(self, *args, **kwargs):
    """to(dtype), to(device), to(device, dtype), to(other), each with
    memory_format; a new tensor only when something changes."""
    target_device, target_dtype, copy, target_format = parse_to_arguments(args, dict(kwargs))
    return _memory_format.in_format(self._to(target_device, target_dtype, copy), target_format, "to")


def _contiguous(self, memory_format=_memory_format.contiguous_format):
    return _memory_format.in_format(self, memory_format)


def _is_contiguous(self, memory_format=_memory_format.contiguous_format):
    return _memory_format.is_contiguous_in(self, memory_format)


def _clone(self, *, memory_format=_memory_format.preserve_format):
    """A copy in the tensor's own format (preserve_format: channels_last
    stays so) or the one asked for."""
    if memory_format is _memory_format.preserve_format and self.dim() not in (4, 5):
        return _tensor_clone(self)  # only 4-d and 5-d tensors have another format to keep
    target = _memory_format.format_of(self) if memory_format is _memory_format.preserve_format else memory_format
    if target is _memory_format.contiguous_format:
        return _tensor_clone(self)
    return _memory_format.cloned_in(self, target, _tensor_clone)


def _numpy(self, *, force=False):
    """The tensor's memory as a NumPy array (no copy); ``force`` detaches and moves to the CPU first."""
    import numpy

    tensor = self
    if force:
        tensor = tensor.detach().cpu()
    elif tensor.requires_grad:
        raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
    elif tensor.device.type != "cpu":
        raise TypeError(f"can't convert {tensor.device} tensor to numpy; use tensor.cpu() first")
    return numpy.from_dlpack(tensor)


def _array(self, dtype=None, copy=None):
    array = _numpy(self, force=True)
    if dtype is not None:
        array = array.astype(dtype, copy=False)
    return array.copy() if copy else array


def _iter(self):
    if self.dim() == 0:
        raise TypeError("iteration over a 0-d tensor")
    return (self.select(0, i) for i in range(self.size(0)))


def _format(self, spec):
    if self.dim() == 0:
        return format(self.item(), spec)
    return builtins.format(repr(self), spec)


def _repeat(self, *sizes):
    """Tiles the tensor: repeat(2, 3) on [a, b] gives [2a, 3b] (a copy)."""
    sizes = sizes[0] if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else sizes
    if len(sizes) < self.dim():
        raise RuntimeError(f"repeat: {len(sizes)} repeat counts for a tensor of {self.dim()} dims")
    source = self.reshape((1,) * (len(sizes) - self.dim()) + tuple(self.shape))
    # Put a broadcast axis before each dim, expand it to the count, fold it in.
    expanded_shape, tiled = [], []
    for count, extent in zip(sizes, source.shape):
        expanded_shape += [count, extent]
        tiled.append(count * extent)
    interleaved = source.reshape([v for extent in source.shape for v in (1, extent)])
    return interleaved.expand(expanded_shape).reshape(tiled)


def _each_element(self, name, function, others):
    """self with function(self[i], *(other[i] for other in others)) in each
    place, others broadcast to self's shape: PyTorch's apply_, map_ and
    map2_, for CPU tensors that do not require grad."""
    if self.requires_grad:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() instead.")
    if self.device.type != "cpu":
        raise TypeError(f"{name} is only implemented on CPU tensors")
    for argument, other in others.items():
        if other.dtype != self.dtype:
            raise TypeError(f"{name}: expected {self.type()} for {argument} (got {other.type()})")
    columns = [other.expand(list(self.shape)).reshape(-1).tolist() for other in others.values()]
    values = [function(*elements) for elements in zip(self.reshape(-1).tolist(), *columns)]
    from ._factories import tensor

    convert = bool if self.dtype == _C.bool else builtins.float if self.dtype.is_floating_point else builtins.int
    return self.copy_(tensor([convert(v) for v in values], dtype=self.dtype).reshape(list(self.shape)))


def _apply_(self, callable):
    return _each_element(self, "apply_", callable, {})


def _map_(self, tensor, callable):
    return _each_element(self, "map_", callable, {"'other'": tensor})


def _map2_(self, x, y, callable):
    return _each_element(self, "map2_", callable, {"argument 'x'": x, "argument 'y'": y})


def _reduce_bool(self, dim, keepdim, want_all):
    flags = self if self.dtype == _C.bool else self != 0
    hits = flags.sum(dim, keepdim)
    if want_all:
        return hits == self.numel() // builtins.max(hits.numel(), 1)
    return hits > 0


def _any(self, dim=None, keepdim=False):
    return _reduce_bool(self, dim, keepdim, want_all=False)


def _all(self, dim=None, keepdim=False):
    return _reduce_bool(self, dim, keepdim, want_all=True)


def _unbind(self, dim=0):
    return tuple(self.select(dim, i) for i in range(self.size(dim)))


def _retain_grad(self):
    """Keeps this non-leaf tensor's gradient in .grad after backward, as a
    leaf's is (a no-op on a leaf), with its graph under create_graph, as
    PyTorch's. The hook holds the tensor weakly, so that the tensor's own
    history does not keep it alive, and counts its stores, which tell
    autograd.backward whether a pass has stored the gradient already."""
    if not self.requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if self.is_leaf or getattr(self, "_retains_grad", False):
        return
    tensor = weakref.ref(self)

    def store(grad):
        target = tensor()
        if target is not None:
            target.grad = grad if target.grad is None else target.grad + grad
            target._retained_grad_stores += 1

    self.register_hook(store)
    self._retains_grad = True
    self._retained_grad_stores = 0


def _deepcopy(self, memo):
    """copy.deepcopy: new memory with the same values, requires_grad and attributes."""
    import copy

    if id(self) in memo:
        return memo[id(self)]
    result = self.detach().clone().requires_grad_(self.requires_grad)
    memo[id(self)] = result
    for name, value in self.__dict__.items():
        setattr(result, name, copy.deepcopy(value, memo))
    return result


def _new_factory(name):
    def make(self, *size, dtype=None, device=None, requires_grad=False, **kwargs):
        from . import _factories

        factory = getattr(_factories, name)
        return factory(*size, **kwargs, dtype=dtype or self.dtype, device=device or self.device,
                       requires_grad=requires_grad)

    make.__name__ = f"new_{name}"
    return make


def _new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    from ._factories import tensor

    return tensor(data, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)


# The legacy tensor type names of Tensor.type(), PyTorch's own strings
# ("torch.FloatTensor", "torch.cuda.LongTensor"), so that programs comparing
# them keep working; "ember." spellings are read too.
_TYPE_NAMES = {
    _C.bool: "BoolTensor", _C.uint8: "ByteTensor", _C.int8: "CharTensor", _C.int16: "ShortTensor",
    _C.int32: "IntTensor", _C.int64: "LongTensor", _C.float16: "HalfTensor", _C.bfloat16: "BFloat16Tensor",
    _C.float32: "FloatTensor", _C.float64: "DoubleTensor",
}
_TYPE_DTYPES = {name: dtype for dtype, name in _TYPE_NAMES.items()}


def type_name(device_type, dtype):
    """The legacy type name of dtype on device_type: "torch.FloatTensor", "torch.cuda.LongTensor"."""
    return f"torch.{'' if device_type == 'cpu' else device_type + '.'}{_TYPE_NAMES[dtype]}"


def parse_type(t, error):
    """(device type, dtype) of a legacy tensor type (ember.FloatTensor) or
    its name ("torch.cuda.FloatTensor"); a name that is neither raises
    `error` (the caller's exception class, as PyTorch's callers differ)."""
    if isinstance(getattr(t, "device_type", None), str) and isinstance(getattr(t, "dtype", None), _C.dtype):
        return t.device_type, t.dtype
    parts = t.split(".")
    if len(parts) not in (2, 3) or parts[0] not in ("torch", "ember") or parts[-1] not in _TYPE_DTYPES:
        raise error(f"invalid type: '{t}'")
    return (parts[1] if len(parts) == 3 else "cpu"), _TYPE_DTYPES[parts[-1]]


def _type(self, dtype=None, non_blocking=False, **kwargs):
    """type(): the tensor's type name; type(dtype, name or legacy class such
    as ember.LongTensor): the tensor converted to it (itself when nothing
    changes); a name with a device type ("torch.cuda.FloatTensor") also
    moves it there."""
    if dtype is None:
        return type_name(self.device.type, self.dtype)
    if isinstance(dtype, _C.dtype):
        return self.to(dtype)
    if not isinstance(dtype, str) and not isinstance(getattr(dtype, "device_type", None), str):
        raise TypeError(f"type(): dtype must be a str or an ember.dtype, not {type(dtype).__name__}")
    device_type, target = parse_type(dtype, ValueError)
    device = _C.device(device_type)
    if self.device.type == device.type:
        device = self.device
    return self.to(device, target)


def _resize_(self, *sizes, memory_format=None):
    """Gives the tensor the contiguous shape `sizes` in place. It keeps its
    storage where that holds enough elements (the values there are read in
    row-major order, as PyTorch reads them); otherwise it gets storage of its
    own holding its elements, in row-major order, first, and then values
    never set."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = sizes[0]
    sizes = tuple(int(size) for size in sizes)
    if any(size < 0 for size in sizes):
        raise RuntimeError(f"resize_(): trying to create a tensor with negative dimension: {list(sizes)}")
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if sizes == tuple(self.shape) and self.is_contiguous():
        return self
    try:
        self.data = self.as_strided(sizes, _memory_format.strides_for(sizes), self.storage_offset())
    except RuntimeError:
        grown = self.new_empty(sizes)
        kept = min(self.numel(), grown.numel())
        grown.view(-1)[:kept].copy_(self.reshape(-1)[:kept])
        self.data = grown
    return self


def _resize_as_(self, other, memory_format=None):
    return self.resize_(other.shape)


def _to_device_type(device_type):
    def move(self, device=None, non_blocking=False, memory_format=None):
        if device is None:
            target = _C.device(device_type)
        elif isinstance(device, int):
            target = _C.device(device_type, device)
        else:
            target = device if isinstance(device, _C.device) else _C.device(device)
            if target.type != device_type:
                raise RuntimeError(f"Invalid device, must be {device_type} device, but got {target}")
        return self.to(target, non_blocking=non_blocking)

    move.__name__ = device_type
    move.__doc__ = f"The tensor on a {device_type} device (the current one unless given); itself if it is there."
    return move


def _get_device(self):
    """The device's index, -1 for the CPU (PyTorch's convention)."""
    return -1 if self.device.type == "cpu" else (self.device.index or 0)


def _new(self, *args, device=None):
    """The legacy constructor: x.new() is empty, x.new(2, 3) or x.new(y.shape)
    uninitialized of that shape, x.new(data) (a tuple too) a tensor of data;
    each with x's dtype, on x's device unless another is given."""
    device = self.device if device is None else device
    if not args:
        return self.new_empty((0,), device=device)
    if all(isinstance(arg, int) and not isinstance(arg, bool) for arg in args):
        return self.new_empty(args, device=device)
    if len(args) == 1 and isinstance(args[0], Size):
        return self.new_empty(tuple(args[0]), device=device)
    if len(args) == 1:
        return self.new_tensor(args[0], device=device)
    raise TypeError(f"new(): expected sizes or data, but got {len(args)} arguments of other kinds")


def _is_nonzero(self):
    if self.numel() != 1:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous" if self.numel() == 0 else
                           "Boolean value of Tensor with more than one value is ambiguous")
    return bool(self.item())


def _sum_to_size(self, *size):
    """Sums the tensor down to `size`, which it must broadcast from."""
    size = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list, Size)) else size
    from ._shape_ops import broadcast_shapes

    try:
        if tuple(broadcast_shapes(size, tuple(self.shape))) != tuple(self.shape):
            raise RuntimeError
    except RuntimeError:
        raise RuntimeError(f"size {{{', '.join(map(str, size))}}} is not expandable to size "
                           f"{{{', '.join(map(str, self.shape))}}}.") from None
    lead = self.dim() - len(size)
    dims = [d for d in range(self.dim()) if d < lead or (size[d - lead] == 1 and self.shape[d] != 1)]
    summed = self.sum(dims, keepdim=True) if dims else self
    return summed.reshape(size)


def _pin_memory(self, device=None):
    """Ember has no pinned host memory: the tensor itself, with a warning
    once (as DataLoader's pin_memory=True gets)."""
    if not _pin_memory.warned:
        _pin_memory.warned = True
        warnings.warn("pin_memory(): Ember has no pinned host memory; the tensor stays in pageable memory",
                      UserWarning, stacklevel=2)
    return self


_pin_memory.warned = False


class layout(_memory_format.NamedConstant):  # noqa: N801  (PyTorch's name)
    """A tensor's memory layout; Ember has only ember.strided."""


strided = layout("strided")


_engine_backward = Tensor.backward


def _backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """The engine's backward; with `inputs`, autograd.backward's, which
    accumulates into those tensors' .grad only."""
    if inputs is None:
        return _engine_backward(self, gradient, retain_graph, create_graph)
    from .autograd import backward

    return backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def _as_subclass(self, cls):
    """The tensor, sharing its memory and history, as an instance of cls (a Tensor subclass)."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(f"as_subclass(): cls must be a subclass of ember.Tensor, not {cls!r}")
    result = cls.__new__(cls)
    Tensor.__init__(result, self)
    return result


def _imag(self):
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def _angle(self):
    """The angle of each real number: pi below 0, 0 otherwise, NaN kept."""
    floating = self if self.dtype.is_floating_point else self.to(_C.get_default_dtype())
    return _C.where(floating < 0, floating * 0 + 3.141592653589793, floating * 0)


def _new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False):
    from ._factories import empty_strided

    return empty_strided(size, stride, dtype=dtype or self.dtype, device=device or self.device,
                         requires_grad=requires_grad)


def _nonzero_static(self, *, size, fill_value=-1):
    """nonzero's indices in a [size, dim] tensor: cut to `size` rows, or padded with fill_value."""
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, got {size}")
    found = self.nonzero()[:size]
    if found.shape[0] == size:
        return found
    padding = _C._zeros([size - found.shape[0], self.dim()], found.dtype, found.device) + fill_value
    return _C.cat([found, padding], 0)


def _dim_order(self, *, ambiguity_check=False):
    """The dims from outermost to innermost in memory (larger strides first, ties by position)."""
    return tuple(sorted(range(self.dim()), key=lambda d: -self.stride(d)))


def _is_set_to(self, other):
    """Whether both tensors view the same memory with the same offset, sizes and strides."""
    return (self.data_ptr() == other.data_ptr() and self.dtype == other.dtype and self.device == other.device
            and tuple(self.shape) == tuple(other.shape) and self.stride() == other.stride())


def _as_strided_(self, size, stride, storage_offset=None):
    base = self.detach()
    view = base.as_strided(size, stride, self.storage_offset() if storage_offset is None else storage_offset)
    return self.set_(view)


def _to_dense(self, dtype=None, *, masked_grad=None):
    """Every Ember tensor is strided (dense): the tensor itself, or in `dtype`."""
    return self if dtype is None else self.to(dtype)


Tensor.to_dense = _to_dense
Tensor.nonzero_static = _nonzero_static
Tensor.dim_order = _dim_order
Tensor.is_set_to = _is_set_to
Tensor.as_strided_ = _as_strided_
Tensor.const_data_ptr = lambda self: self.data_ptr()
Tensor.unsafe_split_with_sizes = lambda self, split_sizes, dim=0: self.split_with_sizes(split_sizes, dim)
Tensor.to = _to
Tensor.as_subclass = _as_subclass
Tensor.real = property(lambda self: self)
Tensor.imag = property(_imag)
Tensor.angle = _angle
Tensor.new_empty_strided = _new_empty_strided
Tensor.narrow_copy = lambda self, dim, start, length: self.narrow(dim, start, length).clone()
Tensor.unsafe_chunk = lambda self, chunks, dim=0: self.chunk(chunks, dim)
Tensor.unsafe_split = lambda self, split_size, dim=0: self.split(split_size, dim)
Tensor.is_inference = lambda self: False
Tensor.is_mps = property(lambda self: self.device.type == "mps")
Tensor.contiguous = _contiguous
Tensor.is_contiguous = _is_contiguous
Tensor.clone = _clone
Tensor.backward = _backward
Tensor.type = _type
Tensor.resize_ = _resize_
Tensor.cuda = _to_device_type("cuda")
Tensor.xpu = _to_device_type("xpu")
Tensor.get_device = _get_device
Tensor.new = _new
Tensor.is_nonzero = _is_nonzero
Tensor.is_signed = lambda self: self.dtype not in (_C.bool, _C.uint8)
Tensor.is_same_size = lambda self, other: tuple(self.shape) == tuple(other.shape)
Tensor.sum_to_size = _sum_to_size
Tensor.pin_memory = _pin_memory
Tensor.is_pinned = lambda self, device=None: False
Tensor.layout = property(lambda self: strided)
# Ember's tensors are dense, real and plain: these are PyTorch's answers for such tensors.
for _flag in ("is_sparse", "is_sparse_csr", "is_quantized", "is_mkldnn", "is_nested"):
    setattr(Tensor, _flag, property(lambda self: False))
del _flag
Tensor.is_conj = lambda self: False
Tensor.is_neg = lambda self: False
Tensor.conj = lambda self: self
Tensor.resolve_conj = lambda self: self
Tensor.resolve_neg = lambda self: self
Tensor.resize_as_ = _resize_as_
Tensor.is_xpu = property(lambda self: self.device.type == "xpu")
Tensor.numpy = _numpy
Tensor.__array__ = _array
Tensor.__iter__ = _iter
Tensor.__format__ = _format
Tensor.__array_priority__ = 1000  # NumPy defers `ndarray op tensor` to the tensor
Tensor.__deepcopy__ = _deepcopy
Tensor.repeat = _repeat
Tensor.apply_ = _apply_
Tensor.map_ = _map_
Tensor.map2_ = _map2_
Tensor.any = _any
Tensor.all = _all
Tensor.unbind = _unbind
Tensor.retain_grad = _retain_grad
Tensor.retains_grad = property(lambda self: not self.is_leaf and getattr(self, "_retains_grad", False))
Tensor.new_zeros = _new_factory("zeros")
Tensor.new_ones = _new_factory("ones")
Tensor.new_empty = _new_factory("empty")
Tensor.new_full = _new_factory("full")
Tensor.new_tensor = _new_tensor
Tensor.is_cuda = property(lambda self: self.device.type == "cuda")
