"""ember.save / ember.load: state dicts in the safetensors format.

A file is an 8-byte little-endian header length, a JSON header naming each
tensor's dtype, shape and byte range, then the raw little-endian bytes. It
holds only data: loading parses JSON and copies bytes, and can never run
code (unlike pickle).

A flat dict of name -> tensor (a module's ``state_dict()``) is written as a
plain safetensors file, the one the `safetensors` package and Hugging Face
tooling read and write. Anything else built from dicts, lists and tuples of
tensors, ints, floats, bools, None and strings (an optimizer's
``state_dict()``, a training checkpoint) is stored in the same format: each
tensor under the dotted path that reaches it (``state.0.exp_avg``), and the
structure with its non-tensor values as JSON in the header's
``__metadata__`` under the key ``ember.structure``. Other safetensors
readers see the flattened tensors; ``ember.load`` gives back the structure.

The structure's JSON: ints, finite floats, bools, None and strings stand
for themselves, a JSON array is a list, and an object with one key is
``{"dict": [[key, value], ...]}`` (keys keep their type and order),
``{"tuple": [...]}``, ``{"tensor": "<flattened name>"}`` or
``{"float": "nan" | "inf" | "-inf"}``.
"""

import json
import math
import os
import struct

from . import _C

# safetensors' dtype codes.
_CODES = {
    _C.bool: "BOOL", _C.uint8: "U8", _C.int8: "I8", _C.int16: "I16", _C.int32: "I32", _C.int64: "I64",
    _C.float16: "F16", _C.bfloat16: "BF16", _C.float32: "F32", _C.float64: "F64",
}
_DTYPES = {code: dtype for dtype, code in _CODES.items()}
_HEADER_ALIGNMENT = 8
# Refuse headers beyond this size before reading them (safetensors' own limit).
_MAX_HEADER_BYTES = 100 * 1024 * 1024


# The __metadata__ key holding the structure of anything but a flat dict.
_STRUCTURE_KEY = "ember.structure"
_DICT_KEY_TYPES = (str, int, float, bool, type(None))


