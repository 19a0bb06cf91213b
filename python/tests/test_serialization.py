"""ember.save / ember.load: safetensors files, interoperable with the
`safetensors` package, and never executing anything on load."""

import io
import json
import os
import re
import struct

import pytest

import ember
from helpers import assert_close

ALL_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def state_dict():
    ember.manual_seed(0)
    state = {f"t_{name}": (ember.randn(2, 3) * 10).to(getattr(ember, name)) for name in ALL_DTYPES}
    state["scalar"] = ember.tensor(3.5)
    state["empty"] = ember.zeros(0, 4)
    state["strided"] = ember.arange(12.0).reshape(3, 4).T
    return state


def test_round_trip_through_a_path(tmp_path):
    original = state_dict()
    path = tmp_path / "weights.safetensors"
    ember.save(original, path, metadata={"format": "pt"})
    loaded = ember.load(path)
    assert list(loaded) == list(original)
    for name, tensor in original.items():
        assert loaded[name].dtype is tensor.dtype and loaded[name].shape == tensor.shape
        assert loaded[name].tolist() == tensor.tolist()


def test_round_trip_through_a_file_object():
    buffer = io.BytesIO()
    ember.save({"w": ember.ones(2)}, buffer)
    buffer.seek(0)
    assert ember.load(buffer, map_location="cpu")["w"].tolist() == [1.0, 1.0]


def test_layout_follows_the_format():
    buffer = io.BytesIO()
    ember.save({"a": ember.tensor([1, 2], dtype=ember.int16), "b": ember.tensor([True])}, buffer)
    data = buffer.getvalue()
    (header_size,) = struct.unpack("<Q", data[:8])
    assert header_size % 8 == 0
    header = json.loads(data[8:8 + header_size])
    assert header["a"] == {"dtype": "I16", "shape": [2], "data_offsets": [0, 4]}
    assert header["b"] == {"dtype": "BOOL", "shape": [1], "data_offsets": [4, 5]}
    assert data[8 + header_size:] == struct.pack("<hh?", 1, 2, True)


def test_files_interoperate_with_the_safetensors_package(tmp_path, torch):
    safetensors_torch = pytest.importorskip("safetensors.torch")
    original = state_dict()
    path = tmp_path / "ember.safetensors"
    ember.save(original, path)
    by_them = safetensors_torch.load_file(str(path))
    for name, tensor in original.items():
        assert_close(tensor.float(), by_them[name].float())
    theirs = {"weight": torch.randn(3, 2), "ids": torch.arange(5), "half": torch.ones(2, dtype=torch.bfloat16)}
    their_path = tmp_path / "torch.safetensors"
    safetensors_torch.save_file(theirs, str(their_path), metadata={"framework": "torch"})
    loaded = ember.load(their_path)
    for name, tensor in theirs.items():
        assert_close(loaded[name].float(), tensor.float())


@pytest.mark.parametrize("corrupt", [
    b"",
    struct.pack("<Q", 1 << 40) + b"{}",
    struct.pack("<Q", 2) + b"[]",
    struct.pack("<Q", 5) + b"{nope",
    struct.pack("<Q", 47) + b'{"x":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}',
    struct.pack("<Q", 47) + b'{"x":{"dtype":"F32","shape":[3],"data_offsets":[0,16]}}' + bytes(16),
    struct.pack("<Q", 47) + b'{"x":{"dtype":"X32","shape":[4],"data_offsets":[0,16]}}' + bytes(16),
    struct.pack("<Q", 48) + b'{"x":{"dtype":"F32","shape":[-4],"data_offsets":[0,16]}}' + bytes(16),
])
def test_corrupt_files_are_clear_errors(corrupt):
    with pytest.raises(ValueError, match="load:"):
        ember.load(io.BytesIO(corrupt))


def test_save_refuses_what_the_format_cannot_hold():
    with pytest.raises(TypeError, match="'state.0.hook' is a set"):
        ember.save({"state": [{"hook": {1, 2}}]}, io.BytesIO())
    with pytest.raises(TypeError, match="'groups' has a key of type tuple"):
        ember.save({"groups": {(1, 2): 3}}, io.BytesIO())
    with pytest.raises(ValueError, match="both stored as the tensor 'a.b'"):
        ember.save({"a.b": ember.ones(1), "a": {"b": ember.zeros(1)}}, io.BytesIO())
    with pytest.raises(ValueError, match="reserved"):
        ember.save({"w": ember.ones(1)}, io.BytesIO(), metadata={"ember.structure": "[]"})


