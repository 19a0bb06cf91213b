"""ONNX forms of the catalogue ops an exported graph holds (sdk/docs/ops.md),
one function per op family. Each takes the OnnxGraph and a Node and emits
nodes that write the node's output names."""

import numpy

from .._memory_format import strides_for
from ._graph import FLOATING, OnnxExporterError, is_static


class Node:
    """A node of the program, with its operands' names and values."""

    def __init__(self, graph, index, record):
        self.index = index
        self.op = record["op"]
        self.location = record.get("location")
        self.attrs = {}
        for attr in record["attrs"]:
            kind = next(k for k in ("int", "bool", "float", "ints") if k in attr)
            self.attrs[attr["name"]] = attr[kind]
        self.inputs = [graph.name(v) for v in record["inputs"]]
        self.outputs = [graph.name(v) for v in record["outputs"]]
        self.in_values = [graph.values[v] for v in record["inputs"]]
        self.out_values = [graph.values[v] for v in record["outputs"]]
        self.output_ids = record["outputs"]

    @property
    def where(self):
        return f"node {self.index} ({self.op}" + (f", at {self.location})" if self.location else ")")

    def refuse(self, why):
        raise OnnxExporterError(f"ember.onnx.export: {self.where}: {why}")

    @property
    def out(self):
        return self.outputs[0]

    @property
    def out_dtype(self):
        return self.out_values[0]["dtype"]


# Elementwise unary

_UNARY = {"neg": "Neg", "abs": "Abs", "sign": "Sign", "exp": "Exp", "log": "Log", "sqrt": "Sqrt", "sin": "Sin",
          "cos": "Cos", "tan": "Tan", "tanh": "Tanh", "sigmoid": "Sigmoid", "erf": "Erf", "reciprocal": "Reciprocal",
          "floor": "Floor", "ceil": "Ceil", "round": "Round", "asin": "Asin", "acos": "Acos", "atan": "Atan"}


def convert_unary(g, node):
    g.add(_UNARY[node.op], node.inputs, node.outputs)


def convert_rsqrt(g, node):
    g.add("Reciprocal", [g.add("Sqrt", node.inputs)], node.outputs)


def convert_trunc(g, node):
    (x,) = node.inputs
    negative = g.add("Less", [x, g.constant(0, node.out_dtype)])
    g.add("Where", [negative, g.add("Ceil", [x]), g.add("Floor", [x])], node.outputs)


def convert_erfc(g, node):
    # ONNX has no Erfc: 1 - Erf, which loses erfc's relative accuracy where
    # erf(x) nears 1 (x above about 4 in float32 gives 0).
    (x,) = node.inputs
    g.add("Sub", [g.constant(1, node.out_dtype), g.add("Erf", [x])], node.outputs)


def convert_log1p(g, node):
    # Kahan's log1p: log(u) * x / (u - 1) with u = 1 + x keeps the digits a
    # plain log(1 + x) loses for small x.
    (x,) = node.inputs
    one = g.constant(1, node.out_dtype)
    u = g.add("Add", [x, one])
    scaled = g.add("Div", [g.add("Mul", [g.add("Log", [u]), x]), g.add("Sub", [u, one])])
    g.add("Where", [g.add("Equal", [u, one]), x, scaled], node.outputs)


def convert_expm1(g, node):
    # Kahan's expm1: (u - 1) * x / log(u) with u = exp(x), for the same reason.
    (x,) = node.inputs
    one = g.constant(1, node.out_dtype)
    u = g.add("Exp", [x])
    u_minus_1 = g.add("Sub", [u, one])
    scaled = g.add("Div", [g.add("Mul", [u_minus_1, x]), g.add("Log", [u])])
    near = g.add("Where", [g.add("Equal", [u_minus_1, g.constant(-1, node.out_dtype)]), u_minus_1, scaled])
    g.add("Where", [g.add("Equal", [u, one]), x, near], node.outputs)


def to_bool(g, name, dtype):
    return name if dtype == "bool" else g.add("Not", [g.add("Equal", [name, g.constant(0, dtype)])])


