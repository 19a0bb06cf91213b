"""ember.save / ember.load: state dicts, checkpoints and other values in the
safetensors format.

A file is an 8-byte little-endian header length, a JSON header naming each
tensor's dtype, shape and byte range, then the raw little-endian bytes. It
holds only data: loading parses JSON and copies bytes, and can never run
code (unlike pickle). ``_safetensors.py`` reads, checks and writes it.

A flat dict of name -> tensor (a module's ``state_dict()``) is written as a
plain safetensors file, the one the `safetensors` package and Hugging Face
tooling read and write. Any other value built from dicts, lists and tuples
of tensors, NumPy arrays, ints, floats, bools, None and strings (an
optimizer's ``state_dict()``, a training checkpoint, a bare tensor or list)
is stored in the same format: each tensor and array under the dotted path
that reaches it (``state.0.exp_avg``; ``value`` for a bare one), and the
structure with its other values as JSON in the header's ``__metadata__``
under the key ``ember.structure``. A NumPy number (``numpy.float32(2)``) is
stored as the Python number it holds. Other safetensors readers see the
flattened tensors; ``ember.load`` gives back the structure.

The structure's JSON: ints, finite floats, bools, None and strings stand
for themselves, a JSON array is a list, and an object with one key is
``{"dict": [[key, value], ...]}`` (keys keep their type and order),
``{"tuple": [...]}``, ``{"tensor": "<flattened name>"}``,
``{"float": "nan" | "inf" | "-inf"}`` or ``{"ndarray": ["<flattened name>",
"<NumPy dtype string>", [shape]]}``. An array whose dtype Ember's tensors
have is stored as a tensor of that dtype and shape; any other (uint32,
complex, fixed-width strings, ...) as its bytes, a 1-d uint8 tensor. Loading
rebuilds only arrays of plain data (no object or structured dtypes).

``ember.load`` also reads the zip archives torch.save writes, for their data
and tensors only (``_torch_checkpoints.py``).
"""

import errno
import json
import math
import os
import re
import secrets
import stat
import sys

try:
    import fcntl
except ImportError:  # Windows: no flock, so no removal of abandoned temporaries
    fcntl = None

from . import _C
from . import _safetensors, _torch_checkpoints
from ._safetensors import METADATA_KEY

# The __metadata__ key holding the structure of anything but a flat dict.
_STRUCTURE_KEY = "ember.structure"
_DICT_KEY_TYPES = (str, int, float, bool, type(None))


def save(obj, f, metadata=None):
    """Writes ``obj`` to ``f`` (a path or a binary file): a dict of name ->
    tensor, or any nesting of dicts, lists and tuples of tensors, NumPy
    arrays and plain values (see the module docstring). ``metadata`` is an
    optional dict of strings stored in the header. A path is replaced whole
    or not at all (see Note [Replacing a file whole])."""
    header_metadata = None
    if metadata:
        header_metadata = {str(k): str(v) for k, v in metadata.items()}
        if _STRUCTURE_KEY in header_metadata:
            raise ValueError(f"save: the metadata key '{_STRUCTURE_KEY}' is reserved for the saved structure")
    if isinstance(obj, dict) and all(isinstance(name, str) and isinstance(value, _C.Tensor)
                                     for name, value in obj.items()):
        tensors = obj
        if METADATA_KEY in tensors:
            raise ValueError(f"save: a tensor cannot be named '{METADATA_KEY}': safetensors reserves that key for "
                             "the header's metadata")
    else:
        tensors = {}
        structure = _encode(obj, "", tensors)
        header_metadata = header_metadata or {}
        header_metadata[_STRUCTURE_KEY] = json.dumps(structure, allow_nan=False, separators=(",", ":"))
    if isinstance(f, (str, os.PathLike)):
        _replace_whole(f, lambda stream: _safetensors.write(stream, tensors, header_metadata))
    else:
        _safetensors.write(f, tensors, header_metadata)


