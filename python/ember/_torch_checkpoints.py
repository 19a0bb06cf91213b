"""The zip checkpoints torch.save writes (state dicts, optimizer states,
training checkpoints), read without running anything from the file
(Note [PyTorch checkpoints without unpickling])."""

import collections
import io
import struct
import zipfile

from . import _C
from ._dlpack import frombuffer
from ._factories import empty
from ._tensor import Size

# Note [PyTorch checkpoints without unpickling]
# torch.save writes a zip archive: `<name>/data.pkl`, a pickle of the saved
# value, with each tensor's storage in `<name>/data/<key>` as raw bytes.
# Python's unpickler would call whatever the pickle names, so Ember reads
# the pickle with its own interpreter of the opcodes: it builds numbers,
# strings, bytes, tuples, lists, dicts and sets itself, and the only names a
# file may call are the few torch.save uses for data (tensor and parameter
# rebuilders, OrderedDict, torch.Size, torch.device, dtypes, the latin-1
# encoding of bytes), each mapped to an Ember function that checks its
# arguments. Any other name (a model's class, os.system) ends the load with
# an error naming it, before anything is called: what torch.load does with
# weights_only=True, its default since PyTorch 2.6. A storage is read once
# and shared by the tensors that view it, as in PyTorch; every view is
# checked to lie inside its storage.

_ZIP_MAGIC = b"PK\x03\x04"
_STORAGE_DTYPES = {"FloatStorage": "float32", "DoubleStorage": "float64", "HalfStorage": "float16",
                   "BFloat16Storage": "bfloat16", "LongStorage": "int64", "IntStorage": "int32",
                   "ShortStorage": "int16", "CharStorage": "int8", "ByteStorage": "uint8", "BoolStorage": "bool"}
_DTYPE_NAMES = {"float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool"}
_DTYPE_ALIASES = {"float": "float32", "double": "float64", "half": "float16", "long": "int64", "int": "int32",
                  "short": "int16"}


class CheckpointError(ValueError):
    """What makes a file unreadable as a checkpoint of data."""


def is_torch_checkpoint(prefix):
    return prefix.startswith(_ZIP_MAGIC)


class _StorageType:
    """The dtype a persistent storage id names (torch.FloatStorage, ...)."""

    def __init__(self, dtype):
        self.dtype = dtype


class _Callable:
    """A name the checkpoint may call, with the Ember function that builds its value."""

    def __init__(self, name, build):
        self.name, self.build = name, build


class _Storage:
    """One storage of the archive: its bytes, read on first use, and its typed views by dtype."""

    def __init__(self, archive, entry, numel, dtype):
        self.archive, self.entry, self.numel, self.dtype = archive, entry, numel, dtype
        self._bases = {}

    def base(self, dtype):
        if dtype not in self._bases:
            expected = self.numel * _itemsize(self.dtype)
            raw = bytearray(_read_entry(self.archive, self.entry, f"storage {self.entry!r}"))
            if len(raw) != expected or len(raw) % _itemsize(dtype):
                raise CheckpointError(f"storage {self.entry!r} holds {len(raw)} bytes, where its reference says "
                                      f"{self.numel} elements of {_itemsize(self.dtype)} bytes")
            self._bases[dtype] = frombuffer(raw, dtype=dtype) if raw else empty(0, dtype=dtype)
        return self._bases[dtype]


# How far an entry may inflate: torch.save stores entries uncompressed; a
# deflated entry that would grow past this is refused before it is read.
_MAX_INFLATION = 64


def _read_entry(archive, name, what):
    try:
        info = archive.getinfo(name)
    except KeyError:
        raise CheckpointError(f"the archive has no entry {name!r} for its {what}") from None
    if info.file_size > _MAX_INFLATION * info.compress_size + (1 << 20):
        raise CheckpointError(f"{what} would inflate from {info.compress_size} to {info.file_size} bytes")
    return archive.read(info)


def _itemsize(dtype):
    return empty(0, dtype=dtype).element_size()


