"""The program ember.onnx.export converts: captured with ember.export, its
graph read back from the save format (docs/export.md, "File format,
version 1"), the one place the structured graph is written out."""

import json
import os
import struct
import tempfile

from .. import export as _export


def dynamic_shapes_of(dynamic_axes, input_names):
    """(dynamic_shapes for ember.export by input position, {Dim name: axis
    name}) from torch.onnx's dynamic_axes: {name: {axis: axis name}} or
    {name: [axis, ...]}. One axis name on several inputs is one Dim, so
    their sizes are equal, as one dim_param says in ONNX."""
    dims_by_name, axis_names = {}, {}
    shapes = [None] * len(input_names)
    for name, axes in dynamic_axes.items():
        if name not in input_names:
            continue
        spec = {}
        for axis, axis_name in named_axes(name, axes).items():
            if not isinstance(axis, int) or isinstance(axis, bool):
                raise TypeError(f"ember.onnx.export: dynamic_axes[{name!r}] has axis {axis!r}; axes are integers")
            if not isinstance(axis_name, str):
                raise TypeError(f"ember.onnx.export: dynamic_axes[{name!r}][{axis}] must be a name (str), "
                                f"got {type(axis_name).__name__}")
            if axis_name not in dims_by_name:
                # A Dim's name is an identifier; an axis name may be any string.
                dim_name = axis_name if axis_name.isidentifier() else f"dynamic_axis_{len(dims_by_name)}"
                dim = _export.Dim(dim_name)
                dims_by_name[axis_name] = dim
                axis_names[dim.__name__] = axis_name
            spec[axis] = dims_by_name[axis_name]
        shapes[input_names.index(name)] = spec
    return tuple(shapes), axis_names


def named_axes(name, axes):
    """{axis: axis name} of one entry of dynamic_axes; torch's names for a list of axes."""
    if isinstance(axes, dict):
        return dict(axes)
    if isinstance(axes, (list, tuple)):
        return {axis: f"{name}_dynamic_axes_{i + 1}" for i, axis in enumerate(axes)}
    raise TypeError(f"ember.onnx.export: dynamic_axes[{name!r}] must be a dict {{axis: name}} or a list of axes, "
                    f"got {type(axes).__name__}")


def read_program(ep):
    """(program, weights): the program JSON of `ep` and its weights as
    {name: tensor}, through a temporary file that is gone on return."""
    with tempfile.TemporaryDirectory(prefix="ember-onnx-") as directory:
        path = os.path.join(directory, "program.ember")
        _export.save(ep, path)
        with open(path, "rb") as f:
            (header_size,) = struct.unpack("<Q", f.read(8))
            header = json.loads(f.read(header_size))
    return json.loads(header["__metadata__"]["program"]), ep.state_dict()