# Note [Replacing a file whole]
# Writing straight to the target would destroy the previous good file when
# the write stops half way (a full disk, a file-size limit, a kill). save()
# writes a hidden temporary beside the target, in the same folder so that
# the rename cannot cross file systems, syncs it to disk, renames it onto
# the target (atomic on POSIX and Windows), then syncs the folder so that
# the rename itself survives a crash. An error removes the temporary; only a
# kill can leave one behind (`.<name>.<random>.tmp`), and the target is then
# untouched; the next save of that target removes it
# (Note [Temporaries of killed writers]). The temporary is made with
# os.open(O_EXCL, 0o666) rather than tempfile.mkstemp, whose 0o600 would
# become the target's mode: this way the kernel applies the umask (and a
# folder's default ACL) as for any new file, and a file that existed keeps its own permission bits. A symbolic
# link is followed, and a target the user may not write is refused as
# open() would refuse it.
#
# Note [Temporaries of killed writers]
# A writer holds an exclusive flock on its temporary while it writes, and a
# kill releases it with the process. So save() first removes every
# `.<name>.<16 hex digits>.tmp` beside the target that it can lock: no
# live writer holds it, it is what a killed one left. A cleaner could lock a
# new temporary in the instant between its creation and its writer's flock;
# the writer therefore checks, once it holds the lock, that the name still
# refers to its file, and starts again under a new name if not. Where flock
# is missing (Windows) or refused (some network file systems) nothing is
# removed.


def _replace_whole(path, write):
    target = os.path.realpath(path)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    if mode is not None and not os.access(target, os.W_OK):
        raise PermissionError(errno.EACCES, f"save: cannot write '{os.fspath(path)}': {os.strerror(errno.EACCES)}")
    folder, name = os.path.split(target)
    _remove_abandoned_temporaries(folder, name)
    temporary, descriptor = _create_temporary(path, folder, name)
    try:
        with open(descriptor, "wb") as stream:
            if mode is not None:
                os.chmod(temporary, mode)
            write(stream)
            stream.flush()
            os.fsync(stream.fileno())
            if fcntl is not None:
                os.replace(temporary, target)  # while still locked: Note [Temporaries of killed writers]
        if fcntl is None:
            os.replace(temporary, target)  # (Windows cannot rename an open file)
    except BaseException as error:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        if isinstance(error, OSError) and error.errno is not None and not error.filename:
            # A full disk or a file-size limit (ENOSPC, EFBIG): name the file.
            raise type(error)(error.errno, f"save: cannot write '{os.fspath(path)}': {error.strerror}") from error
        raise
    _sync_folder(folder)


def _temporary_pattern(name):
    return re.compile(rf"\.{re.escape(name)}\.[0-9a-f]{{16}}\.tmp")


def _create_temporary(path, folder, name):
    """A new temporary beside the target, open for writing and locked
    (Note [Temporaries of killed writers]): its path and descriptor."""
    while True:
        temporary = os.path.join(folder, f".{name}.{secrets.token_hex(8)}.tmp")
        try:
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                                 0o666)
        except OSError as error:
            raise type(error)(error.errno, f"save: cannot write '{os.fspath(path)}': {error.strerror}") from None
        if fcntl is None:
            return temporary, descriptor
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
        except OSError:
            return temporary, descriptor  # no locks here: nothing is ever removed either
        try:
            still_ours = os.stat(temporary).st_ino == os.fstat(descriptor).st_ino
        except FileNotFoundError:
            still_ours = False
        if still_ours:
            return temporary, descriptor
        os.close(descriptor)  # a cleaner took it for a killed writer's: start again