def _tuple_of_ints(value, what):
    if not isinstance(value, tuple) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise CheckpointError(f"a tensor's {what} must be a tuple of ints, got {value!r}")
    return value


def _view(storage, dtype, offset, size, stride, map_location):
    size, stride = _tuple_of_ints(size, "size"), _tuple_of_ints(stride, "stride")
    if not isinstance(storage, _Storage) or not isinstance(offset, int) or len(size) != len(stride):
        raise CheckpointError("a tensor must be rebuilt from a storage, an offset, and a size and a stride of one "
                              "length")
    base = storage.base(dtype)
    if offset < 0 or any(s < 0 for s in size) or any(s < 0 for s in stride):
        raise CheckpointError(f"a tensor of size {list(size)}, stride {list(stride)} and offset {offset} has a "
                              "negative entry")
    last = offset + sum((s - 1) * st for s, st in zip(size, stride)) if all(size) else offset - 1
    if last >= base.shape[0]:
        raise CheckpointError(f"a tensor of size {list(size)}, stride {list(stride)} and offset {offset} reaches "
                              f"past its storage {storage.entry!r} of {base.shape[0]} elements")
    tensor = base.as_strided(list(size), list(stride), offset)
    return map_location(tensor) if map_location is not None else tensor


def _names(map_location):
    """The names a checkpoint may call, as torch.save writes them."""

    def rebuild_tensor_v2(storage, offset, size, stride, requires_grad, backward_hooks, metadata=None):
        tensor = _view(storage, storage.dtype if isinstance(storage, _Storage) else None, offset, size, stride,
                       map_location)
        return tensor.requires_grad_(bool(requires_grad)) if tensor.dtype.is_floating_point else tensor

    def rebuild_tensor_v3(storage, offset, size, stride, requires_grad, backward_hooks, dtype, metadata=None):
        if not isinstance(dtype, _C.dtype):
            raise CheckpointError(f"_rebuild_tensor_v3 needs a dtype, got {dtype!r}")
        tensor = _view(storage, dtype, offset, size, stride, map_location)
        return tensor.requires_grad_(bool(requires_grad)) if tensor.dtype.is_floating_point else tensor

    def rebuild_parameter(data, requires_grad, backward_hooks, state=None):
        from .nn.parameter import Parameter

        if not isinstance(data, _C.Tensor):
            raise CheckpointError(f"a parameter must be rebuilt from a tensor, got {type(data).__name__}")
        return Parameter(data.detach(), requires_grad=bool(requires_grad))

    def ordered_dict(items=()):
        if not isinstance(items, (list, tuple)) or not all(isinstance(i, tuple) and len(i) == 2 for i in items):
            raise CheckpointError("OrderedDict must be rebuilt from (key, value) pairs")
        return collections.OrderedDict(items)

    def encode(text, encoding="utf-8"):
        if not isinstance(text, str) or encoding not in ("latin1", "latin-1"):
            raise CheckpointError(f"_codecs.encode is only read for latin-1 text, got {encoding!r}")
        return text.encode("latin1")

    def size(dims=()):
        return Size(_tuple_of_ints(tuple(dims), "size"))

    def device(kind, index=None):
        if not isinstance(kind, str) or not (index is None or isinstance(index, int)):
            raise CheckpointError(f"torch.device must be rebuilt from a name and an index, got {kind!r}, {index!r}")
        return _C.device(kind) if index is None else _C.device(kind, index)

    calls = {
        ("torch._utils", "_rebuild_tensor_v2"): rebuild_tensor_v2,
        ("torch._utils", "_rebuild_tensor_v3"): rebuild_tensor_v3,
        ("torch._utils", "_rebuild_parameter"): rebuild_parameter,
        ("torch._utils", "_rebuild_parameter_with_state"): rebuild_parameter,
        ("collections", "OrderedDict"): ordered_dict,
        ("_codecs", "encode"): encode,
        ("torch", "Size"): size,
        ("torch", "device"): device,
        ("builtins", "set"): lambda items=(): set(items),
        ("builtins", "frozenset"): lambda items=(): frozenset(items),
        ("builtins", "bytearray"): lambda *args: bytearray(encode(*args)) if args else bytearray(),
    }
    return {key: _Callable(".".join(key), build) for key, build in calls.items()}


