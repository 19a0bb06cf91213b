"""ember.save / ember.load: safetensors files, interoperable with the
`safetensors` package, and never executing anything on load."""

import io
import json
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
    with pytest.raises(TypeError, match="dict of tensors"):
        ember.save([ember.ones(1)], io.BytesIO())
    with pytest.raises(TypeError, match="not a Tensor"):
        ember.save({"lr": 0.1}, io.BytesIO())
