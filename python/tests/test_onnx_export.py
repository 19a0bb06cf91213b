"""ember.onnx.export: models written as ONNX, checked by onnx's checker and
run by onnxruntime against Ember (and PyTorch) (docs/export.md, "ONNX")."""

import io
import os
import sys

import numpy
import pytest

import ember as torch
import ember.onnx
from ember import nn
import ember.nn.functional as F

from helpers import assert_close

onnx = pytest.importorskip("onnx", reason="the ONNX tests need onnx and onnxruntime (pip install onnx onnxruntime)")
ort = pytest.importorskip("onnxruntime", reason="the ONNX tests need onnxruntime (pip install onnxruntime)")


def export_bytes(model, args, **options):
    buffer = io.BytesIO()
    ember.onnx.export(model, args, buffer, **options)
    data = buffer.getvalue()
    onnx.checker.check_model(onnx.load_from_string(data), full_check=True)
    return data


def run(data, *inputs):
    session = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    return session.run(None, {spec.name: x.numpy() for spec, x in zip(session.get_inputs(), inputs)})


def assert_runs_like(model, data, *inputs, rtol=1e-5, atol=1e-5):
    with torch.no_grad():
        expected = model(*inputs)
    expected = [expected] if isinstance(expected, torch.Tensor) else expected
    actual = run(data, *inputs)
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert_close(a, e, rtol=rtol, atol=atol)
    return actual


def torch_copy(torch_module, ember_module, reference):
    """`torch_module` holding `ember_module`'s weights and buffers."""
    state = {k: reference.from_numpy(v.detach().numpy().copy()) for k, v in ember_module.state_dict().items()}
    torch_module.load_state_dict(state)
    return torch_module.eval()


@pytest.mark.parametrize("opset", [17, 18])
def test_mlp_matches_ember_and_pytorch_at_another_batch_size(torch, opset):
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)).eval()
    data = export_bytes(model, (ember.randn(2, 4),), input_names=["x"], output_names=["y"],
                        dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}}, opset_version=opset)
    graph = onnx.load_from_string(data).graph
    assert [i.name for i in graph.input] == ["x"] and [o.name for o in graph.output] == ["y"]
    assert graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    assert {t.name for t in graph.initializer} >= {"0.weight", "0.bias", "2.weight", "2.bias"}
    x = ember.randn(5, 4)
    (out,) = assert_runs_like(model, data, x)
    reference = torch_copy(torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3)),
                           model, torch)
    assert_close(out, reference(torch.from_numpy(x.numpy())).detach(), atol=1e-5)


def make_cnn():
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(4, 4, 3, stride=2, padding=1, groups=2), nn.AvgPool2d(2, count_include_pad=False),
                         nn.Flatten(), nn.Linear(4, 3))


def test_cnn_with_batchnorm_in_eval_matches_ember_and_pytorch(torch):
    model = make_cnn()
    model(ember.randn(8, 1, 8, 8))  # running statistics away from 0 and 1
    model.eval()
    data = export_bytes(model, (ember.randn(2, 1, 8, 8),), dynamic_axes={"input": [0]})
    dim = onnx.load_from_string(data).graph.input[0].type.tensor_type.shape.dim[0]
    assert dim.dim_param == "input_dynamic_axes_1"
    x = ember.randn(3, 1, 8, 8)
    (out,) = assert_runs_like(model, data, x)
    t = torch.nn
    reference = torch_copy(t.Sequential(t.Conv2d(1, 4, 3, padding=1), t.BatchNorm2d(4), t.ReLU(), t.MaxPool2d(2),
                                        t.Conv2d(4, 4, 3, stride=2, padding=1, groups=2),
                                        t.AvgPool2d(2, count_include_pad=False), t.Flatten(), t.Linear(4, 3)),
                           model, torch)
    assert_close(out, reference(torch.from_numpy(x.numpy())).detach(), atol=1e-5)