def _global(module, name, allowed):
    # Protocol 2 names Python 3's builtins by their Python 2 module.
    module = "builtins" if module == "__builtin__" else module
    if (module, name) in allowed:
        return allowed[(module, name)]
    if module == "torch" and name in _STORAGE_DTYPES:
        return _StorageType(getattr(_C, _STORAGE_DTYPES[name]))
    if module == "torch" and (name in _DTYPE_NAMES or name in _DTYPE_ALIASES):
        return getattr(_C, _DTYPE_ALIASES.get(name, name))
    raise CheckpointError(f"it holds a {module}.{name} object, which Ember does not build: a file is read for its "
                          "data and tensors only, as torch.load(weights_only=True) reads it. Save the model's "
                          "state_dict() in PyTorch, or convert the value to plain data")


class _Reader:
    """The pickle's opcodes, interpreted over a stack, a mark stack and a memo."""

    def __init__(self, data, allowed, persistent_load):
        self.data, self.position = data, 0
        self.allowed, self.persistent_load = allowed, persistent_load
        self.stack, self.marks, self.memo = [], [], {}

    def take(self, count):
        if count < 0 or self.position + count > len(self.data):
            raise CheckpointError(f"data.pkl ends inside an opcode's argument at byte {self.position}")
        chunk = self.data[self.position:self.position + count]
        self.position += count
        return chunk

    def unpack(self, layout):
        return struct.unpack(layout, self.take(struct.calcsize(layout)))[0]

    def pop_mark(self):
        if not self.marks:
            raise CheckpointError(f"data.pkl closes a mark it never opened at byte {self.position}")
        start = self.marks.pop()
        items = self.stack[start:]
        del self.stack[start:]
        return items

    def pop(self):
        if len(self.stack) <= (self.marks[-1] if self.marks else 0):
            raise CheckpointError(f"data.pkl reads from an empty stack at byte {self.position}")
        return self.stack.pop()

    def top(self):
        if not self.stack:
            raise CheckpointError(f"data.pkl reads from an empty stack at byte {self.position}")
        return self.stack[-1]

    def run(self):
        while True:
            code = self.take(1)[0]
            handler = _OPCODES.get(code)
            if handler is None:
                raise CheckpointError(f"data.pkl uses opcode 0x{code:02x} at byte {self.position - 1}, which a "
                                      "checkpoint of data does not")
            if handler(self) is _STOP:
                if len(self.stack) != 1 or self.marks:
                    raise CheckpointError("data.pkl stops with other than one value on its stack")
                return self.stack[0]


_STOP = object()


def _push(value):
    return lambda reader: reader.stack.append(value)


def _push_read(read):
    return lambda reader: reader.stack.append(read(reader))


def _text(reader, length):
    try:
        return reader.take(length).decode("utf-8")
    except UnicodeDecodeError as error:
        raise CheckpointError(f"data.pkl holds text that is not UTF-8: {error}") from None


def _long(reader, length):
    return int.from_bytes(reader.take(length), "little", signed=True)


def _put(reader, index):
    reader.memo[index] = reader.top()


def _get(reader, index):
    if index not in reader.memo:
        raise CheckpointError(f"data.pkl reads memo entry {index}, which it never wrote")
    reader.stack.append(reader.memo[index])


def _set_items(reader, items):
    target = reader.top()
    if not isinstance(target, dict) or len(items) % 2:
        raise CheckpointError("data.pkl sets items on something that is not a dict")
    for key, value in zip(items[::2], items[1::2]):
        try:
            target[key] = value
        except TypeError:
            raise CheckpointError(f"data.pkl uses an unhashable {type(key).__name__} as a dict key") from None


