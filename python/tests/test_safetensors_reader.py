"""ember.load accepts exactly the safetensors files the reference reader
(the `safetensors` package) accepts, and reads them to the same bytes: the
checked-in corpus, and a few thousand seeded mutations of it. Ember is
stricter in four ways only (Note [What a safetensors file must be] in
ember/_safetensors.py), each recognised here from the file itself."""

import io
import json
import math
import pathlib
import random
import re
import struct

import pytest

import ember

CORPUS = sorted((pathlib.Path(__file__).parent / "data" / "safetensors_corpus").glob("*.safetensors"))
DTYPE_NAMES = {"BOOL": "bool", "U8": "uint8", "I8": "int8", "I16": "int16", "I32": "int32", "I64": "int64",
               "F16": "float16", "BF16": "bfloat16", "F32": "float32", "F64": "float64"}
CODE_OF = {getattr(ember, name): code for code, name in DTYPE_NAMES.items()}
# dtype values mutations write: Ember's, the format's others, and not dtypes.
DTYPE_VALUES = sorted(DTYPE_NAMES) + ["U16", "C64", "F8_E4M3", "bool", 5]
MUTATIONS = 4000
INTERESTING_NUMBERS = ["0", "1", "2", "3", "7", "8", "-1", "-0", "1.0", "1e999", "255", "65536", "2147483648",
                       "4294967296", "1073741824", "4611686018427387904", "9223372036854775807",
                       "9223372036854775808", "18446744073709551615", "18446744073709551616"]


@pytest.fixture(scope="module")
def reference():
    safetensors = pytest.importorskip("safetensors", reason="the reference reader (pip install safetensors) is "
                                                            "the oracle these tests compare Ember with")
    return safetensors


def load_with_ember(data):
    """The tensors Ember reads from ``data`` as {name: (code, shape, bytes)},
    or the ValueError it raises; any other exception fails the test."""
    try:
        loaded = ember.load(io.BytesIO(data))
    except ValueError as error:
        assert str(error).startswith("load: the BytesIO object: "), error
        return error
    return {name: (CODE_OF[t.dtype], list(t.shape), bytes(ember._C._tensor_bytes(t))) for name, t in loaded.items()}


def load_with_reference(reference, data):
    try:
        return {name: (view["dtype"], list(view["shape"]), bytes(view["data"]))
                for name, view in reference.deserialize(data)}
    except reference.SafetensorError:
        return None


def has_a_duplicate_key(header):
    duplicates = []

    def note_duplicates(pairs):
        duplicates.append(len(pairs) != len(dict(pairs)))
        return dict(pairs)

    json.loads(header.decode("utf-8"), object_pairs_hook=note_duplicates)
    return any(duplicates)


def why_ember_is_stricter(data, theirs, error):
    """The rule of Ember's that refuses a file the reference reads, checked
    on the file itself, or None."""
    message = str(error)
    if has_a_duplicate_key(_header(data)[0]) and "twice" in message:
        return "a duplicate key"
    if any(code not in DTYPE_NAMES for code, _, _ in theirs.values()) and "dtype" in message:
        return "a dtype Ember lacks"
    if any(len(shape) > 16 or math.prod(max(n, 1) for n in shape) > 2**63 - 1 for _, shape, _ in theirs.values()) \
            and ("int64" in message or "dimensions" in message):
        return "a shape Ember cannot hold"
    if any(code == "BOOL" and any(byte > 1 for byte in stored) for code, _, stored in theirs.values()) \
            and "BOOL" in message:
        return "a BOOL byte other than 0 or 1"
    return None


def compare(reference, data):
    """'both read', 'both refuse' or 'Ember is stricter', failing where the
    two readers disagree otherwise or read different bytes."""
    ours, theirs = load_with_ember(data), load_with_reference(reference, data)
    if theirs is None:
        assert isinstance(ours, ValueError), f"Ember reads a file the reference refuses: {data[:300]!r}"
        return "both refuse"
    if isinstance(ours, ValueError):
        assert why_ember_is_stricter(data, theirs, ours), f"Ember refuses a file the reference reads: {ours}"
        return "Ember is stricter"
    assert ours == theirs
    return "both read"


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_corpus_files_read_as_the_reference_reads_them(reference, path):
    data = path.read_bytes()
    outcome = compare(reference, data)
    if path.stem.startswith("good_"):
        assert outcome == "both read"
    else:
        assert outcome != "both read"
        with pytest.raises(ValueError, match=re.escape(f"load: '{path}': ")):
            ember.load(path)