def convert_logical_not(g, node):
    g.add("Not", [to_bool(g, node.inputs[0], node.in_values[0]["dtype"])], node.outputs)


def convert_bitwise_not(g, node):
    if node.in_values[0]["dtype"] == "bool":
        g.add("Not", node.inputs, node.outputs)
    else:
        needs_opset(g, node, 18)
        g.add("BitwiseNot", node.inputs, node.outputs)


def needs_opset(g, node, opset):
    if g.opset < opset:
        node.refuse(f"ONNX has this op from opset {opset} on; export with opset_version={opset}")


# Elementwise binary

_ARITHMETIC = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "pow": "Pow", "maximum": "Max",
               "minimum": "Min"}
# Logical ONNX forms of the ops on bool operands.
_ON_BOOL = {"add": "Or", "mul": "And", "maximum": "Or", "minimum": "And", "bitwise_and": "And",
            "bitwise_or": "Or", "bitwise_xor": "Xor"}
_BITWISE = {"bitwise_and": "BitwiseAnd", "bitwise_or": "BitwiseOr", "bitwise_xor": "BitwiseXor"}
_LOGICAL = {"logical_and": "And", "logical_or": "Or", "logical_xor": "Xor"}
_COMPARISONS = {"eq": "Equal", "lt": "Less", "le": "LessOrEqual", "gt": "Greater", "ge": "GreaterOrEqual"}


def convert_binary(g, node):
    dtype = node.in_values[0]["dtype"]
    if dtype == "bool" and node.op in _ON_BOOL:
        g.add(_ON_BOOL[node.op], node.inputs, node.outputs)
    elif node.op in _BITWISE:
        needs_opset(g, node, 18)
        g.add(_BITWISE[node.op], node.inputs, node.outputs)
    elif node.op in _ARITHMETIC:
        g.add(_ARITHMETIC[node.op], node.inputs, node.outputs)
    else:
        node.refuse(f"no ONNX form for {dtype} operands")


def convert_logical(g, node):
    operands = [to_bool(g, name, v["dtype"]) for name, v in zip(node.inputs, node.in_values)]
    g.add(_LOGICAL[node.op], operands, node.outputs)


def convert_comparison(g, node):
    operands = node.inputs
    if node.in_values[0]["dtype"] == "bool" and node.op != "eq":
        # ONNX orders numbers only.
        operands = [g.cast(name, "uint8") for name in operands]
    if node.op == "ne":
        g.add("Not", [g.add("Equal", operands)], node.outputs)
    else:
        g.add(_COMPARISONS[node.op], operands, node.outputs)


def fmod_sign_fix(g, a, b, dtype):
    """(fmod(a, b), whether it is non-zero with the sign opposite to b's):
    where Python's % and // differ from C's fmod and truncation."""
    zero = g.constant(0, dtype)
    fmod = g.add("Mod", [a, b], fmod=1)
    opposite = g.add("Xor", [g.add("Less", [fmod, zero]), g.add("Less", [b, zero])])
    return fmod, g.add("And", [g.add("Not", [g.add("Equal", [fmod, zero])]), opposite])


def convert_remainder(g, node):
    a, b = node.inputs
    if node.out_dtype not in FLOATING:
        g.add("Mod", [a, b], node.outputs, fmod=0)
        return
    fmod, fix = fmod_sign_fix(g, a, b, node.out_dtype)
    g.add("Where", [fix, g.add("Add", [fmod, b]), fmod], node.outputs)


def convert_floor_divide(g, node):
    a, b = node.inputs
    dtype = node.out_dtype
    if dtype not in FLOATING:
        g.add("Div", [g.add("Sub", [a, g.add("Mod", [a, b], fmod=0)]), b], node.outputs)
        return
    # CPython's float_floor_div, as the catalogue defines floor_divide.
    fmod, fix = fmod_sign_fix(g, a, b, dtype)
    quotient = g.add("Div", [g.add("Sub", [a, fmod]), b])
    rounded = g.add("Round", [g.add("Where", [fix, g.add("Sub", [quotient, g.constant(1, dtype)]), quotient])])
    by_zero = g.add("Equal", [b, g.constant(0, dtype)])
    g.add("Where", [by_zero, g.add("Div", [a, b]), rounded], node.outputs)