def test_nested_structures_round_trip():
    original = {
        "state": {0: {"step": ember.tensor(3.0), "exp_avg": ember.arange(4.0).reshape(2, 2)}, 7: {}},
        "param_groups": [{"lr": 1e-3, "betas": (0.9, 0.999), "amsgrad": False, "foreach": None, "params": [0, 7],
                          "name": "body"}],
        "scale": {1.5: float("inf"), True: float("-inf"), None: "none", "nan": float("nan")},
        "ids": ember.tensor([1, 2], dtype=ember.int32),
    }
    buffer = io.BytesIO()
    ember.save(original, buffer)
    loaded = ember.load(io.BytesIO(buffer.getvalue()))
    assert list(loaded) == list(original) and list(loaded["state"]) == [0, 7]
    assert loaded["state"][0]["step"].item() == 3.0 and loaded["state"][0]["exp_avg"].tolist() == [[0, 1], [2, 3]]
    assert loaded["state"][7] == {} and loaded["param_groups"] == original["param_groups"]
    assert type(loaded["param_groups"][0]["betas"]) is tuple
    scale = loaded["scale"]
    assert list(scale) == [1.5, True, None, "nan"] and scale[1.5] == float("inf") and scale[True] == float("-inf")
    assert scale[None] == "none" and scale["nan"] != scale["nan"]
    assert loaded["ids"].dtype is ember.int32 and loaded["ids"].tolist() == [1, 2]


def round_trip(value):
    buffer = io.BytesIO()
    ember.save(value, buffer)
    return ember.load(io.BytesIO(buffer.getvalue()))


@pytest.mark.parametrize("value", [
    ember.arange(6.0).reshape(2, 3), [ember.ones(2), 3, "x", None], (1, (2.5, [True])), 7, -0.5, "text", None, [],
    {"epoch": 3, "losses": [0.5, 0.25], "best": {"step": 10, "weights": ember.zeros(2, dtype=ember.int16)}},
], ids=lambda value: type(value).__name__)
def test_any_nesting_of_values_round_trips(value):
    assert plain(round_trip(value)) == plain(value)


def plain(value):
    """Nested Python values with tensors and arrays as (type, dtype, shape, values), for comparison."""
    import numpy

    if isinstance(value, ember.Tensor):
        return "tensor", str(value.dtype), tuple(value.shape), value.tolist()
    if isinstance(value, numpy.ndarray):
        return "ndarray", value.dtype.str, value.shape, value.tolist()
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value).__name__, [plain(item) for item in value]
    return type(value).__name__, value


def test_numpy_arrays_round_trip_with_their_dtype_and_shape(np):
    arrays = {
        "float32": np.arange(6, dtype=np.float32).reshape(2, 3), "int64": np.array([-1, 2**40]),
        "bool": np.array([True, False]), "float16": np.array([0.5], np.float16), "scalar": np.array(2.5),
        "empty": np.zeros((0, 3)), "strided": np.arange(12.0).reshape(3, 4)[:, ::2],
        "uint32": np.random.RandomState(0).get_state()[1], "complex": np.array([1 + 2j, -3j]),
        "text": np.array(["ab", "c"]), "bytes": np.array([b"x", b"yz"]), "big_endian": np.arange(3, dtype=">i4"),
        "datetime": np.array(["2026-12-01"], dtype="datetime64[D]"),
    }
    checkpoint = {"arrays": arrays, "rng": np.random.RandomState(1).get_state(), "numbers": [np.float32(1.5),
                                                                                              np.int64(4)]}
    loaded = round_trip(checkpoint)
    assert plain(loaded["arrays"]) == plain(arrays)
    assert all(loaded["arrays"][name].flags.writeable for name in arrays)
    restored = np.random.RandomState()
    restored.set_state(loaded["rng"])
    assert restored.rand() == np.random.RandomState(1).rand()
    assert loaded["numbers"] == [1.5, 4] and type(loaded["numbers"][1]) is int


