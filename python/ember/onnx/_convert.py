"""An exported program's graph (docs/export.md, "File format, version 1")
as an ONNX ModelProto."""

from ._graph import OnnxGraph, size_text
from ._ops import Node, converters


def to_model(onnx, program, weights, *, input_names, output_names, axis_names, output_axes, opset,
             keep_initializers_as_inputs):
    """`axis_names` names the program's dims in dim_params; `output_axes`
    is {output position: {axis: name}} for the outputs dynamic_axes names."""
    helper = onnx.helper
    g = OnnxGraph(onnx, program, opset)
    graph = program["graph"]
    num_inputs = len(program["inputs"])
    g.used = {v for record in graph["nodes"] for v in record["inputs"]} | set(graph["outputs"])

    def value_info(name, value, names_of_axes=None):
        dims = [(names_of_axes or {}).get(axis) or (size if isinstance(size, int) else size_text(size, axis_names))
                for axis, size in enumerate(value["shape"])]
        return helper.make_tensor_value_info(name, g.onnx_dtype(value["dtype"]), dims)

    inputs = []
    for position, vid in enumerate(graph["inputs"][:num_inputs]):
        g.name_value(vid, input_names[position])
        inputs.append(value_info(input_names[position], g.values[vid]))
        for axis, size in enumerate(g.values[vid]["shape"]):
            if isinstance(size, str):
                g.add_symbol_source(size, input_names[position], axis)
    for vid, name in zip(graph["inputs"][num_inputs:], program["weights"]):
        g.name_value(vid, name)
        value = g.values[vid]
        g.initializer(name, weight_array(weights[name]), value["dtype"])
        if keep_initializers_as_inputs:
            inputs.append(value_info(name, value))
    for vid, value in enumerate(g.values):
        if value["origin"] == "constant":
            g.name_value(vid, g.constant(constant_of(value["value"]), value["dtype"]), reserved=True)

    # A graph output takes its ONNX name at the node that makes it; one
    # returned twice, or already named, goes through an Identity.
    renamed = {}
    for position, vid in enumerate(graph["outputs"]):
        g.reserve(output_names[position])
        if g.values[vid]["origin"] == "node" and vid not in renamed:
            renamed[vid] = output_names[position]
            g.name_value(vid, output_names[position], reserved=True)

    table = converters()
    for index, record in enumerate(graph["nodes"]):
        node = Node(g, index, record)
        convert = table.get(node.op)
        if convert is None:
            node.refuse("this op has no ONNX mapping in ember.onnx (docs/export.md, \"ONNX\")")
        convert(g, node)

    outputs = []
    for position, vid in enumerate(graph["outputs"]):
        name = output_names[position]
        if renamed.get(vid) != name:
            g.add("Identity", [g.name(vid)], [name])
        outputs.append(value_info(name, g.values[vid], output_axes.get(position)))

    opsets = [helper.make_opsetid("", opset)]
    return helper.make_model(helper.make_graph(g.nodes, "ember", inputs, outputs, g.initializers),
                             opset_imports=opsets, producer_name="ember",
                             ir_version=helper.find_min_ir_version_for(opsets))


def weight_array(t):
    t = t.detach().cpu()
    # NumPy has no bfloat16: the initializer rounds float32 values back to it.
    return t.float().numpy() if str(t.dtype) == "ember.bfloat16" else t.numpy()


def constant_of(value):
    return float(value) if isinstance(value, str) else value