def _header(data):
    (header_size,) = struct.unpack("<Q", data[:8])
    return data[8:8 + header_size], data[8 + header_size:]


def _with_header(header, body):
    return struct.pack("<Q", len(header)) + header + body


class _Pairs(list):
    """A JSON object as its list of (key, value) pairs, so that a mutation
    can write a key twice."""


def _encode_pairs(value):
    if isinstance(value, _Pairs):
        return "{" + ",".join(json.dumps(key) + ":" + _encode_pairs(item) for key, item in value) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_encode_pairs(item) for item in value) + "]"
    return json.dumps(value)


def _changed_field(rng, key, value):
    if key == "dtype":
        return rng.choice(DTYPE_VALUES)
    if isinstance(value, list) and value and rng.random() < 0.7:
        value = list(value)
        value[rng.randrange(len(value))] = json.loads(rng.choice(INTERESTING_NUMBERS).replace("1e999", "1"))
        return value
    if isinstance(value, list):
        return value + [rng.choice([0, 1, 2**62])] if rng.random() < 0.5 else value[:-1]
    return value


def _change_header_structure(rng, header):
    """The header with a member written twice, renamed, dropped or added, or
    a tensor's dtype, shape or offsets changed; None where it is not JSON."""
    try:
        members = json.loads(header.decode("utf-8"), object_pairs_hook=_Pairs)
    except ValueError:
        return None
    tensors = [item for key, item in members if key != "__metadata__" and isinstance(item, _Pairs)] \
        if isinstance(members, _Pairs) else []
    if not tensors:
        return None
    tensor = rng.choice(tensors)
    choice = rng.randrange(5)
    if choice == 0:
        members.append(rng.choice(members))
    elif choice == 1:
        index = rng.randrange(len(members))
        members[index] = (rng.choice(["__metadata__", members[0][0], ""]), members[index][1])
    elif choice == 2:
        del tensor[rng.randrange(len(tensor))]
    elif choice == 3:
        tensor.append((rng.choice(["dtype", "extra"]), rng.choice(DTYPE_VALUES)))
    else:
        index = rng.randrange(len(tensor))
        tensor[index] = (tensor[index][0], _changed_field(rng, *tensor[index]))
    return _encode_pairs(members).encode("utf-8")


def _overwrite_a_byte(rng, data):
    position = rng.randrange(len(data))
    return data[:position] + bytes([rng.randrange(256)]) + data[position + 1:]


def _flip_a_bit(rng, data):
    position = rng.randrange(len(data))
    return data[:position] + bytes([data[position] ^ (1 << rng.randrange(8))]) + data[position + 1:]


def _splice_bytes(rng, data):
    position = rng.randrange(len(data) + 1)
    return data[:position] + rng.randbytes(rng.randint(1, 4)) + data[position + rng.randint(0, 4):]


def _truncate(rng, data):
    return data[:rng.randrange(len(data) + 1)]


def _append_bytes(rng, data):
    return data + rng.randbytes(rng.randint(1, 16))


def _change_the_header_length(rng, data):
    (header_size,) = struct.unpack("<Q", data[:8])
    size = rng.choice([header_size + rng.randint(-8, 8), rng.randrange(2**64), 100_000_001, 0])
    return struct.pack("<Q", size % 2**64) + data[8:]


def _change_a_number(rng, data):
    header, body = _header(data)
    numbers = list(re.finditer(rb"-?\d+(\.\d+)?", header))
    if not numbers:
        return data
    number = rng.choice(numbers)
    return _with_header(header[:number.start()] + rng.choice(INTERESTING_NUMBERS).encode() + header[number.end():],
                        body)


def _insert_whitespace(rng, data):
    header, body = _header(data)
    position = rng.randrange(len(header) + 1)
    return _with_header(header[:position] + rng.choice([b" ", b"\t", b"\n", b"\r\n"]) + header[position:], body)