def _remove_abandoned_temporaries(folder, name):
    """Removes the temporaries killed writers of ``name`` left in ``folder``
    (Note [Temporaries of killed writers])."""
    if fcntl is None:
        return
    pattern = _temporary_pattern(name)
    try:
        entries = os.listdir(folder)
    except OSError:
        return
    for entry in entries:
        if not pattern.fullmatch(entry):
            continue
        leftover = os.path.join(folder, entry)
        try:
            descriptor = os.open(leftover, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            continue
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.unlink(leftover)  # still locked by us, so no writer can be mid-way
        except OSError:
            pass  # a live writer holds it, or it is gone already
        finally:
            os.close(descriptor)


def _sync_folder(folder):
    """Makes a rename in ``folder`` durable, where the system allows a folder
    to be synced (not on Windows)."""
    try:
        descriptor = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


# The name of a tensor or array saved bare, not inside a container.
_BARE_NAME = "value"


def _store(tensor, path, tensors):
    name = path or _BARE_NAME
    if name == METADATA_KEY:
        raise ValueError(f"save: a tensor cannot be stored as '{METADATA_KEY}': safetensors reserves that key "
                         "for the header's metadata")
    if name in tensors:
        raise ValueError(f"save: two entries are both stored as the tensor '{name}'; keys joined by '.' "
                         "must be unique")
    tensors[name] = tensor
    return name


def _encode(value, path, tensors):
    """The structure's JSON for ``value``; its tensors and arrays go into
    ``tensors`` under their dotted path."""
    if isinstance(value, _C.Tensor):
        return {"tensor": _store(value, path, tensors)}
    if _is_numpy_array(value):
        return {"ndarray": _encode_array(value, path, tensors)}
    if _is_numpy_number(value):
        return _encode(value.item(), path, tensors)
    if isinstance(value, float) and not math.isfinite(value):
        return {"float": repr(value)}
    if value is None or isinstance(value, (str, int, float)):
        return value
    if isinstance(value, dict):
        items = []
        for key, item in value.items():
            if not isinstance(key, _DICT_KEY_TYPES):
                raise TypeError(f"save: '{path}' has a key of type {type(key).__name__}; dict keys must be "
                                "strings, ints, floats, bools or None")
            items.append([_encode(key, path, tensors), _encode(item, _join(path, key), tensors)])
        return {"dict": items}
    if isinstance(value, (list, tuple)):
        encoded = [_encode(item, _join(path, i), tensors) for i, item in enumerate(value)]
        return encoded if isinstance(value, list) else {"tuple": encoded}
    where = f"'{path}' is" if path else "the object to save is"
    if callable(getattr(value, "state_dict", None)):
        # A module or an optimizer: PyTorch pickles it whole, code and all.
        raise TypeError(f"save: {where} a {type(value).__name__}, which cannot be saved whole (rebuilding it "
                        "would run code from the file); save its state_dict() instead and load it with "
                        "load_state_dict()")
    raise TypeError(f"save: {where} a {type(value).__name__}; only tensors, NumPy arrays, ints, floats, bools, "
                    "None, strings, and dicts, lists and tuples of them can be saved")


def _is_numpy_array(value):
    numpy = sys.modules.get("numpy")  # without NumPy loaded there are no arrays
    return numpy is not None and isinstance(value, numpy.ndarray)


def _is_numpy_number(value):
    numpy = sys.modules.get("numpy")
    return numpy is not None and isinstance(value, (numpy.bool_, numpy.number)) and value.dtype.kind in "biuf"


def _encode_array(array, path, tensors):
    import numpy

    if not _is_plain_data(array.dtype):
        raise TypeError(f"save: '{path or _BARE_NAME}' is a NumPy array of dtype {array.dtype}; only arrays of "
                        "numbers, bools and fixed-width strings can be saved")
    array = numpy.asarray(array, order="C")  # (ascontiguousarray would make a 0-d array 1-d)
    dtype = _NUMPY_DTYPES.get(array.dtype.str)
    if dtype is not None:
        tensor = _C._tensor_from_buffer(array, 0, dtype, list(array.shape))
    else:
        tensor = _C._tensor_from_buffer(array.view(numpy.uint8).reshape(-1), 0, _C.uint8, [array.nbytes])
    return [_store(tensor, path, tensors), array.dtype.str, list(array.shape)]


def _is_plain_data(dtype):
    return dtype.kind in "biufcSUmM" and not dtype.hasobject and dtype.fields is None and dtype.itemsize > 0


# NumPy dtype strings (little-endian, as tensors are) of Ember's dtypes.
_NUMPY_DTYPES = {"|b1": _C.bool, "|u1": _C.uint8, "|i1": _C.int8, "<i2": _C.int16, "<i4": _C.int32,
                 "<i8": _C.int64, "<f2": _C.float16, "<f4": _C.float32, "<f8": _C.float64}


def _join(path, key):
    return f"{path}.{key}" if path else str(key)


def load(f, map_location=None, weights_only=True):
    """Reads a state dict written by save(), a dict of name -> tensor from
    any safetensors writer, or the data and tensors of a torch.save archive
    (Note [PyTorch checkpoints without unpickling]). ``map_location`` (a
    device or its name, a dict of locations or a function, as torch.load
    takes it) moves every tensor. ``weights_only`` is accepted for
    torch.load's signature: only data is ever read, so both values load the
    same. A file that is not exactly a safetensors file (see Note [What a
    safetensors file must be]) or a readable archive is a ValueError naming
    the file and what is wrong, and nothing is loaded."""
    source = _describe(f)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as stream:
            return _load_stream(stream, source, map_location)
    return _load_stream(f, source, map_location)


def _load_stream(stream, source, map_location):
    if _starts_as_torch_checkpoint(stream):
        mapped = None if map_location is None else (lambda tensor: _mapped(tensor, map_location))
        return _torch_checkpoints.read(stream, source, mapped)
    tensors, metadata = _safetensors.read(stream, source)
    if map_location is not None:
        tensors = {name: _mapped(tensor, map_location) for name, tensor in tensors.items()}
    if metadata is None or _STRUCTURE_KEY not in metadata:
        return tensors
    where = f"load: {source}: the saved structure (__metadata__['{_STRUCTURE_KEY}'])"
    try:
        return _decode(json.loads(metadata[_STRUCTURE_KEY]), tensors)
    except _StructureError as error:
        raise ValueError(f"{where} {error}") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"{where} is not valid JSON: {error}") from None
    except RecursionError:
        raise ValueError(f"{where} nests too deeply") from None