def convert_where(g, node):
    g.add("Where", node.inputs, node.outputs)


def convert_copy(g, node):
    if node.in_values[0]["dtype"] == node.out_dtype:
        g.add("Identity", node.inputs, node.outputs)
    else:
        g.add("Cast", node.inputs, node.outputs, to=g.onnx_dtype(node.out_dtype))


# Reductions

_REDUCE = {"sum": "ReduceSum", "prod": "ReduceProd", "mean": "ReduceMean", "amax": "ReduceMax",
           "amin": "ReduceMin"}


def convert_reduce(g, node):
    (x,) = node.inputs
    dtype, rank = node.in_values[0]["dtype"], len(node.in_values[0]["shape"])
    if rank == 0:
        g.add("Identity", [x] if dtype == node.out_dtype else [g.cast(x, node.out_dtype)], node.outputs)
        return
    # Integral sums and products are int64; ONNX orders no bools.
    compute_dtype = "uint8" if dtype == "bool" and node.op in ("amax", "amin") else node.out_dtype
    if compute_dtype != dtype:
        x = g.cast(x, compute_dtype)
    axes = node.attrs["dims"] or list(range(rank))
    keepdims = int(node.attrs["keepdim"])
    out = node.outputs if compute_dtype == node.out_dtype else None
    result = reduce(g, _REDUCE[node.op], x, axes, keepdims, out)
    if out is None:
        g.add("Cast", [result], node.outputs, to=g.onnx_dtype(node.out_dtype))


def reduce(g, op_type, x, axes, keepdims, outputs=None):
    # ReduceSum takes its axes as an input from opset 13, the others from 18.
    if op_type == "ReduceSum" or g.opset >= 18:
        return g.add(op_type, [x, g.ints(axes)], outputs, keepdims=keepdims)
    return g.add(op_type, [x], outputs, axes=axes, keepdims=keepdims)


def convert_arg_reduce(g, node):
    (x,) = node.inputs
    op_type = "ArgMax" if node.op == "argmax" else "ArgMin"
    dim = node.attrs["dim"]
    if dim == -1 or not node.in_values[0]["shape"]:
        # Over the flattened x: an index into it, in out's shape of ones.
        flat = g.add("Reshape", [x, g.ints([-1])])
        index = g.add(op_type, [flat], axis=0, keepdims=1)
        g.add("Reshape", [index, g.shape(node.out_values[0]["shape"])], node.outputs)
    else:
        g.add(op_type, [x], node.outputs, axis=dim, keepdims=int(node.attrs["keepdim"]))


def convert_cumsum(g, node):
    (x,) = node.inputs
    if node.in_values[0]["dtype"] != node.out_dtype:
        x = g.cast(x, node.out_dtype)
    g.add("CumSum", [x, g.ints([node.attrs["dim"]])], node.outputs)


# Matrix products, cat, convolution and pooling

def convert_matmul(g, node):
    g.add("MatMul", node.inputs, node.outputs)


def convert_cat(g, node):
    # The catalogue's cat skips empty 1-d inputs whatever the output's rank; ONNX's Concat takes one rank.
    rank = len(node.out_values[0]["shape"])
    inputs = [name for name, v in zip(node.inputs, node.in_values) if rank == 1 or v["shape"] != [0]]
    g.add("Concat", inputs, node.outputs, axis=node.attrs["dim"])


def pads_of(node):
    top, left = node.attrs["padding"]
    return [top, left, top, left]


def convert_conv2d(g, node):
    """conv2d (x, w) and conv2d_bias (x, w, b): ONNX's Conv takes the bias as its third input."""
    kernel = node.in_values[1]["shape"][2:]
    if not all(is_static(s) for s in kernel):
        node.refuse("the kernel's size is dynamic")
    g.add("Conv", node.inputs, node.outputs, kernel_shape=kernel, strides=node.attrs["stride"],
          pads=pads_of(node), dilations=node.attrs["dilation"], group=node.attrs["groups"])