def _append(reader, items):
    target = reader.top()
    if not isinstance(target, list):
        raise CheckpointError("data.pkl appends to something that is not a list")
    target.extend(items)


def _add_items(reader, items):
    target = reader.top()
    if not isinstance(target, set):
        raise CheckpointError("data.pkl adds items to something that is not a set")
    target.update(items)


def _reduce(reader):
    args = reader.pop()
    function = reader.pop()
    if not isinstance(function, _Callable) or not isinstance(args, tuple):
        raise CheckpointError(f"data.pkl calls a {type(function).__name__}, which is not a name it may call")
    try:
        reader.stack.append(function.build(*args))
    except TypeError as error:
        raise CheckpointError(f"{function.name} was given arguments it does not take: {error}") from None


def _build(reader):
    state = reader.pop()
    target = reader.top()
    # torch.save gives a state dict its `_metadata` (module versions) this way.
    if not isinstance(target, collections.OrderedDict) or not isinstance(state, dict) or \
            not all(isinstance(k, str) and not k.startswith("__") for k in state):
        raise CheckpointError(f"data.pkl sets the state of a {type(target).__name__}, which a checkpoint of data "
                              "does not")
    for key, value in state.items():
        setattr(target, key, value)


def _persistent(reader):
    reader.stack.append(reader.persistent_load(reader.pop()))


def _global_opcode(reader):
    module = _line(reader)
    name = _line(reader)
    reader.stack.append(_global(module, name, reader.allowed))


def _stack_global(reader):
    name, module = reader.pop(), reader.pop()
    if not isinstance(name, str) or not isinstance(module, str):
        raise CheckpointError("data.pkl names a global with other than strings")
    reader.stack.append(_global(module, name, reader.allowed))


def _line(reader):
    end = reader.data.find(b"\n", reader.position)
    if end < 0:
        raise CheckpointError("data.pkl ends inside a global's name")
    return _text(reader, end - reader.position + 1)[:-1]


def _proto(reader):
    version = reader.take(1)[0]
    if not 2 <= version <= 5:
        raise CheckpointError(f"data.pkl is pickle protocol {version}; torch.save writes protocols 2 to 5")


_OPCODES = {
    0x80: _proto,
    0x95: lambda reader: reader.take(8),  # FRAME: a length hint
    ord("."): lambda reader: _STOP,
    ord("("): lambda reader: reader.marks.append(len(reader.stack)),
    ord("0"): lambda reader: reader.pop(),
    ord("1"): lambda reader: reader.pop_mark(),
    ord("2"): lambda reader: reader.stack.append(reader.top()),
    ord("N"): _push(None),
    0x88: _push(True),
    0x89: _push(False),
    ord("J"): _push_read(lambda reader: reader.unpack("<i")),
    ord("K"): _push_read(lambda reader: reader.take(1)[0]),
    ord("M"): _push_read(lambda reader: reader.unpack("<H")),
    0x8a: _push_read(lambda reader: _long(reader, reader.take(1)[0])),
    0x8b: _push_read(lambda reader: _long(reader, reader.unpack("<i"))),
    ord("G"): _push_read(lambda reader: reader.unpack(">d")),
    ord("X"): _push_read(lambda reader: _text(reader, reader.unpack("<I"))),
    0x8c: _push_read(lambda reader: _text(reader, reader.take(1)[0])),
    0x8d: _push_read(lambda reader: _text(reader, reader.unpack("<Q"))),
    ord("B"): _push_read(lambda reader: bytes(reader.take(reader.unpack("<I")))),
    ord("C"): _push_read(lambda reader: bytes(reader.take(reader.take(1)[0]))),
    0x8e: _push_read(lambda reader: bytes(reader.take(reader.unpack("<Q")))),
    ord(")"): _push(()),
    ord("t"): lambda reader: reader.stack.append(tuple(reader.pop_mark())),
    0x85: lambda reader: reader.stack.append((reader.pop(),)),
    0x86: lambda reader: reader.stack.append(tuple(reversed([reader.pop(), reader.pop()]))),
    0x87: lambda reader: reader.stack.append(tuple(reversed([reader.pop(), reader.pop(), reader.pop()]))),
    ord("]"): lambda reader: reader.stack.append([]),
    ord("l"): lambda reader: reader.stack.append(reader.pop_mark()),
    ord("a"): lambda reader: _append(reader, [reader.pop()]),
    ord("e"): lambda reader: _append(reader, reader.pop_mark()),
    ord("}"): lambda reader: reader.stack.append({}),
    ord("d"): lambda reader: reader.stack.append(_dict_of(reader.pop_mark())),
    ord("s"): lambda reader: _set_items(reader, list(reversed([reader.pop(), reader.pop()]))),
    ord("u"): lambda reader: _set_items(reader, reader.pop_mark()),
    0x8f: lambda reader: reader.stack.append(set()),
    0x90: lambda reader: _add_items(reader, reader.pop_mark()),
    0x91: lambda reader: reader.stack.append(frozenset(reader.pop_mark())),
    ord("q"): lambda reader: _put(reader, reader.take(1)[0]),
    ord("r"): lambda reader: _put(reader, reader.unpack("<I")),
    0x94: lambda reader: _put(reader, len(reader.memo)),
    ord("h"): lambda reader: _get(reader, reader.take(1)[0]),
    ord("j"): lambda reader: _get(reader, reader.unpack("<I")),
    ord("c"): _global_opcode,
    0x93: _stack_global,
    ord("R"): _reduce,
    ord("b"): _build,
    ord("Q"): _persistent,
}


