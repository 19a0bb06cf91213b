"""ember.load of the zip archives torch.save writes (Note [PyTorch
checkpoints without unpickling]): state dicts, optimizer states and training
checkpoints saved by PyTorch 2.13 load with their values, dtypes, shared
storages and structure; a file that names anything beyond data (a model's
class, os.system) or lies about its tensors is a ValueError naming what is
wrong, and nothing from it runs."""

import collections
import io
import os
import pickle
import re
import zipfile

import pytest

import ember

from helpers import assert_close


def _training_checkpoint(torch):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.Linear(4, 2))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model(torch.randn(5, 3)).sum().backward()
    optimizer.step()
    shared = torch.arange(12.0).reshape(3, 4)
    return {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": 7, "loss": 0.25,
            "history": [1.5, 1.25, (2, "x")], "views": [shared, shared[1], shared.t()], "flags": {1, 2},
            "device": torch.device("cpu"), "shape": torch.Size([2, 3]), "blob": b"\x00\xff", "step": 2 ** 40,
            "dtype": torch.bfloat16, "none": None,
            "typed": [torch.ones(2, dtype=dtype) for dtype in (torch.float16, torch.bfloat16, torch.float64,
                                                               torch.int64, torch.int32, torch.int16, torch.int8,
                                                               torch.uint8, torch.bool)],
            "empty": torch.zeros(0, 3), "parameters": list(model.parameters())[:1]}


def _compare(ours, theirs, torch):
    if isinstance(theirs, torch.Size):
        assert type(ours) is ember.Size and tuple(ours) == tuple(theirs)
    elif isinstance(theirs, torch.Tensor):
        assert isinstance(ours, ember.Tensor) and ours.requires_grad == theirs.requires_grad
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        # Compared as float64, which holds every dtype saved here exactly (NumPy has no bfloat16).
        assert_close(ours.detach().double(), theirs.detach().double(), rtol=0, atol=0)
    elif isinstance(theirs, dict):
        assert type(ours) is type(theirs) and list(ours) == list(theirs)
        for key in theirs:
            _compare(ours[key], theirs[key], torch)
    elif isinstance(theirs, (list, tuple)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _compare(a, b, torch)
    elif isinstance(theirs, torch.dtype):
        assert ours is getattr(ember, str(theirs).split(".")[-1])
    elif isinstance(theirs, torch.device):
        assert ours == ember.device(str(theirs))
    else:
        assert ours == theirs and type(ours) is type(theirs)


def test_a_training_checkpoint_loads_with_its_structure_and_values(tmp_path, torch):
    saved = _training_checkpoint(torch)
    path = tmp_path / "checkpoint.pt"
    torch.save(saved, path)
    loaded = ember.load(path)
    _compare(loaded, saved, torch)
    assert loaded["model"]._metadata == saved["model"]._metadata
    views = loaded["views"]
    assert views[1].data_ptr() == views[0].data_ptr() + 16 and views[2].stride() == (1, 4)
    views[0][1, 0] = 100.0
    assert views[1][0].item() == 100.0, "tensors of one storage share it, as in PyTorch"
    assert isinstance(loaded["parameters"][0], ember.nn.Parameter)
    with open(path, "rb") as stream:
        _compare(ember.load(io.BytesIO(stream.read())), saved, torch)


def test_pytorch_weights_train_on_in_ember(tmp_path, torch):
    saved = _training_checkpoint(torch)
    path = tmp_path / "checkpoint.pt"
    torch.save(saved, path)
    checkpoint = ember.load(path, map_location="cpu", weights_only=True)
    model = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.BatchNorm1d(4), ember.nn.Linear(4, 2))
    model.load_state_dict(checkpoint["model"])
    optimizer = ember.optim.AdamW(model.parameters(), lr=1e-3)
    optimizer.load_state_dict(checkpoint["optimizer"])
    assert optimizer.state_dict()["state"][0]["step"].item() == 1
    x = [[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]]
    model.eval()
    torch_model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.Linear(4, 2))
    torch_model.load_state_dict(saved["model"])
    torch_model.eval()
    assert_close(model(ember.tensor(x)).detach(), torch_model(torch.tensor(x)).detach(), rtol=1e-6)
    moved = ember.load(path, map_location=lambda tensor, location: tensor.double())
    assert moved["model"]["0.weight"].dtype == ember.float64


def _archive(pickled, storages=None, byteorder=b"little"):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("archive/data.pkl", pickled)
        archive.writestr("archive/byteorder", byteorder)
        for key, data in (storages or {}).items():
            archive.writestr(f"archive/data/{key}", data)
    buffer.seek(0)
    return buffer


class _RunsAProgram:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_a_file_that_names_a_callable_is_refused_before_anything_runs(tmp_path):
    marker = tmp_path / "ran"
    hostile = _archive(pickle.dumps({"weights": _RunsAProgram(marker)}, protocol=2))
    with pytest.raises(ValueError, match=re.escape("PyTorch checkpoint: it holds a posix.system object, which "
                                                   "Ember does not build")):
        ember.load(hostile)
    assert not marker.exists()


def test_a_whole_module_names_its_class(tmp_path, torch):
    path = tmp_path / "model.pt"
    torch.save(torch.nn.Linear(2, 2), path)
    with pytest.raises(ValueError, match=re.escape(f"load: '{path}': PyTorch checkpoint: it holds a "
                                                   "torch.nn.modules.linear.Linear object") +
                       ".*as torch.load\\(weights_only=True\\) reads it. Save the model's state_dict\\(\\)"):
        ember.load(path)