class AttentionBlock(nn.Module):
    """A pre-norm transformer block: attention by matmul and softmax, a GELU MLP."""

    def __init__(self, d=8, heads=2):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 2 * d), nn.Linear(2 * d, d)
        self.dropout = nn.Dropout(0.5)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).chunk(3, dim=-1)
        q, k, v = (z.reshape(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        att = torch.softmax(q @ k.transpose(-2, -1) * (d // self.heads) ** -0.5, dim=-1)
        x = x + self.dropout(self.proj((att @ v).transpose(1, 2).reshape(b, t, d)))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


@pytest.mark.parametrize("opset", [17, 18])
def test_attention_block_runs_at_other_batch_and_sequence_sizes(opset):
    model = AttentionBlock().eval()
    data = export_bytes(model, (ember.randn(2, 5, 8),), opset_version=opset,
                        dynamic_axes={"x": {0: "batch", 1: "seq"}})
    assert_runs_like(model, data, ember.randn(3, 7, 8))
    assert_runs_like(model, data, ember.randn(1, 2, 8))


def elementwise_and_reductions(x, y):
    return (torch.log1p(x * 1e-6), torch.expm1(x * 1e-6), x.trunc(), x.rsqrt(), x.sign().round(),
            torch.remainder(x, y), torch.floor_divide(x, y), torch.maximum(x, y), x.sigmoid().tanh().erf(),
            torch.where(x > y, x, -y), (x != y) & (x <= 1), ~(x >= y),
            x.sum(), x.sum(1, keepdim=True), x.mean((0, 1)), x.amax(1), x.amin(0, keepdim=True), (x > 0).sum(0),
            x.prod(1), x.argmax(), x.argmin(1), x.cumsum(1), x.int(), (x > 0).float(),
            x.floor() + x.ceil() - x.abs(), x.exp().log(), x.abs().sqrt(), x.sin() * x.cos() / x.tan(),
            x.reciprocal(), x.abs().pow(y), torch.minimum(x, y), x.eq(y) | x.lt(y),
            torch.logical_and(x, y > 0), torch.logical_or(x > 1, y), torch.logical_xor(x > 0, y > 0),
            torch.logical_not(x))


def views_and_products(x):
    return (torch.cat([x, 2 * x], 0), x[:, 1:3] + 1, x[-1] + 1, x.unsqueeze(1).squeeze(1) + 1,
            x.permute(1, 0).contiguous(), x.t() @ x, torch.bmm(x.unsqueeze(0), x.t().unsqueeze(0)),
            x.reshape(-1)[2:] * 2, x.expand(2, *x.shape) + 0, F.softmax(x, 1), x.flatten())


@pytest.mark.parametrize("opset", [17, 18])
def test_elementwise_ops_reductions_and_views_match_ember(opset):
    x, y = ember.randn(3, 4), ember.randn(3, 4)
    data = export_bytes(elementwise_and_reductions, (x, y), opset_version=opset,
                        dynamic_axes={"x": {0: "rows"}, "y": {0: "rows"}})
    assert_runs_like(elementwise_and_reductions, data, ember.randn(5, 4), ember.randn(5, 4))
    data = export_bytes(views_and_products, (x,), opset_version=opset, dynamic_axes={"x": [0]})
    assert_runs_like(views_and_products, data, ember.randn(6, 4))


def test_integer_and_bitwise_ops():
    def integer_ops(x):
        return x // 3, x % 3, x & 5, x | 2, x ^ 1, ~x, x.sum(), x.amax(1), x.float() / 2

    x = ember.tensor([[7, -7, 3], [0, 8, -1]])
    assert_runs_like(integer_ops, export_bytes(integer_ops, (x,)), x)
    with pytest.raises(RuntimeError, match=r"node \d+ \(bitwise_and.*opset_version=18"):
        ember.onnx.export(integer_ops, (x,), io.BytesIO(), opset_version=17)


def test_max_pool_indices_index_each_plane():
    pool = nn.MaxPool2d(2, return_indices=True)
    data = export_bytes(pool, (ember.randn(2, 3, 4, 6),), dynamic_axes={"input": {0: "n"}})
    values, indices = assert_runs_like(pool, data, ember.randn(3, 3, 4, 6))
    assert indices.max() < 4 * 6


def test_static_as_strided_gathers_from_the_storage():
    def strided(x):
        return x.as_strided((2, 3), (1, 2), 1) * 2

    x = ember.randn(3, 4)
    assert_runs_like(strided, export_bytes(strided, (x,)), ember.randn(3, 4))


def test_a_path_gets_the_whole_file_and_a_failure_leaves_none(tmp_path):
    model = nn.Sequential(nn.Linear(3, 2), nn.Tanh()).eval()
    path = tmp_path / "model.onnx"
    ember.onnx.export(model, (ember.randn(1, 3),), path, output_names=["scores"])
    onnx.checker.check_model(str(path), full_check=True)
    assert_runs_like(model, path.read_bytes(), ember.randn(1, 3))

    def strided(x):
        return x.as_strided((2, 2), (1, 2)) * 2

    failed = tmp_path / "strided.onnx"
    with pytest.raises(RuntimeError, match=r"node \d+ \(as_strided.*dynamic"):
        ember.onnx.export(strided, (ember.randn(4, 4),), failed, dynamic_axes={"x": [0]})
    def sorted_values(x):
        return x.sort().values

    with pytest.raises(ValueError, match=r"node \d+ \(sort\)"):
        ember.onnx.export(sorted_values, (ember.randn(4),), failed)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.onnx"]


def test_dynamic_shapes_kwargs_and_exported_programs_export_as_ember_export_takes_them():
    def scaled(x, *, scale):
        return x * scale + 1

    x, scale = ember.randn(2, 3), ember.randn(3)
    batch = ember.export.Dim("batch", min=1, max=64)
    data = export_bytes(scaled, (x,), kwargs={"scale": scale}, dynamic_shapes={"x": {0: batch}})
    assert_runs_like(lambda x, s: scaled(x, scale=s), data, ember.randn(4, 3), scale)
    ep = ember.export.export(scaled, (x,), {"scale": scale}, dynamic_shapes={"x": {0: batch}})
    data = export_bytes(ep, (), input_names=["features"])
    graph = onnx.load_from_string(data).graph
    assert [i.name for i in graph.input] == ["features", "scale"]
    assert graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    assert_runs_like(lambda x, s: scaled(x, scale=s), data, ember.randn(5, 3), scale)
    with pytest.raises(ValueError, match="an ExportedProgram has its dynamic dims already"):
        ember.onnx.export(ep, (), io.BytesIO(), dynamic_axes={"x": [0]})


def program_of(inputs, nodes, outputs, weights=()):
    """A program in export.save's format (docs/export.md), for ops ember.export
    does not take yet: inputs and weights are (name, dtype, shape), nodes
    (op, input ids, [(dtype, shape)] of outputs, attrs); ids count inputs,
    then weights, then node outputs in order."""
    def value(origin, dtype, shape, vid):
        strides = [int(numpy.prod(shape[d + 1:])) for d in range(len(shape))]
        return {"origin": origin, "dtype": dtype, "device": "cpu", "shape": list(shape), "strides": strides,
                "offset": 0, "storage_of": vid}

    def attr(name, v):
        kind = "bool" if isinstance(v, bool) else "int" if isinstance(v, int) else "float" if isinstance(v, float) \
            else "ints"
        return {"name": name, kind: v}

    values = [value("input", dtype, shape, i) for i, (_, dtype, shape) in enumerate([*inputs, *weights])]
    records = []
    for op, operands, results, attrs in nodes:
        ids = list(range(len(values), len(values) + len(results)))
        values += [value("node", dtype, shape, vid) for vid, (dtype, shape) in zip(ids, results)]
        records.append({"op": op, "inputs": operands, "outputs": ids,
                        "attrs": [attr(k, v) for k, v in attrs.items()]})
    return {"inputs": [name for name, _, _ in inputs], "weights": [name for name, _, _ in weights],
            "graph": {"values": values, "nodes": records, "inputs": list(range(len(inputs) + len(weights))),
                      "outputs": outputs}}


def model_of(program, weights=None, opset=18):
    from ember.onnx._convert import to_model
    model = to_model(onnx, program, weights or {}, input_names=program["inputs"],
                     output_names=[f"output_{i}" for i in range(len(program["graph"]["outputs"]))], axis_names={},
                     output_axes={}, opset=opset, keep_initializers_as_inputs=False)
    onnx.checker.check_model(model, full_check=True)
    return model.SerializeToString()


def test_index_select_of_an_embedding_is_a_gather():
    weight = ember.randn(10, 4)
    program = program_of([("indices", "int64", [5])], [("index_select", [1, 0], [("float32", [5, 4])], {"dim": 0})],
                         [2], weights=[("weight", "float32", [10, 4])])
    indices = ember.tensor([3, 0, 9, 3, 1])
    (out,) = run(model_of(program, {"weight": weight}), indices)
    assert_close(out, ember.index_select(weight, 0, indices))


@pytest.mark.parametrize("opset", [17, 18])
def test_scaled_dot_product_attention_with_mask_causal_and_a_query_that_sees_no_key(opset):
    q, k, v = ember.randn(1, 2, 3, 4), ember.randn(1, 2, 5, 4), ember.randn(1, 2, 5, 6)
    mask = ember.randn(1, 1, 3, 5)
    mask[0, 0, 1] = float("-inf")
    shapes = [("float32", [1, 2, 3, 6]), ("float32", [1, 2, 3])]
    for is_causal in (False, True):
        program = program_of([("q", "float32", [1, 2, 3, 4]), ("k", "float32", [1, 2, 5, 4]),
                              ("v", "float32", [1, 2, 5, 6]), ("mask", "float32", [1, 1, 3, 5])],
                             [("scaled_dot_product_attention", [0, 1, 2, 3], shapes,
                               {"is_causal": is_causal, "scale": 0.5})], [4, 5])
        out, lse = run(model_of(program, opset=opset), q, k, v, mask)
        hide = numpy.triu(numpy.ones((3, 5), dtype=bool), 1) if is_causal else numpy.zeros((3, 5), dtype=bool)
        scores = numpy.where(hide, -numpy.inf, 0.5 * q.numpy() @ k.numpy().swapaxes(-1, -2) + mask.numpy())
        with numpy.errstate(divide="ignore"):
            expected_lse = numpy.log(numpy.exp(scores).sum(-1))
        assert_close(lse, expected_lse)
        causal_mask = mask.masked_fill(ember.from_numpy(hide), float("-inf"))
        expected = F.scaled_dot_product_attention(q, k, v, attn_mask=causal_mask, scale=0.5)
        assert_close(out, expected.nan_to_num(0.0))
        assert (out[:, :, 1] == 0).all()


def test_an_op_without_a_mapping_is_named():
    program = program_of([("x", "float32", [4])], [("sort", [0], [("float32", [4]), ("int64", [4])],
                                                    {"dim": 0, "descending": False, "stable": True})], [1])
    with pytest.raises(ember.onnx.OnnxExporterError, match=r"node 0 \(sort\): this op has no ONNX mapping"):
        model_of(program)


def test_keep_initializers_as_inputs_lists_the_weights():
    model = nn.Linear(3, 2)
    graph = onnx.load_from_string(export_bytes(model, (ember.randn(1, 3),), keep_initializers_as_inputs=True,
                                               input_names=["features"])).graph
    assert [i.name for i in graph.input] == ["features", "weight", "bias"]


def test_arguments_ember_does_not_honour_are_refused_by_name():
    model, args = nn.Linear(3, 2), (ember.randn(1, 3),)
    cases = [(dict(custom_translation_table={}), ValueError, "custom_translation_table is not supported"),
             (dict(export_params=False), ValueError, "export_params=False"),
             (dict(external_data=True), ValueError, "external_data=True"),
             (dict(opset_version=11), ValueError, "opset_version 11 is not supported"),
             (dict(dynamic_axes={"nope": [0]}), ValueError, "'nope', which is neither an input"),
             (dict(input_names=["a", "b"]), ValueError, "input_names has 2 names for 1 values"),
             (dict(output_names=["input"]), ValueError, "'input' is given to two"),
             (dict(no_such_argument=1), TypeError, "unexpected keyword argument 'no_such_argument'")]
    for options, error, message in cases:
        with pytest.raises(error, match=message):
            ember.onnx.export(model, args, io.BytesIO(), **options)
    with pytest.raises(TypeError, match="f is required"):
        ember.onnx.export(model, args)


def test_without_onnx_the_error_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)
    with pytest.raises(ImportError, match="pip install onnx"):
        ember.onnx.export(nn.Linear(3, 2), (ember.randn(1, 3),), io.BytesIO())


def test_importing_ember_does_not_import_onnx():
    import subprocess
    code = "import sys, ember; assert ember.onnx.export and 'onnx' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, env=dict(os.environ))


def test_embedding_and_a_transformer_encoder_layer_export_and_run_at_other_sizes():
    torch.manual_seed(0)
    words = nn.Sequential(nn.Embedding(10, 4), nn.Flatten(), nn.Linear(12, 2)).eval()
    data = export_bytes(words, (torch.tensor([[1, 2, 3]]),), dynamic_axes={"input": {0: "batch"}},
                        input_names=["input"])
    assert_runs_like(words, data, torch.tensor([[9, 0, 4], [3, 3, 1]]))

    layer = nn.TransformerEncoderLayer(d_model=16, nhead=4, dim_feedforward=32, batch_first=True).eval()
    data = export_bytes(layer, (torch.randn(2, 5, 16),), input_names=["src"],
                        dynamic_axes={"src": {0: "batch", 1: "sequence"}})
    assert_runs_like(layer, data, torch.randn(3, 7, 16), rtol=1e-4, atol=1e-5)