def _dict_of(items):
    if len(items) % 2:
        raise CheckpointError("data.pkl builds a dict from an odd number of items")
    return dict(zip(items[::2], items[1::2]))


def read(stream, source, map_location=None):
    """The value a torch.save zip archive holds, its tensors passed through
    map_location (a function of the tensor) when given. Errors are
    ValueErrors naming `source`."""
    try:
        return _read(stream, map_location)
    except CheckpointError as error:
        raise ValueError(f"load: {source}: PyTorch checkpoint: {error}") from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError) as error:
        raise ValueError(f"load: {source}: not a readable zip archive: {error}") from None
    except RecursionError:
        raise ValueError(f"load: {source}: PyTorch checkpoint: its value nests too deeply") from None


def _read(stream, map_location):
    if not stream.seekable():
        stream = io.BytesIO(stream.read())
    archive = zipfile.ZipFile(stream)
    pickles = [name for name in archive.namelist() if name.endswith("/data.pkl") and name.count("/") == 1]
    if len(pickles) != 1:
        raise CheckpointError(f"the archive holds {len(pickles)} data.pkl entries at its top folder, not one")
    folder = pickles[0][:-len("data.pkl")]
    names = set(archive.namelist())
    if folder + "byteorder" in names and _read_entry(archive, folder + "byteorder", "byte order").strip() != b"little":
        raise CheckpointError("its tensors are stored big-endian; Ember reads little-endian checkpoints")
    storages = {}

    def persistent_load(saved_id):
        if not (isinstance(saved_id, tuple) and len(saved_id) == 5 and saved_id[0] == "storage"):
            raise CheckpointError(f"data.pkl refers to {saved_id!r}, which is not a storage")
        _, kind, key, location, numel = saved_id
        if not isinstance(key, str) or not isinstance(numel, int) or numel < 0:
            raise CheckpointError(f"a storage reference needs a key and an element count, got {saved_id!r}")
        dtype = kind.dtype if isinstance(kind, _StorageType) else _C.uint8
        if key not in storages:
            storages[key] = _Storage(archive, f"{folder}data/{key}", numel, dtype)
        return storages[key]

    return _Reader(_read_entry(archive, pickles[0], "data.pkl"), _names(map_location), persistent_load).run()
