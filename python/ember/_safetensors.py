"""The safetensors format: reading a file after checking every byte of it,
and writing one.

A file is an 8-byte little-endian header length, a JSON header naming each
tensor's dtype, shape and byte range [begin, end) in the data buffer that
follows, then that buffer. See Note [What a safetensors file must be].
"""

import json
import os
import reprlib
import struct
from collections import namedtuple

from . import _C

# Note [What a safetensors file must be]
# A reader that trusts the header can be made to allocate what the file does
# not hold, to wrap a size product round to a small number, or to hand out
# bytes that no dtype allows. Ember accepts exactly the files the reference
# reader (huggingface/safetensors) accepts, checked in the same terms, and
# all of it before any tensor is allocated:
# - the header length is at most 100,000,000 and fits the file;
# - the header is UTF-8 JSON (no NaN or Infinity, no number out of double
#   range, no lone surrogate escape, nesting at most 127 deep), an object
#   whose `__metadata__`, if present and not null, maps strings to strings
#   and whose other members are tensors: objects with `dtype`, `shape` (a
#   list of unsigned 64-bit integers) and `data_offsets` ([begin, end], two
#   of them); other members of a tensor's object are ignored;
# - the element count and byte size are computed without overflow (every
#   partial product of the shape, and the size in bits, fit 64 bits) and
#   equal end - begin;
# - sorted by (begin, end), the tensors tile the data buffer: each begins
#   where the previous one ends, the first at 0, the last at the file's end.
# Ember is stricter in four ways, each because the file would be read wrong:
# a key appearing twice in any JSON object (the reference keeps one of the
# two), a dtype Ember lacks (U16, U32, U64, C64, the 8-, 6- and 4-bit
# floats), a shape Ember's tensors cannot hold (more dimensions than the
# core allows, or, possible only for a tensor with no elements, sizes whose
# product exceeds int64), and a BOOL byte other than 0 or 1 (any other
# value is undefined behaviour in the kernels that read it).
# The file is read once, front to back, in bounded chunks; a file that ends
# early or grows while it is read is refused, never read past its end.

CODES = {
    _C.bool: "BOOL", _C.uint8: "U8", _C.int8: "I8", _C.int16: "I16", _C.int32: "I32", _C.int64: "I64",
    _C.float16: "F16", _C.bfloat16: "BF16", _C.float32: "F32", _C.float64: "F64",
}
_DTYPES = {code: dtype for dtype, code in CODES.items()}
METADATA_KEY = "__metadata__"
_LENGTH_BYTES = 8
_HEADER_ALIGNMENT = 8
_MAX_HEADER_BYTES = 100_000_000
_MAX_HEADER_DEPTH = 127
_MAX_UNSIGNED = 2**64 - 1
_MAX_EMBER_SIZE = 2**63 - 1
_READ_CHUNK_BYTES = 16 << 20
_META = _C.device("meta")

_Entry = namedtuple("_Entry", "name dtype shape begin end")


class _HeaderError(ValueError):
    """A header that breaks a rule of the format, found while parsing it."""