def convert_max_pool2d(g, node):
    attrs = dict(kernel_shape=node.attrs["kernel_size"], strides=node.attrs["stride"], pads=pads_of(node),
                 dilations=node.attrs["dilation"])
    if node.output_ids[1] not in g.used:
        g.add("MaxPool", node.inputs, [node.outputs[0]], **attrs)
        return
    values, flat_index = g.add("MaxPool", node.inputs, [node.outputs[0], g.fresh("maxpool_index")], **attrs)
    # ONNX indexes the whole NCHW tensor; the catalogue indexes each plane.
    height, width = node.in_values[0]["shape"][2:]
    plane = g.add("Mul", [g.size(height), g.size(width)])
    g.add("Mod", [flat_index, plane], [node.outputs[1]], fmod=0)


def convert_avg_pool2d(g, node):
    g.add("AveragePool", node.inputs, node.outputs, kernel_shape=node.attrs["kernel_size"],
          strides=node.attrs["stride"], pads=pads_of(node),
          count_include_pad=int(node.attrs["count_include_pad"]))


# Indexing and attention, which ember.export does not take yet
# (runtime/src/export/check_graph.cpp): mapped for the graphs that hold them.

def convert_index_select(g, node):
    g.add("Gather", node.inputs, node.outputs, axis=node.attrs["dim"])


def convert_scaled_dot_product_attention(g, node):
    """softmax(scale * q k^T + mask) v, with the catalogue's edge: a query
    that sees no key gives 0 (and lse -inf), where ONNX's Softmax gives NaN."""
    q, k, v = node.inputs[:3]
    dtype = node.out_dtype
    length, keys = node.in_values[0]["shape"][2], node.in_values[1]["shape"][2]
    scores = g.add("Mul", [g.add("MatMul", [q, g.add("Transpose", [k], perm=[0, 1, 3, 2])]),
                           g.constant(node.attrs["scale"], dtype)])
    if len(node.inputs) == 4:
        scores = g.add("Add", [scores, node.inputs[3]])
    if node.attrs["is_causal"]:
        # Query i sees keys j <= i: the lower triangle of an L x S matrix.
        ones = g.add("Expand", [g.constant(1, "int64"), g.shape([length, keys])])
        hidden = g.add("Equal", [g.add("Trilu", [ones], upper=0), g.constant(0, "int64")])
        scores = g.add("Where", [hidden, g.constant(float("-inf"), dtype), scores])
    peak = reduce(g, "ReduceMax", scores, [-1], keepdims=1)
    finite_peak = g.add("Where", [g.add("IsInf", [peak], detect_positive=0), g.constant(0, dtype), peak])
    weights = g.add("Exp", [g.add("Sub", [scores, finite_peak])])
    total = reduce(g, "ReduceSum", weights, [-1], keepdims=1)
    safe_total = g.add("Where", [g.add("Equal", [total, g.constant(0, dtype)]), g.constant(1, dtype), total])
    g.add("Div", [g.add("MatMul", [weights, v]), safe_total], [node.outputs[0]])
    if node.output_ids[1] in g.used:
        lse = g.add("Add", [g.add("Log", [total]), finite_peak])
        g.add("Squeeze", [lse, g.ints([-1])], [node.outputs[1]])


# Views: ONNX values are dense, so each view is its result's logical form.

def convert_view(g, node):
    g.add("Reshape", [node.inputs[0], g.shape(node.attrs["sizes"])], node.outputs)


def convert_permute(g, node):
    g.add("Transpose", node.inputs, node.outputs, perm=node.attrs["dims"])


def convert_transpose(g, node):
    perm = list(range(len(node.in_values[0]["shape"])))
    a, b = node.attrs["dim0"], node.attrs["dim1"]
    perm[a], perm[b] = perm[b], perm[a]
    g.add("Transpose", node.inputs, node.outputs, perm=perm)