def test_numpy_arrays_of_ember_dtypes_are_typed_tensors_to_other_readers(tmp_path, np):
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    path = tmp_path / "arrays.safetensors"
    ember.save({"image": np.ones((2, 2), np.float32), "state": np.arange(3, dtype=np.uint32)}, path)
    tensors = safetensors_numpy.load_file(str(path))
    assert tensors["image"].dtype == np.float32 and tensors["image"].shape == (2, 2)
    assert tensors["state"].dtype == np.uint8 and tensors["state"].shape == (12,)  # its bytes


def test_map_location_takes_what_torch_load_takes():
    stream = io.BytesIO()
    ember.save({"w": ember.ones(2)}, stream)
    seen = []

    def keep(tensor, location):
        seen.append(location)
        return tensor

    for map_location in (keep, {"cuda:0": "cpu"}, {"cpu": "cpu"}, "cpu", ember.device("cpu")):
        assert ember.load(io.BytesIO(stream.getvalue()), map_location=map_location)["w"].tolist() == [1.0, 1.0]
    assert seen == ["cpu"]
    with pytest.raises(TypeError, match="map_location returned a str, not a tensor"):
        ember.load(io.BytesIO(stream.getvalue()), map_location=lambda tensor, location: "cpu")


def test_weights_only_false_loads_the_same_data():
    # Programs written for PyTorch 2.6+ pass weights_only=False for their own checkpoints.
    stream = io.BytesIO()
    ember.save({"w": ember.ones(2), "epoch": 3}, stream)
    for weights_only in (True, False):
        loaded = ember.load(io.BytesIO(stream.getvalue()), weights_only=weights_only)
        assert loaded["epoch"] == 3 and loaded["w"].tolist() == [1.0, 1.0]


def test_modules_optimizers_and_object_arrays_are_refused(np):
    model = ember.nn.Linear(2, 1)
    with pytest.raises(TypeError, match=r"save: the object to save is a Linear, which cannot be saved whole .*"
                                        r"save its state_dict\(\) instead"):
        ember.save(model, io.BytesIO())
    with pytest.raises(TypeError, match=r"'optimizer' is a SGD, which cannot be saved whole"):
        ember.save({"optimizer": ember.optim.SGD(model.parameters(), lr=0.1)}, io.BytesIO())
    with pytest.raises(TypeError, match="'a.0' is a NumPy array of dtype object"):
        ember.save({"a": [np.array([object()])]}, io.BytesIO())
    with pytest.raises(TypeError, match="the object to save is a set"):
        ember.save({1, 2}, io.BytesIO())


@pytest.mark.parametrize("entry,message", [
    ('["value","|O",[8]]', "dtype \"|O\", which is not a dtype of plain data"),
    ('["value","i4,i4",[1]]', "which is not a dtype of plain data"),
    ('["value","V8",[1]]', "which is not a dtype of plain data"),
    ('["value","nonsense",[8]]', "which is not a dtype of plain data"),
    ('["value",",",[8]]', "which is not a dtype of plain data"),
    ('["value","<U0",[8]]', "which is not a dtype of plain data"),
    ('["value","|u1",[3]]', "holds 8 bytes"),
    ('["value","|u1",[-8]]', "shape [-8]"),
    ('["other","|u1",[8]]', "refers to the array 'other'"),
])
def test_corrupt_array_entries_are_clear_errors_and_never_objects(entry, message):
    structure = json.dumps('{"ndarray":' + entry + '}')
    header = '{"__metadata__":{"ember.structure":' + structure + '},' \
             '"value":{"dtype":"U8","shape":[8],"data_offsets":[0,8]}}'
    with pytest.raises(ValueError, match=re.escape(message)):
        ember.load(io.BytesIO(safetensors_file(header, bytes(8))))