def _tensor_pickle(size, stride, offset, numel):
    """A pickle of one tensor over storage "0" with the given view, as torch.save writes it."""
    body = (b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n((X\x07\x00\x00\x00storagectorch\nFloatStorage\n"
            b"X\x01\x00\x00\x000X\x03\x00\x00\x00cpu" + pickle.dumps(numel, protocol=2)[2:-1] + b"tQ" +
            pickle.dumps(offset, protocol=2)[2:-1] + pickle.dumps(tuple(size), protocol=2)[2:-1] +
            pickle.dumps(tuple(stride), protocol=2)[2:-1] + b"\x89ccollections\nOrderedDict\n)RtR.")
    return body


@pytest.mark.parametrize("size,stride,offset,numel,stored,named", [
    ((2, 2), (2, 1), 0, 4, 16, None),
    ((2, 3), (3, 1), 0, 4, 16, "reaches past its storage 'archive/data/0' of 4 elements"),
    ((2,), (1,), 3, 4, 16, "reaches past its storage"),
    ((2,), (-1,), 1, 4, 16, "has a negative entry"),
    ((2, 2), (2, 1), 0, 4, 12, "holds 12 bytes, where its reference says 4 elements of 4 bytes"),
])
def test_tensor_views_are_checked_against_their_storage(size, stride, offset, numel, stored, named):
    source = _archive(_tensor_pickle(size, stride, offset, numel), {"0": bytes(range(stored))})
    if named is None:
        assert ember.load(source).shape == size
        return
    with pytest.raises(ValueError, match=re.escape(named)):
        ember.load(source)


@pytest.mark.parametrize("pickled,storages,byteorder,named", [
    (b"\x80\x02}q\x00", {}, b"little", "data.pkl ends inside an opcode's argument"),
    (b"\x80\x02ccollections\nOrderedDict\n", {}, b"little", "data.pkl ends inside an opcode's argument"),
    (b"\x80\x02}h\x05.", {}, b"little", "reads memo entry 5, which it never wrote"),
    (b"\x80\x02I1\n.", {}, b"little", "opcode 0x49"),
    (b"\x80\x02(K\x01K\x02.", {}, b"little", "stops with other than one value"),
    (b"\x80\x02]K\x01K\x02s.", {}, b"little", "sets items on something that is not a dict"),
    (b"\x80\x02]}a1.", {}, b"little", "closes a mark it never opened"),
    (b"\x80\x02(X\x07\x00\x00\x00storagectorch\nFloatStorage\nX\x01\x00\x00\x009X\x03\x00\x00\x00cpuK\x01tQ.", {},
     b"little", None),
    (pickle.dumps({"x": 1}, protocol=2), {}, b"big", "stored big-endian"),
])
def test_malformed_pickles_are_value_errors_naming_the_fault(pickled, storages, byteorder, named):
    source = _archive(pickled, storages, byteorder)
    if named is None:
        # A storage reference alone is not a tensor: only a rebuilder makes one.
        with pytest.raises(ValueError, match="stops with other than one value|data.pkl"):
            value = ember.load(source)
            assert not isinstance(value, ember.Tensor)
            raise ValueError("data.pkl gave a storage")
        return
    with pytest.raises(ValueError, match=re.escape(named)):
        ember.load(source)


def test_truncated_or_foreign_archives_are_refused(tmp_path, torch):
    path = tmp_path / "checkpoint.pt"
    torch.save({"w": torch.ones(3)}, path)
    data = path.read_bytes()
    with pytest.raises(ValueError, match="not a readable zip archive"):
        ember.load(io.BytesIO(data[:len(data) // 2]))
    other = io.BytesIO()
    with zipfile.ZipFile(other, "w") as archive:
        archive.writestr("readme.txt", "not a checkpoint")
    other.seek(0)
    with pytest.raises(ValueError, match="holds 0 data.pkl entries"):
        ember.load(other)


def test_an_ordered_dict_keeps_its_type_and_only_plain_state():
    state = collections.OrderedDict([("a", 1)])
    state._metadata = {"": {"version": 1}}
    loaded = ember.load(_archive(pickle.dumps(state, protocol=2)))
    assert loaded == state and loaded._metadata == {"": {"version": 1}}


def test_an_entry_that_would_inflate_far_is_refused_before_reading():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("archive/data.pkl", _tensor_pickle((4 << 20,), (1,), 0, 4 << 20))
        archive.writestr("archive/data/0", bytes(16 << 20))
    buffer.seek(0)
    with pytest.raises(ValueError, match=re.escape("storage 'archive/data/0' would inflate from")):
        ember.load(buffer)


def _valid_archive_parts():
    """The data.pkl and storages of a small checkpoint, written as torch.save writes them, without PyTorch."""
    state = collections.OrderedDict([("w", None), ("step", 3), ("names", ["a", (1, 2.5)])])
    pickled = pickle.dumps(state, protocol=2)
    tensor = _tensor_pickle((2, 2), (2, 1), 0, 4)
    return pickled, tensor


def test_mutated_pickles_are_value_errors_or_data(tmp_path):
    """Two valid pickles with one byte changed and the rest cut at a drawn point (300 draws, the same in every
    run): the reader gives a value or a ValueError, never another exception, a crash or a hang."""
    pytest.importorskip("hypothesis", reason="the mutation test needs hypothesis")
    from hypothesis import given, settings, strategies as st

    plain, tensor = _valid_archive_parts()

    @settings(max_examples=300, deadline=None, derandomize=True, database=None)
    @given(st.sampled_from([plain, tensor]), st.data())
    def mutated(pickled, data):
        position = data.draw(st.integers(0, len(pickled) - 1))
        value = data.draw(st.integers(0, 255))
        cut = data.draw(st.integers(position + 1, len(pickled)))
        body = pickled[:position] + bytes([value]) + pickled[position + 1:cut]
        try:
            ember.load(_archive(body, {"0": bytes(16)}))
        except ValueError:
            pass

    mutated()
