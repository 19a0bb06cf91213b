"""ember.save / ember.load: state dicts in the safetensors format.

A file is an 8-byte little-endian header length, a JSON header naming each
tensor's dtype, shape and byte range, then the raw little-endian bytes. It
holds only data: loading parses JSON and copies bytes, and can never run
code (unlike pickle). Files interoperate with the `safetensors` package and
Hugging Face tooling.
"""

import json
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


def save(obj, f, metadata=None):
    """Writes a dict of name -> tensor to ``f`` (a path or a binary file).
    ``metadata`` is an optional dict of strings stored in the header."""
    if not isinstance(obj, dict):
        raise TypeError(f"save: expected a dict of tensors (a state dict), got {type(obj).__name__}")
    header = {}
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    blobs = []
    offset = 0
    for name, tensor in obj.items():
        if not isinstance(name, str):
            raise TypeError(f"save: keys must be strings, got {type(name).__name__}")
        if not isinstance(tensor, _C.Tensor):
            raise TypeError(f"save: value of '{name}' is a {type(tensor).__name__}, not a Tensor")
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


def load(f, map_location=None, weights_only=True):
    """Reads a dict of name -> tensor written by save() or any safetensors
    writer. ``map_location`` (a device or its name) moves every tensor there."""
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
    return result


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
