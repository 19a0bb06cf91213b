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
    with pytest.raises(TypeError, match="expected a dict"):
        ember.save([ember.ones(1)], io.BytesIO())
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
    with pytest.raises(ValueError, match="load: the saved structure"):
        ember.load(io.BytesIO(struct.pack("<Q", len(header)) + header))