def save(obj, f, metadata=None):
    """Writes a state dict to ``f`` (a path or a binary file): a dict of
    name -> tensor, or nested dicts, lists and tuples of tensors and plain
    values (see the module docstring). ``metadata`` is an optional dict of
    strings stored in the header."""
    if not isinstance(obj, dict):
        raise TypeError(f"save: expected a dict (a state dict), got {type(obj).__name__}")
    header = {}
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
        if _STRUCTURE_KEY in header["__metadata__"]:
            raise ValueError(f"save: the metadata key '{_STRUCTURE_KEY}' is reserved for the saved structure")
    if all(isinstance(name, str) and isinstance(value, _C.Tensor) for name, value in obj.items()):
        tensors = obj
    else:
        tensors = {}
        structure = _encode(obj, "", tensors)
        header.setdefault("__metadata__", {})[_STRUCTURE_KEY] = json.dumps(
            structure, allow_nan=False, separators=(",", ":"))
    blobs = []
    offset = 0
    for name, tensor in tensors.items():
        blob = _C._tensor_bytes(tensor)
        header[name] = {"dtype": _CODES[tensor.dtype], "shape": list(tensor.shape),
                        "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    encoded = json.dumps(header, separators=(",", ":")).encode("utf-8")
    encoded += b" " * (-len(encoded) % _HEADER_ALIGNMENT)
    with _FileArgument(f, "wb") as out:
        out.write(struct.pack("<Q", len(encoded)))
        out.write(encoded)
        for blob in blobs:
            out.write(blob)


def _encode(value, path, tensors):
    """The structure's JSON for ``value``; its tensors go into ``tensors``
    under their dotted path."""
    if isinstance(value, _C.Tensor):
        if path in tensors or path == "__metadata__":
            raise ValueError(f"save: two entries are both stored as the tensor '{path}'; keys joined by '.' "
                             "must be unique")
        tensors[path] = value
        return {"tensor": path}
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
    raise TypeError(f"save: '{path}' is a {type(value).__name__}; only tensors, ints, floats, bools, None, "
                    "strings, and dicts, lists and tuples of them can be saved")


def _join(path, key):
    return f"{path}.{key}" if path else str(key)


def load(f, map_location=None, weights_only=True):
    """Reads a state dict written by save(), or a dict of name -> tensor from
    any safetensors writer. ``map_location`` (a device or its name) moves
    every tensor there."""
    if not weights_only:
        raise ValueError("load: only weights are stored (safetensors); weights_only=False has no meaning here")
    with _FileArgument(f, "rb") as source:
        data = source.read()
    if len(data) < 8:
        raise ValueError(f"load: {len(data)} bytes is too short for a safetensors file")
    (header_size,) = struct.unpack("<Q", data[:8])
    if header_size > min(_MAX_HEADER_BYTES, len(data) - 8):
        raise ValueError(f"load: header length {header_size} does not fit the file ({len(data)} bytes)")
    try:
        header = json.loads(data[8:8 + header_size].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"load: the header is not valid JSON: {error}") from None
    if not isinstance(header, dict):
        raise ValueError("load: the header must be a JSON object")
    body = memoryview(data)[8 + header_size:]
    result = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        dtype, shape, begin, end = _check_entry(name, entry, len(body))
        tensor = _C._tensor_from_buffer(body, begin, dtype, shape)
        if tensor.numel() * tensor.element_size() != end - begin:
            raise ValueError(f"load: '{name}' spans {end - begin} bytes but its {_CODES[dtype]} "
                             f"shape {shape} needs {tensor.numel() * tensor.element_size()}")
        result[name] = tensor if map_location is None else tensor.to(map_location)
    metadata = header.get("__metadata__")
    if not isinstance(metadata, dict) or _STRUCTURE_KEY not in metadata:
        return result
    try:
        structure = json.loads(metadata[_STRUCTURE_KEY])
        return _decode(structure, result)
    except (TypeError, json.JSONDecodeError) as error:
        raise ValueError(f"load: the saved structure is not valid: {error}") from None
    except RecursionError:
        raise ValueError("load: the saved structure nests too deeply") from None


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
                raise ValueError(f"load: the saved structure refers to the tensor '{content}', which the file "
                                 "does not hold")
            return tensors[content]
        if kind == "tuple" and isinstance(content, list):
            return tuple(_decode(item, tensors) for item in content)
        if kind == "float" and content in ("nan", "inf", "-inf"):
            return float(content)
        if kind == "dict" and isinstance(content, list) and all(
                isinstance(item, list) and len(item) == 2 for item in content):
            decoded = {}
            for key, value in content:
                key = _decode(key, tensors)
                if not isinstance(key, _DICT_KEY_TYPES):
                    raise ValueError(f"load: the saved structure has a dict key of type {type(key).__name__}")
                decoded[key] = _decode(value, tensors)
            return decoded
    raise ValueError(f"load: the saved structure has an entry it cannot read: {json.dumps(node)[:200]}")


def _check_entry(name, entry, body_size):
    if not isinstance(entry, dict):
        raise ValueError(f"load: entry '{name}' is not an object")
    code = entry.get("dtype")
    if code not in _DTYPES:
        raise ValueError(f"load: '{name}' has unsupported dtype {code!r}")
    shape = entry.get("shape")
    if not isinstance(shape, list) or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0
                                              for n in shape):
        raise ValueError(f"load: '{name}' has an invalid shape {shape!r}")
    offsets = entry.get("data_offsets")
    if (not isinstance(offsets, list) or len(offsets) != 2 or not all(isinstance(n, int) for n in offsets)
            or not 0 <= offsets[0] <= offsets[1] <= body_size):
        raise ValueError(f"load: '{name}' has data_offsets {offsets!r} outside the {body_size}-byte body")
    return _DTYPES[code], shape, offsets[0], offsets[1]


class _FileArgument:
    """A path opened and closed here, or a caller's file object left open."""

    def __init__(self, f, mode):
        self._owned = isinstance(f, (str, os.PathLike))
        self._file = open(f, mode) if self._owned else f

    def __enter__(self):
        return self._file

    def __exit__(self, *exc_info):
        if self._owned:
            self._file.close()
        return False