def convert_expand(g, node):
    g.add("Expand", [node.inputs[0], g.shape(node.attrs["sizes"])], node.outputs)


def convert_squeeze(g, node):
    shape = node.in_values[0]["shape"]
    axes = node.attrs["dims"] or [d for d, size in enumerate(shape) if size == 1]
    if not axes:
        g.add("Identity", node.inputs, node.outputs)
    else:
        g.add("Squeeze", [node.inputs[0], g.ints(axes)], node.outputs)


def convert_unsqueeze(g, node):
    g.add("Unsqueeze", [node.inputs[0], g.ints([node.attrs["dim"]])], node.outputs)


def convert_slice(g, node):
    a = node.attrs
    g.add("Slice", [node.inputs[0], g.size(a["start"]), g.size(a["end"]), g.ints([a["dim"]]), g.ints([a["step"]])],
          node.outputs)


def convert_select(g, node):
    dim = node.attrs["dim"]
    picked = g.add("Gather", [node.inputs[0], g.size(node.attrs["index"])], axis=dim)
    g.add("Squeeze", [picked, g.ints([dim])], node.outputs)


def convert_as_strided(g, node):
    """as_strided reads its input's storage: in ONNX, a Gather from the
    flattened storage owner at indices known when every size is static."""
    source = node.in_values[0]
    owner = g.values[source["storage_of"]]
    sizes, strides, offset = node.attrs["sizes"], node.attrs["strides"], node.attrs["storage_offset"]
    numbers = [*sizes, *strides, offset, *owner["shape"], *owner["strides"], owner["offset"]]
    if not all(is_static(n) for n in numbers):
        node.refuse("its sizes, strides or offset, or its storage's shape, are dynamic, and ONNX has no "
                    "strided view; export with static shapes or use view/reshape in the model")
    if owner["offset"] != 0 or owner["strides"] != strides_for(owner["shape"]):
        node.refuse("it reads a storage that is not one dense tensor, which ONNX cannot address")
    index = numpy.full(sizes, offset, dtype=numpy.int64)
    for d, (size, stride) in enumerate(zip(sizes, strides)):
        index = index + (numpy.arange(size, dtype=numpy.int64) * stride).reshape([-1 if i == d else 1
                                                                                 for i in range(len(sizes))])
    flat = g.add("Reshape", [g.name(source["storage_of"]), g.ints([-1])])
    g.add("Gather", [flat, g.initializer(g.fresh("as_strided_index"), index)], node.outputs, axis=0)


def converters():
    """{op name: converter(g, node)} for every op with an ONNX form."""
    table = {op: convert_unary for op in _UNARY}
    table.update({op: convert_binary for op in (*_ARITHMETIC, *_BITWISE)})
    table.update({op: convert_logical for op in _LOGICAL})
    table.update({op: convert_comparison for op in (*_COMPARISONS, "ne")})
    table.update({op: convert_reduce for op in _REDUCE})
    table.update(rsqrt=convert_rsqrt, erfc=convert_erfc, trunc=convert_trunc, log1p=convert_log1p, expm1=convert_expm1,
                 logical_not=convert_logical_not, bitwise_not=convert_bitwise_not, remainder=convert_remainder,
                 floor_divide=convert_floor_divide, where=convert_where, copy=convert_copy,
                 argmax=convert_arg_reduce, argmin=convert_arg_reduce, cumsum=convert_cumsum, mm=convert_matmul,
                 bmm=convert_matmul, cat=convert_cat, conv2d=convert_conv2d, conv2d_bias=convert_conv2d,
                 max_pool2d=convert_max_pool2d, avg_pool2d=convert_avg_pool2d, as_strided=convert_as_strided,
                 index_select=convert_index_select,
                 scaled_dot_product_attention=convert_scaled_dot_product_attention,
                 view=convert_view, permute=convert_permute, transpose=convert_transpose, expand=convert_expand,
                 squeeze=convert_squeeze, unsqueeze=convert_unsqueeze, slice=convert_slice, select=convert_select)
    return table
