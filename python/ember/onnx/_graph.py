"""OnnxGraph: the ONNX graph being built from an exported program: names of
values, initializers, nodes, and the int64 tensors that sizes (polynomials
over the program's dynamic dims) become."""

import numpy

# Ember dtype names (docs/export.md) to onnx.TensorProto's enum names.
_ONNX_DTYPES = {"bool": "BOOL", "uint8": "UINT8", "int8": "INT8", "int16": "INT16", "int32": "INT32",
                "int64": "INT64", "float16": "FLOAT16", "bfloat16": "BFLOAT16", "float32": "FLOAT",
                "float64": "DOUBLE"}

FLOATING = ("float16", "bfloat16", "float32", "float64")


class OnnxExporterError(RuntimeError):
    """A program that has no ONNX form (torch.onnx.OnnxExporterError)."""


def is_static(size):
    return isinstance(size, int)


def size_text(size, axis_names):
    """A size as a dim_param: the axis name of a dim, or its polynomial."""
    if isinstance(size, int):
        return str(size)
    if isinstance(size, str):
        return axis_names.get(size, size)
    text = ""
    for coef, *names in size:
        magnitude = abs(coef)
        factors = ([str(magnitude)] if magnitude != 1 or not names else []) + [axis_names.get(n, n) for n in names]
        sign = ("-" if coef < 0 else "") if not text else (" - " if coef < 0 else " + ")
        text += sign + "*".join(factors)
    return text


class OnnxGraph:
    def __init__(self, onnx, program, opset):
        self.onnx = onnx
        self.helper = onnx.helper
        self.opset = opset
        self.values = program["graph"]["values"]
        self.nodes = []
        self.initializers = []
        self._names = {}
        self._taken = set()
        self._cache = {}
        self._symbol_sources = {}

    # Names

    def reserve(self, name):
        if name in self._taken:
            raise ValueError(f"ember.onnx.export: the name {name!r} is given to two inputs, outputs or weights")
        self._taken.add(name)

    def name_value(self, vid, name, reserved=False):
        if not reserved:
            self.reserve(name)
        self._names[vid] = name

    def name(self, vid):
        if vid not in self._names:
            self.name_value(vid, self.fresh(f"v{vid}"), reserved=True)
        return self._names[vid]

    def fresh(self, hint):
        name, i = hint, 0
        while name in self._taken:
            i += 1
            name = f"{hint}_{i}"
        self._taken.add(name)
        return name

    def onnx_dtype(self, dtype):
        return getattr(self.onnx.TensorProto, _ONNX_DTYPES[dtype])

    def add_symbol_source(self, symbol, input_name, axis):
        self._symbol_sources.setdefault(symbol, (input_name, axis))

    # Nodes and constants

    def add(self, op_type, inputs, outputs=None, **attrs):
        """Appends a node; returns its output name (or names, if `outputs` is a list)."""
        names = [self.fresh(op_type.lower())] if outputs is None else list(outputs)
        self.nodes.append(self.helper.make_node(op_type, list(inputs), names,
                                                name=self.fresh(f"{op_type}_{len(self.nodes)}"), **attrs))
        return names[0] if outputs is None or len(names) == 1 else names

    def initializer(self, name, array, dtype=None):
        if dtype == "bfloat16":
            tensor = self.helper.make_tensor(name, self.onnx.TensorProto.BFLOAT16, array.shape,
                                             array.astype(numpy.float32).ravel().tolist())
        else:
            tensor = self.onnx.numpy_helper.from_array(numpy.ascontiguousarray(array), name)
        self.initializers.append(tensor)
        return name

    def constant(self, value, dtype):
        """A 0-d initializer of one of Ember's dtypes."""
        key = ("scalar", dtype, repr(value))
        if key not in self._cache:
            numpy_dtype = numpy.float32 if dtype == "bfloat16" else numpy.dtype(dtype)
            self._cache[key] = self.initializer(self.fresh("const"), numpy.array(value, dtype=numpy_dtype), dtype)
        return self._cache[key]

    def ints(self, values):
        """A 1-d int64 initializer."""
        key = ("ints", tuple(values))
        if key not in self._cache:
            self._cache[key] = self.initializer(self.fresh("ints"), numpy.array(values, dtype=numpy.int64))
        return self._cache[key]

    def cast(self, name, dtype):
        return self.add("Cast", [name], to=self.onnx_dtype(dtype))

    # Sizes

    def size(self, size):
        """A [1] int64 tensor holding `size`: a number, a dim's name, or a
        list of terms [coef, name, ...] (docs/export.md)."""
        if is_static(size):
            return self.ints([size])
        key = ("size", json_key(size))
        if key in self._cache:
            return self._cache[key]
        if isinstance(size, str):
            if size not in self._symbol_sources:
                raise OnnxExporterError(f"ember.onnx.export: dynamic dim {size!r} is not a dim of any input, so the "
                                      "ONNX graph cannot read it")
            input_name, axis = self._symbol_sources[size]
            out = self.add("Shape", [input_name], start=axis, end=axis + 1)
        else:
            out = None
            for coef, *names in size:
                term = self.ints([coef]) if not names or coef != 1 else None
                for symbol in names:
                    term = self.size(symbol) if term is None else self.add("Mul", [term, self.size(symbol)])
                out = term if out is None else self.add("Add", [out, term])
        self._cache[key] = out
        return out

    def shape(self, sizes):
        """A [len(sizes)] int64 tensor of the sizes."""
        if all(is_static(s) for s in sizes):
            return self.ints(sizes)
        key = ("shape", tuple(json_key(s) if not is_static(s) else s for s in sizes))
        if key not in self._cache:
            self._cache[key] = self.add("Concat", [self.size(s) for s in sizes], axis=0)
        return self._cache[key]


def json_key(size):
    return size if isinstance(size, str) else tuple(tuple(term) for term in size)