def test_nested_files_are_safetensors_with_flattened_names(tmp_path, torch):
    safetensors_torch = pytest.importorskip("safetensors.torch")
    from safetensors import safe_open
    path = tmp_path / "checkpoint.safetensors"
    ember.save({"state": {0: {"exp_avg": ember.ones(2)}}, "layers": [ember.zeros(1), {"w": ember.ones(3)}],
                "epoch": 4}, path, metadata={"note": "kept"})
    assert sorted(safetensors_torch.load_file(str(path))) == ["layers.0", "layers.1.w", "state.0.exp_avg"]
    with safe_open(str(path), framework="pt") as opened:
        metadata = opened.metadata()
    assert metadata["note"] == "kept" and "ember.structure" in metadata
    assert ember.load(path)["epoch"] == 4


def _training_run(make_optimizer, steps, checkpoint_at=None):
    """Trains a small regression model; with ``checkpoint_at`` the model and
    optimizer go through save/load into fresh objects at that step."""
    ember.manual_seed(0)
    inputs, targets = ember.randn(16, 4), ember.randn(16, 1)
    model = ember.nn.Sequential(ember.nn.Linear(4, 8), ember.nn.Tanh(), ember.nn.Linear(8, 1))
    optimizer = make_optimizer(model.parameters())
    for step in range(steps):
        if step == checkpoint_at:
            buffer = io.BytesIO()
            ember.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step}, buffer)
            checkpoint = ember.load(io.BytesIO(buffer.getvalue()))
            assert checkpoint["step"] == step
            model = ember.nn.Sequential(ember.nn.Linear(4, 8), ember.nn.Tanh(), ember.nn.Linear(8, 1))
            model.load_state_dict(checkpoint["model"])
            optimizer = make_optimizer(model.parameters())
            optimizer.load_state_dict(checkpoint["optimizer"])
        optimizer.zero_grad()
        ember.nn.functional.mse_loss(model(inputs), targets).backward()
        optimizer.step()
    return [p.tolist() for p in model.parameters()]


@pytest.mark.parametrize("make_optimizer", [
    lambda params: ember.optim.Adam(params, lr=0.05, amsgrad=True),
    lambda params: ember.optim.AdamW(params, lr=0.05),
    lambda params: ember.optim.SGD(params, lr=0.1, momentum=0.9, nesterov=True),
], ids=["Adam", "AdamW", "SGD"])
def test_optimizer_state_round_trip_continues_training_exactly(make_optimizer):
    uninterrupted = _training_run(make_optimizer, 10)
    assert _training_run(make_optimizer, 10, checkpoint_at=4) == uninterrupted
    assert _training_run(make_optimizer, 4) != uninterrupted  # the last steps do change the weights


@pytest.mark.parametrize("structure", [
    '{"tensor":"missing"}',
    '{"set":[1,2]}',
    '{"dict":[[{"tuple":[1]},2]]}',
    '{"dict":[[1]]}',
    '{"float":"1e999"}',
    '[' * 100000 + ']' * 100000,
    'not json',
])
def test_corrupt_structures_are_clear_errors(structure):
    header = json.dumps({"__metadata__": {"ember.structure": structure}}).encode()
    with pytest.raises(ValueError, match=re.escape("load: the BytesIO object: the saved structure "
                                                   "(__metadata__['ember.structure'])")):
        ember.load(io.BytesIO(struct.pack("<Q", len(header)) + header))


def safetensors_file(header, data=b""):
    encoded = header.encode()
    return struct.pack("<Q", len(encoded)) + encoded + data


def test_a_shape_whose_byte_size_wraps_round_is_refused():
    # [2**62, 4] float32 is 2**64 bytes, which 64-bit arithmetic wraps to 0.
    data = safetensors_file('{"x":{"dtype":"F32","shape":[4611686018427387904,4],"data_offsets":[0,0]}}')
    with pytest.raises(ValueError, match=r"tensor 'x' .*F32 shape \[4611686018427387904, 4\] overflows 64 bits"):
        ember.load(io.BytesIO(data))


def test_a_header_declaring_more_than_the_file_holds_allocates_nothing():
    data = safetensors_file('{"x":{"dtype":"F32","shape":[1073741824],"data_offsets":[0,0]}}')  # 4 GiB
    ember._C.reset_peak_memory_stats("cpu")
    allocated = ember._C.memory_stats("cpu")["allocated_bytes"]
    with pytest.raises(ValueError, match="tensor 'x' .*spans 0 bytes, but its F32 shape \\[1073741824\\] needs "
                                         "4294967296"):
        ember.load(io.BytesIO(data))
    assert ember._C.memory_stats("cpu")["peak_allocated_bytes"] - allocated < 1 << 20