def _starts_as_torch_checkpoint(stream):
    """Whether a seekable stream begins as torch.save's zip archive (the position is kept)."""
    if not stream.seekable():
        return False
    here = stream.tell()
    prefix = stream.read(4)
    stream.seek(here)
    return _torch_checkpoints.is_torch_checkpoint(prefix)


def _mapped(tensor, map_location):
    """torch.load's map_location: a device or its name, a dict from saved
    locations to new ones, or a function(tensor, location) returning the
    tensor to use. A file keeps no device, so every location is "cpu"."""
    if callable(map_location):
        moved = map_location(tensor, "cpu")
        if not isinstance(moved, _C.Tensor):
            raise TypeError(f"load: map_location returned a {type(moved).__name__}, not a tensor")
        return moved
    if isinstance(map_location, dict):
        target = map_location.get("cpu")
        return tensor if target is None else tensor.to(target)
    return tensor.to(map_location)


def _describe(f):
    if isinstance(f, (str, os.PathLike)):
        return repr(os.fspath(f))
    name = getattr(f, "name", None)
    return repr(name) if isinstance(name, str) else f"the {type(f).__name__} object"


class _StructureError(ValueError):
    """A saved structure that _decode cannot read."""


def _decode(node, tensors):
    """The value the structure's JSON ``node`` stands for (the inverse of _encode)."""
    if node is None or isinstance(node, (str, int, float)):
        return node
    if isinstance(node, list):
        return [_decode(item, tensors) for item in node]
    if isinstance(node, dict) and len(node) == 1:
        (kind, content), = node.items()
        if kind == "tensor" and isinstance(content, str):
            if content not in tensors:
                raise _StructureError(f"refers to the tensor '{content}', which the file does not hold")
            return tensors[content]
        if kind == "tuple" and isinstance(content, list):
            return tuple(_decode(item, tensors) for item in content)
        if kind == "float" and content in ("nan", "inf", "-inf"):
            return float(content)
        if kind == "ndarray" and isinstance(content, list) and len(content) == 3:
            return _decode_array(*content, tensors)
        if kind == "dict" and isinstance(content, list) and all(
                isinstance(item, list) and len(item) == 2 for item in content):
            decoded = {}
            for key, value in content:
                key = _decode(key, tensors)
                if not isinstance(key, _DICT_KEY_TYPES):
                    raise _StructureError(f"has a dict key of type {type(key).__name__}")
                decoded[key] = _decode(value, tensors)
            return decoded
    raise _StructureError(f"has an entry it cannot read: {json.dumps(node)[:200]}")


def _decode_array(name, dtype_string, shape, tensors):
    """The NumPy array an ``{"ndarray": [name, dtype, shape]}`` entry stands for."""
    import numpy

    if not isinstance(name, str) or name not in tensors:
        raise _StructureError(f"refers to the array '{name}', which the file does not hold")
    try:
        dtype = numpy.dtype(dtype_string) if isinstance(dtype_string, str) else None
    except (TypeError, ValueError, SyntaxError):  # NumPy reads the string as data (ast.literal_eval), never code
        dtype = None
    if dtype is None or not _is_plain_data(dtype):
        raise _StructureError(f"gives the array '{name}' the dtype {json.dumps(dtype_string)[:100]}, which is not "
                              "a dtype of plain data")
    if not isinstance(shape, list) or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0
                                              for n in shape):
        raise _StructureError(f"gives the array '{name}' the shape {json.dumps(shape)[:100]}")
    data = _C._tensor_bytes(tensors[name])
    if len(data) != math.prod(shape) * dtype.itemsize:
        raise _StructureError(f"gives the array '{name}' the dtype {dtype} and shape {shape}, but its tensor "
                              f"holds {len(data)} bytes")
    return numpy.frombuffer(data, dtype).reshape(shape).copy()