def _change_the_structure(rng, data):
    header, body = _header(data)
    changed = _change_header_structure(rng, header)
    return data if changed is None else _with_header(changed, body)


def _change_a_data_byte(rng, data):
    header, body = _header(data)
    if not body:
        return data
    position = len(data) - len(body) + rng.randrange(len(body))
    return data[:position] + bytes([rng.choice([0, 1, 2, 255, rng.randrange(256)])]) + data[position + 1:]


# Most mutations go where the checks are: the header's length, numbers,
# whitespace and structure, and the data bytes.
MUTATORS = [_overwrite_a_byte, _flip_a_bit, _splice_bytes, _truncate, _append_bytes, _change_the_header_length,
            _change_a_number, _change_a_number, _insert_whitespace, _change_the_structure, _change_a_data_byte]
NEEDS_A_HEADER = {_overwrite_a_byte, _flip_a_bit, _change_the_header_length, _change_a_number, _insert_whitespace,
                  _change_the_structure, _change_a_data_byte}


def mutate(rng, data):
    """``data`` with one to three random changes."""
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        mutator = rng.choice(MUTATORS)
        if len(data) >= 8 or mutator not in NEEDS_A_HEADER:
            data = mutator(rng, data)
    return data


def test_mutated_files_read_as_the_reference_reads_them(reference):
    rng = random.Random(20240611)
    seeds = [path.read_bytes() for path in CORPUS]
    weights = [3 if path.stem.startswith("good_") else 1 for path in CORPUS]
    outcomes = {}
    for _ in range(MUTATIONS):
        outcome = compare(reference, mutate(rng, rng.choices(seeds, weights)[0]))
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    # The mutations reach both sides of every check, not just the refusals.
    assert outcomes.get("both read", 0) > MUTATIONS // 20 and outcomes.get("both refuse", 0) > MUTATIONS // 2
    assert outcomes.get("Ember is stricter", 0) > 0


def _file(header, data=b""):
    return _with_header(json.dumps(header, separators=(",", ":")).encode() if isinstance(header, dict)
                        else header.encode(), data)


@pytest.mark.parametrize("data, rule", [
    (_file('{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],'
           '"data_offsets":[0,1]}}', b"\x01"), "a duplicate key"),
    (_file('{"__metadata__":{"k":"1","k":"2"}}'), "a duplicate key"),
    (_file({"a": {"dtype": "U16", "shape": [1], "data_offsets": [0, 2]}}, b"\x01\x00"), "a dtype Ember lacks"),
    (_file({"a": {"dtype": "U8", "shape": [2**63, 0], "data_offsets": [0, 0]}}), "a shape Ember cannot hold"),
    (_file({"a": {"dtype": "U8", "shape": [2**40, 2**23, 0], "data_offsets": [0, 0]}}), "a shape Ember cannot hold"),
    (_file({"a": {"dtype": "U8", "shape": [1] * 17, "data_offsets": [0, 1]}}, b"\x01"), "a shape Ember cannot hold"),
    (_file({"m": {"dtype": "BOOL", "shape": [2], "data_offsets": [0, 2]}}, b"\x01\xff"),
     "a BOOL byte other than 0 or 1"),
])
def test_ember_is_stricter_only_where_a_file_would_be_read_wrong(reference, data, rule):
    assert load_with_reference(reference, data) is not None
    error = load_with_ember(data)
    assert isinstance(error, ValueError)
    assert why_ember_is_stricter(data, load_with_reference(reference, data), error) == rule


def test_files_ember_writes_read_the_same_in_the_reference_reader(reference):
    ember.manual_seed(0)
    state = {name: (ember.randn(3, 2) * 3).to(getattr(ember, name)) for name in DTYPE_NAMES.values()}
    state["nothing"] = ember.zeros(0, 2)
    state["ünïcode name"] = ember.tensor(1.5)
    buffer = io.BytesIO()
    ember.save(state, buffer, metadata={"note": "ü"})
    data = buffer.getvalue()
    assert load_with_reference(reference, data) == load_with_ember(data)
    assert set(load_with_ember(data)) == set(state)