@pytest.mark.parametrize("header, data, named", [
    ('{"x":{"dtype":["F32"],"shape":[1],"data_offsets":[0,4]}}', bytes(4), "tensor 'x' has the dtype ['F32']"),
    ('{"x":{"dtype":"U8","shape":[1],"data_offsets":[0,true]}}', bytes(1), "tensor 'x' has the data_offsets"),
    ('{"x":{"dtype":"U8","shape":[1]}}', b"", "tensor 'x' lacks the field 'data_offsets'"),
    ('{"x":7}', b"", "tensor 'x' must be an object"),
    ('{"__metadata__":{"epoch":3}}', b"", "'__metadata__' must be an object mapping strings to strings"),
    ('{"x":' + "[" * 100000 + "]" * 100000 + "}", b"", "nests deeper than 127 levels"),
    ('{"x":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"dtype":"U8"}}', b"\x00", "the key 'dtype' twice"),
    ('{"x":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}', b"\x00\x00", "the header's tensors cover 1 bytes"),
    ('{"m":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}}', b"\x01\x07", "its byte 1 is 0x07"),
])
def test_odd_headers_are_value_errors_naming_the_field(header, data, named):
    with pytest.raises(ValueError, match=re.escape(named)):
        ember.load(io.BytesIO(safetensors_file(header, data)))


def test_a_legacy_pytorch_pickle_is_refused_as_one(tmp_path, torch):
    path = tmp_path / "model.pt"
    torch.save({"w": torch.ones(2)}, path, _use_new_zipfile_serialization=False)
    with pytest.raises(ValueError, match=re.escape(f"load: '{path}': this is a pickle, the legacy format of "
                                                   "torch.save, which Ember does not read")):
        ember.load(path)


class ChangingFile(io.FileIO):
    """A file that another process truncates or extends as soon as the
    reader starts on its data (the third read: length, header, data)."""

    def __init__(self, path, change):
        super().__init__(path, "rb")
        self._path, self._change, self._reads = path, change, 0

    def read(self, size=-1):
        self._reads += 1
        if self._reads == 3:
            self._change(self._path)
        return super().read(size)


@pytest.mark.parametrize("change, message", [
    (lambda path: os.truncate(path, os.path.getsize(path) - 10), "ends after 3990 of the 4000 bytes of its data"),
    (lambda path: open(path, "ab").write(b"more"), "grew while being read"),
], ids=["shrinks", "grows"])
def test_a_file_that_changes_size_while_it_is_read_is_refused(tmp_path, change, message):
    path = tmp_path / "w.safetensors"
    ember.save({"w": ember.arange(1000.0)}, path)
    with ChangingFile(path, change) as stream, pytest.raises(ValueError, match=re.escape(message)):
        ember.load(stream)


def test_a_stream_that_cannot_seek_is_read_no_further_than_its_end():
    class Pipe(io.RawIOBase):
        def __init__(self, data):
            self._data = io.BytesIO(data)

        def readable(self):
            return True

        def readinto(self, buffer):
            return self._data.readinto(buffer)

    declared = safetensors_file('{"x":{"dtype":"U8","shape":[1000],"data_offsets":[0,1000]}}')
    with pytest.raises(ValueError, match="ends after 10 of the 1000 bytes of its data"):
        ember.load(io.BufferedReader(Pipe(declared + bytes(10))))
    assert ember.load(io.BufferedReader(Pipe(declared + bytes(1000))))["x"].shape == (1000,)
    with pytest.raises(ValueError, match="goes on past the 1000 data bytes"):
        ember.load(io.BufferedReader(Pipe(declared + bytes(1001))))


def test_a_tensor_named_like_the_metadata_is_refused_on_save():
    with pytest.raises(ValueError, match="a tensor cannot be named '__metadata__'"):
        ember.save({"__metadata__": ember.ones(1)}, io.BytesIO())
    with pytest.raises(ValueError, match="a tensor cannot be stored as '__metadata__'"):
        ember.save({"__metadata__": ember.ones(1), "epoch": 3}, io.BytesIO())
