"""ember.export: export, run, save/load, dynamic dims and the errors of each (docs/export.md)."""

import os
import shutil
import struct
import subprocess

import pytest

import ember as torch
from ember import export as ex
from ember import nn
import ember.nn.functional as F

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def make_cnn():
    # samples/train_digits.py's make_cnn: 8x8 digits, two conv blocks, a linear classifier.
    return nn.Sequential(
        nn.Conv2d(1, 16, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 2 * 2, 10))


class Block(nn.Module):
    """A pre-norm transformer block: self-attention by matmul and softmax, a GELU MLP."""

    def __init__(self, d=16, heads=2):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).chunk(3, dim=-1)
        q, k, v = (z.reshape(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        att = torch.softmax(q @ k.transpose(-2, -1) * (d // self.heads) ** -0.5, dim=-1)
        x = x + self.proj((att @ v).transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


def assert_close(a, b):
    assert a.shape == b.shape
    assert float((a - b).abs().max()) < 1e-5


@pytest.fixture(scope="module")
def cnn_program():
    torch.manual_seed(0)
    model = make_cnn()
    batch = ex.Dim("batch", min=1, max=1024)
    return model, ex.export(model, (torch.randn(4, 1, 8, 8),), dynamic_shapes={"input": {0: batch}})


@pytest.fixture(scope="module")
def block_program():
    torch.manual_seed(1)
    model = Block()
    dims = ({0: ex.Dim("batch", min=1, max=64), 1: ex.Dim("seq", min=2, max=128)},)
    return model, ex.export(model, (torch.randn(2, 5, 16),), dynamic_shapes=dims)


def test_cnn_matches_eager_at_every_batch(cnn_program):
    model, ep = cnn_program
    with torch.no_grad():
        for n in (4, 1, 7):
            x = torch.randn(n, 1, 8, 8)
            assert_close(ep(x), model(x))
            assert_close(ep.module()(x), model(x))
    assert sorted(ep.state_dict()) == sorted(model.state_dict())
    assert ep.range_constraints == {"batch": (1, 1024)}
    assert ep.input_specs[0]["shape"] == ["batch", "1", "8", "8"]
    assert ep.output_specs[0]["shape"] == ["batch", "10"]
    assert ep.output_specs[0]["dtype"] == torch.float32


def test_block_matches_eager_with_two_dynamic_dims(block_program):
    model, ep = block_program
    with torch.no_grad():
        for b, t in ((2, 5), (1, 3), (3, 11)):
            x = torch.randn(b, t, 16)
            assert_close(ep(x), model(x))
    code = ep.graph_code
    assert "bmm(" in code and "batch*seq" in code and "erf(" in code
    assert "float32[batch, seq, 16]" in str(ep)


def test_save_load_round_trip(tmp_path, cnn_program, block_program):
    for model, ep, x in ((*cnn_program, torch.randn(3, 1, 8, 8)), (*block_program, torch.randn(2, 7, 16))):
        path = tmp_path / "program.ember"
        ex.save(ep, path)
        loaded = ex.load(path)
        with torch.no_grad():
            assert_close(loaded(x), model(x))
        assert loaded.graph_code == ep.graph_code
        assert not [p for p in os.listdir(tmp_path) if ".tmp" in p]


def test_weights_are_a_safetensors_file(tmp_path, cnn_program):
    model, ep = cnn_program
    path = tmp_path / "cnn.ember"
    ex.save(ep, path)
    from ember import _safetensors
    with open(path, "rb") as f:
        weights, metadata = _safetensors.read(f, str(path))[:2]
    assert metadata["format"] == "ember.export" and metadata["version"] == "1"
    for name, t in model.state_dict().items():
        assert torch.equal(weights[name], t)


def test_out_of_range_and_mismatched_inputs(cnn_program):
    _, ep = cnn_program
    with pytest.raises(RuntimeError, match=r"input 'input' dim 0 \(batch\) is 2000, outside the constraint 1 <= batch <= 1024"):
        ep(torch.randn(2000, 1, 8, 8))
    with pytest.raises(RuntimeError, match=r"input 'input' has shape \[4, 1, 9, 8\].*dim 2 must be 8"):
        ep(torch.randn(4, 1, 9, 8))
    with pytest.raises(RuntimeError, match="input 'input' has dtype float64, the program was exported for float32"):
        ep(torch.randn(4, 1, 8, 8, dtype=torch.float64))
    with pytest.raises(RuntimeError, match="has 3 dims"):
        ep(torch.randn(4, 8, 8))
    with pytest.raises(TypeError, match=r"expected 1 inputs \(input\), got 2"):
        ep(torch.randn(4, 1, 8, 8), torch.randn(4, 1, 8, 8))
    with pytest.raises(TypeError, match="missing input 'input'"):
        ep()


def test_one_dim_shared_by_two_inputs_must_agree():
    batch = ex.Dim("batch", min=2, max=16)
    ep = ex.export(lambda x, y: x * 2 + y, (torch.randn(3, 4), torch.randn(3, 4)),
                   dynamic_shapes={"x": {0: batch}, "y": {0: batch}})
    assert_close(ep(torch.ones(5, 4), torch.ones(5, 4)), torch.full((5, 4), 3.0))
    with pytest.raises(RuntimeError, match=r"input 'y' dim 0 \(batch\) is 6, but input 'x' dim 0 gives batch = 5"):
        ep(torch.ones(5, 4), torch.ones(6, 4))


def test_embedding_and_attention_modules_export_save_and_load(tmp_path):
    torch.manual_seed(2)

    class Tagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.words = nn.Embedding(50, 16)
            self.layer = nn.TransformerEncoderLayer(d_model=16, nhead=4, dim_feedforward=32, batch_first=True)

        def forward(self, tokens):
            return self.layer(self.words(tokens))

    model = Tagger().eval()
    dims = ({0: ex.Dim("batch", min=1, max=8), 1: ex.Dim("seq", min=2, max=32)},)
    ep = ex.export(model, (torch.randint(0, 50, (2, 5)),), dynamic_shapes=dims)
    assert "index_select(" in ep.graph_code and "scaled_dot_product_attention(" in ep.graph_code
    path = tmp_path / "tagger.ember"
    ex.save(ep, path)
    loaded = ex.load(path)
    with torch.no_grad():
        for b, t in ((2, 5), (3, 9)):
            tokens = torch.randint(0, 50, (b, t))
            assert_close(loaded(tokens), model(tokens))
    with pytest.raises(IndexError, match="index_select"):
        loaded(torch.tensor([[1, 2, 50]]))


def test_an_lstm_exports_as_its_step_by_step_recurrence():
    # The graph check takes no lstm_layer: export decomposes the layer, which
    # ember.compile keeps as the backend's fused kernel.
    torch.manual_seed(3)
    lstm = nn.LSTM(4, 6, num_layers=2).eval()
    x = torch.randn(5, 2, 4)
    ep = ex.export(lambda x: lstm(x)[0], (x,))
    assert "lstm_layer" not in ep.graph_code and "sigmoid(" in ep.graph_code
    with torch.no_grad():
        assert_close(ep(x), lstm(x)[0])


def test_static_export_and_kwargs():
    ep = ex.export(lambda x, *, scale: x * scale, (torch.randn(2, 3),), {"scale": torch.tensor(2.0)})
    x = torch.randn(2, 3)
    assert_close(ep(x, scale=torch.tensor(3.0)), x * 3)
    with pytest.raises(RuntimeError, match="dim 0 must be 2"):
        ep(torch.randn(3, 3), scale=torch.tensor(1.0))


def test_specialising_a_dynamic_dim_is_a_constraint_violation():
    batch = ex.Dim("batch", min=2, max=64)

    def uses_size_as_number(x):
        return x * x.shape[0]

    with pytest.raises(RuntimeError, match="constraint violation.*dynamic dim 'batch'"):
        ex.export(uses_size_as_number, (torch.randn(4, 3),), dynamic_shapes=({0: batch},))

    def branches_on_size(x):
        return x.sum(1) if x.shape[0] == 4 else x.mean(1)

    with pytest.raises(RuntimeError, match="constraint violation.*'batch'"):
        ex.export(branches_on_size, (torch.randn(4, 3),), dynamic_shapes=({0: batch},))


def test_graph_break_names_the_line():
    def reads_a_value(x):
        if x.sum().item() > 0:  # the break
            return x + 1
        return x - 1

    with pytest.raises(RuntimeError, match=r"export: graph break at .*test_export\.py:\d+: .*item"):
        ex.export(reads_a_value, (torch.randn(3),))


def test_bad_dynamic_shapes_and_dims():
    x = torch.randn(4, 3)
    with pytest.raises(ValueError, match="outside its range"):
        ex.export(lambda x: x + 1, (x,), dynamic_shapes=({0: ex.Dim("b", min=8, max=16)},))
    with pytest.raises(ValueError, match="names 'y', which is not an input"):
        ex.export(lambda x: x + 1, (x,), dynamic_shapes={"y": {0: ex.Dim("b")}})
    with pytest.raises(ValueError, match="names dim 5"):
        ex.export(lambda x: x + 1, (x,), dynamic_shapes=({5: ex.Dim("b")},))
    with pytest.raises(ValueError, match="min <= max"):
        ex.Dim("b", min=5, max=2)
    with pytest.raises(TypeError, match="must be a tensor"):
        ex.export(lambda x: x, (3,))


def _saved_bytes(tmp_path, ep):
    path = tmp_path / "p.ember"
    ex.save(ep, path)
    return path, path.read_bytes()


def _rewrite_program(data, edit):
    """The file with its program JSON edited; the header stays a valid safetensors header."""
    import json
    length = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + length])
    program = json.loads(header["__metadata__"]["program"])
    edit(program, header)
    header["__metadata__"]["program"] = json.dumps(program)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data[8 + length:]


@pytest.mark.parametrize("edit, message", [
    (lambda p, h: p.update(version=2), "unknown version 2"),
    (lambda p, h: h["__metadata__"].update(version="7"), "unknown version"),
    (lambda p, h: p["graph"]["nodes"][0].update(op="launch_missiles"), "unknown op 'launch_missiles'"),
    (lambda p, h: p["graph"]["nodes"][0]["inputs"].__setitem__(0, 10**6), "value id 1000000 out of range"),
    (lambda p, h: p["graph"]["values"][0]["shape"].__setitem__(1, 2**62), "overflow|does not match|recorded"),
    (lambda p, h: p["weights"].__setitem__(1, p["weights"][0]), "appears twice"),
    (lambda p, h: h[p["weights"][0]].update(data_offsets=[0, 10**9]), "outside the data"),
    (lambda p, h: p["graph"]["nodes"][1]["attrs"][0].update(ints=[7, 7, 7, 7]), "node 1"),
    (lambda p, h: p["graph"]["nodes"][0]["attrs"][2].update(ints=[2**40, 1]), r"node 0 \(conv2d_bias\).*'dilation'"),
    (lambda p, h: p["graph"]["nodes"][0].update(inputs=[0]), r"node 0 \(conv2d_bias\): takes 3 inputs"),
    (lambda p, h: p["graph"]["nodes"][0]["inputs"].__setitem__(2, 1), r"node 0 \(conv2d_bias\): the bias must be 1-d"),
    (lambda p, h: p["graph"]["nodes"][-1].update(op="mm"), r"\(mm\): operands are not"),
])
def test_hostile_files_are_clear_errors(tmp_path, cnn_program, edit, message):
    _, ep = cnn_program
    path, data = _saved_bytes(tmp_path, ep)
    path.write_bytes(_rewrite_program(data, edit))
    with pytest.raises(ValueError, match=message):
        ex.load(path)


def test_truncated_and_foreign_files(tmp_path, cnn_program):
    _, ep = cnn_program
    path, data = _saved_bytes(tmp_path, ep)
    for cut in (0, 5, 8, 100, len(data) - 1):
        path.write_bytes(data[:cut])
        with pytest.raises(ValueError, match="exported program file"):
            ex.load(path)
    path.write_bytes(b"\x04\x00\x00\x00\x00\x00\x00\x00{}  ")
    with pytest.raises(ValueError, match="not an exported program"):
        ex.load(path)
    with pytest.raises(RuntimeError, match="cannot open"):
        ex.load(tmp_path / "missing.ember")


def test_failed_save_leaves_the_old_file(tmp_path, cnn_program):
    _, ep = cnn_program
    target = tmp_path / "dir_as_target"
    target.mkdir()
    with pytest.raises(RuntimeError, match="cannot write"):
        ex.save(ep, target)
    assert target.is_dir() and os.listdir(tmp_path) == ["dir_as_target"]


def _sample_binary():
    if os.environ.get("EMBER_RUN_EXPORTED"):
        return os.environ["EMBER_RUN_EXPORTED"]
    for build in ("build", "build-asan"):
        path = os.path.join(REPO, build, "samples", "run_exported")
        if os.path.exists(path):
            return path
    return shutil.which("run_exported")


@pytest.mark.parametrize("which", ["cnn", "block"])
def test_cpp_sample_prints_what_python_computes(tmp_path, cnn_program, block_program, which):
    binary = _sample_binary()
    if binary is None:
        pytest.skip("samples/run_exported is not built")
    model, ep = cnn_program if which == "cnn" else block_program
    path = tmp_path / f"{which}.ember"
    ex.save(ep, path)
    shape = ep.input_specs[0]["shape"]
    sizes = [3 if not s.isdigit() else int(s) for s in shape]
    result = subprocess.run([binary, str(path)] + [str(s) for s in sizes], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    # The sample's input is arange(numel) / numel in the input's shape.
    numel = 1
    for s in sizes:
        numel *= s
    x = (torch.arange(numel, dtype=torch.float32) / numel).reshape(sizes)
    with torch.no_grad():
        expected = model(x).reshape(-1).tolist()
    printed = [float(v) for line in result.stdout.splitlines() if line.startswith("output_0 ")
               for v in line.split("=", 1)[1].split()]
    assert len(printed) == len(expected)
    assert max(abs(a - b) for a, b in zip(printed, expected)) < 1e-4