def write(stream, tensors, metadata):
    """Writes ``tensors`` (name -> tensor, in that order) and ``metadata``
    (str -> str, or None) to the binary stream as a safetensors file."""
    header = {}
    if metadata is not None:
        header[METADATA_KEY] = metadata
    offset = 0
    for name, tensor in tensors.items():
        nbytes = tensor.numel() * tensor.element_size()
        header[name] = {"dtype": CODES[tensor.dtype], "shape": list(tensor.shape),
                        "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    try:
        encoded = json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except UnicodeEncodeError as error:
        raise ValueError(f"save: a tensor name or metadata string is not Unicode text: {error}") from None
    encoded += b" " * (-len(encoded) % _HEADER_ALIGNMENT)
    stream.write(struct.pack("<Q", len(encoded)))
    stream.write(encoded)
    for tensor in tensors.values():
        stream.write(_C._tensor_bytes(tensor))


def read(stream, source):
    """Reads a safetensors file from the binary stream's current position to
    its end: (name -> tensor in header order, metadata dict or None).
    ``source`` names the file in errors."""
    remaining = _remaining_bytes(stream)
    prefix = _read_up_to(stream, _LENGTH_BYTES)
    if len(prefix) < _LENGTH_BYTES:
        raise _error(source, f"{len(prefix)} bytes is too short for a safetensors file (8-byte header length, "
                             "JSON header, data)")
    (header_size,) = struct.unpack("<Q", prefix)
    if header_size > _MAX_HEADER_BYTES or (remaining is not None and header_size > remaining - _LENGTH_BYTES):
        if prefix.startswith(b"PK\x03\x04"):
            raise _error(source, "this is a zip archive, the format torch.save writes, in a stream that cannot "
                                 "seek, which reading a zip archive needs: pass the file's path or a seekable file")
        if prefix[0] == 0x80 and 2 <= prefix[1] <= 5:
            raise _error(source, "this is a pickle, the legacy format of torch.save, which Ember does not read "
                                 "(its reader of PyTorch checkpoints takes the zip archives torch.save has written "
                                 "since PyTorch 1.6). Resave it where PyTorch is installed: "
                                 "torch.save(torch.load(path, weights_only=True), path)")
        size = "" if remaining is None else f"the file holds {remaining} bytes; "
        raise _error(source, f"header length {header_size} does not fit the file ({size}a header is at most "
                             f"{_MAX_HEADER_BYTES} bytes)")
    header = _parse_header(_read_exactly(stream, header_size, source, "header"), source)
    metadata = _check_metadata(header.pop(METADATA_KEY, None), source)
    entries = [_check_entry(name, entry, source) for name, entry in header.items()]
    data_size = _check_layout(entries, source)
    for entry in entries:
        _check_ember_can_hold(entry, source)
    if remaining is not None and remaining != _LENGTH_BYTES + header_size + data_size:
        raise _error(source, f"the header's tensors cover {data_size} bytes after the {header_size}-byte header, "
                             f"but the file holds {remaining - _LENGTH_BYTES - header_size}")
    data = _read_exactly(stream, data_size, source, "data")
    if stream.read(1):
        raise _error(source, f"the file goes on past the {data_size} data bytes its header's tensors cover (it "
                             "has trailing bytes, or grew while being read)")
    for entry in entries:
        if entry.dtype is _C.bool:
            _check_bool_bytes(entry, data, source)
    return {entry.name: _C._tensor_from_buffer(data, entry.begin, entry.dtype, entry.shape)
            for entry in entries}, metadata


def _error(source, message):
    return ValueError(f"load: {source}: {message}")


def _remaining_bytes(stream):
    """Bytes from the stream's position to its end, or None for a stream that
    cannot seek (a pipe)."""
    try:
        if not stream.seekable():
            return None
        here = stream.tell()
        end = stream.seek(0, os.SEEK_END)
        stream.seek(here)
    except (AttributeError, OSError):
        return None
    return end - here


def _read_up_to(stream, size):
    """Up to ``size`` bytes of the stream, fewer at its end, read in chunks
    so that what is allocated never runs ahead of what the file holds."""
    buffer = bytearray()
    while len(buffer) < size:
        chunk = stream.read(min(size - len(buffer), _READ_CHUNK_BYTES))
        if not chunk:
            break
        buffer += chunk
    return buffer


def _read_exactly(stream, size, source, part):
    buffer = _read_up_to(stream, size)
    if len(buffer) < size:
        raise _error(source, f"the file ends after {len(buffer)} of the {size} bytes of its {part} (it is "
                             "truncated, or shrank while being read)")
    return buffer


def _parse_header(raw, source):
    try:
        header = json.loads(raw.decode("utf-8"), object_pairs_hook=_object_without_duplicate_keys,
                            parse_constant=_refuse_constant, parse_float=_finite_float, parse_int=_integer)
    except UnicodeDecodeError as error:
        raise _error(source, f"the header is not UTF-8 text: {error}") from None
    except RecursionError:
        raise _error(source, f"the header nests deeper than {_MAX_HEADER_DEPTH} levels") from None
    except _HeaderError as error:
        raise _error(source, str(error)) from None
    except ValueError as error:
        raise _error(source, f"the header is not valid JSON: {error}") from None
    if not isinstance(header, dict):
        raise _error(source, f"the header must be a JSON object, got {type(header).__name__}")
    _check_nesting_and_text(header, source)
    return header


def _object_without_duplicate_keys(pairs):
    result = dict(pairs)
    if len(result) != len(pairs):
        seen = set()
        duplicate = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise _HeaderError(f"the header has the key {duplicate!r} twice in one object")
    return result


def _refuse_constant(name):
    raise _HeaderError(f"the header holds {name}, which is not JSON")


def _finite_float(text):
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _HeaderError(f"the header holds the number {reprlib.repr(text)}, beyond the range of a double")
    return value


def _integer(text):
    # JSON's -0 is not an unsigned integer to the reference reader (it reads
    # it as the float -0.0); a float here makes the shape and offset checks
    # refuse it the same way, while 0 would pass them.
    return -0.0 if text == "-0" else int(text)


def _check_nesting_and_text(header, source):
    pending = [(header, 1)]
    while pending:
        value, depth = pending.pop()
        if depth > _MAX_HEADER_DEPTH:
            raise _error(source, f"the header nests deeper than {_MAX_HEADER_DEPTH} levels")
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            for text in (key, item):
                if isinstance(text, str) and not text.isascii():
                    _check_unicode(text, source)
            if isinstance(item, (dict, list)):
                pending.append((item, depth + 1))


def _check_unicode(text, source):
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise _error(source, f"the header's string {reprlib.repr(text)} holds a lone surrogate escape, which is "
                             "not Unicode text") from None


def _check_metadata(metadata, source):
    if metadata is None:
        return None
    if not isinstance(metadata, dict) or not all(isinstance(value, str) for value in metadata.values()):
        raise _error(source, f"'{METADATA_KEY}' must be an object mapping strings to strings, got "
                             f"{reprlib.repr(metadata)}")
    return metadata


def _is_unsigned(value):
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= _MAX_UNSIGNED


def _check_entry(name, entry, source):
    where = f"tensor {name!r}"
    if not isinstance(entry, dict):
        raise _error(source, f"{where} must be an object with 'dtype', 'shape' and 'data_offsets', got "
                             f"{reprlib.repr(entry)}")
    for field in ("dtype", "shape", "data_offsets"):
        if field not in entry:
            raise _error(source, f"{where} lacks the field '{field}'")
    code, shape, offsets = entry["dtype"], entry["shape"], entry["data_offsets"]
    if not isinstance(code, str) or code not in _DTYPES:
        raise _error(source, f"{where} has the dtype {reprlib.repr(code)}; Ember reads {', '.join(_DTYPES)}")
    if not isinstance(shape, list) or not all(_is_unsigned(n) for n in shape):
        raise _error(source, f"{where} has the shape {reprlib.repr(shape)}; a shape is a list of non-negative "
                             "64-bit integers")
    if not isinstance(offsets, list) or len(offsets) != 2 or not all(_is_unsigned(n) for n in offsets):
        raise _error(source, f"{where} has the data_offsets {reprlib.repr(offsets)}; they are [begin, end], two "
                             "non-negative 64-bit integers")
    return _Entry(name, _DTYPES[code], shape, offsets[0], offsets[1])


def _check_layout(entries, source):
    """The data buffer's size, once the tensors are known to tile it."""
    end_of_previous = 0
    previous = None
    for entry in sorted(entries, key=lambda e: (e.begin, e.end)):
        where = f"tensor {entry.name!r} (data_offsets [{entry.begin}, {entry.end}])"
        if entry.begin < end_of_previous:
            raise _error(source, f"{where} overlaps {previous.name!r}, which ends at {end_of_previous}")
        if entry.begin > end_of_previous:
            raise _error(source, f"{where} leaves bytes {end_of_previous} to {entry.begin} of the data to no "
                                 "tensor")
        if entry.end < entry.begin:
            raise _error(source, f"{where} ends before it begins")
        nbytes = _byte_size(entry)
        if nbytes is None:
            raise _error(source, f"{where}: the size of its {CODES[entry.dtype]} shape {reprlib.repr(entry.shape)} "
                                 "overflows 64 bits")
        if nbytes != entry.end - entry.begin:
            raise _error(source, f"{where} spans {entry.end - entry.begin} bytes, but its {CODES[entry.dtype]} "
                                 f"shape {reprlib.repr(entry.shape)} needs {nbytes}")
        end_of_previous, previous = entry.end, entry
    return end_of_previous


def _check_ember_can_hold(entry, source):
    extent = 1
    for n in entry.shape:
        extent *= max(n, 1)
    if extent > _MAX_EMBER_SIZE:
        raise _error(source, f"tensor {entry.name!r}: the sizes of its shape {reprlib.repr(entry.shape)} multiply "
                             "past Ember's int64 sizes")
    try:
        _C._empty(entry.shape, entry.dtype, _META)  # the core's own rules for a shape, at no cost
    except ValueError as error:
        raise _error(source, f"tensor {entry.name!r}: {error}") from None


def _byte_size(entry):
    """The tensor's size in bytes, or None where the reference reader's
    64-bit computation (each partial product, then the size in bits)
    overflows."""
    count = 1
    for n in entry.shape:
        count *= n
        if count > _MAX_UNSIGNED:
            return None
    nbytes = count * entry.dtype.itemsize
    return None if nbytes * 8 > _MAX_UNSIGNED else nbytes


def _check_bool_bytes(entry, data, source):
    stored = data[entry.begin:entry.end]
    if stored.translate(None, b"\x00\x01"):
        index = next(i for i, byte in enumerate(stored) if byte > 1)
        raise _error(source, f"tensor {entry.name!r} is BOOL, but its byte {index} is {stored[index]:#04x}; BOOL "
                             "bytes must be 0 or 1")
