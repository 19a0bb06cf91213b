"""ember.onnx: export a model as an ONNX file, as torch.onnx.export does,
from the graph ember.export captures (docs/export.md, "ONNX"). The onnx
package is needed only when export is called."""

import os
import tempfile

from ._capture import dynamic_shapes_of, named_axes, read_program

__all__ = ["export", "is_in_onnx_export", "OnnxExporterError"]

_exports_running = [0]


def is_in_onnx_export():
    """Whether an export is capturing the model now (models may branch on it, as under torch.onnx.export)."""
    return _exports_running[0] > 0


# The graph writer needs NumPy, which `import ember` must not load: NumPy's
# libraries, loaded first, leave no static TLS for the CPU plugin's OpenMP.
def __getattr__(name):
    if name == "OnnxExporterError":
        from ._graph import OnnxExporterError

        return OnnxExporterError
    raise AttributeError(f"module 'ember.onnx' has no attribute '{name}'")

DEFAULT_OPSET = 18
SUPPORTED_OPSETS = (17, 18)

# torch.onnx.export's arguments for what Ember does not do, and why.
_REFUSED = {
    "custom_translation_table": "Ember converts each op with its own mapping",
    "report": "Ember writes no export report",
    "verify": "run the file with onnxruntime and compare it with the model yourself",
    "profile": "Ember does not profile the export",
    "dump_exported_program": "save the program with ember.export.save instead",
    "artifacts_dir": "Ember writes no export artifacts",
    "operator_export_type": "Ember writes standard ONNX ops only",
    "custom_opsets": "Ember writes the default ONNX domain only",
    "export_modules_as_functions": "Ember writes a flat graph",
}


def export(model, args=(), f=None, *, kwargs=None, verbose=None, input_names=None, output_names=None,
           opset_version=None, dynamo=True, external_data=False, dynamic_shapes=None, optimize=True,
           export_params=True, keep_initializers_as_inputs=False, dynamic_axes=None, training=None,
           do_constant_folding=True, autograd_inlining=True, **refused):
    """Writes `model(*args, **kwargs)` to `f` (a path or a binary file
    object) as an ONNX model; `model` is a module, a function or an
    ember.export.ExportedProgram. The weights are initializers; dynamic_axes
    ({name: {axis: axis name}} or {name: [axis, ...]}) or dynamic_shapes
    (ember.export's) make dims dynamic. verbose, dynamo, optimize,
    do_constant_folding, training and autograd_inlining are accepted and
    ignored: the program is what ember.export captures of the model as it
    is (call model.eval() first for inference)."""
    for name in refused:
        if name in _REFUSED:
            raise ValueError(f"ember.onnx.export: {name} is not supported: {_REFUSED[name]}")
        raise TypeError(f"ember.onnx.export() got an unexpected keyword argument {name!r}")
    if f is None:
        raise TypeError("ember.onnx.export: f is required (a path or a binary file object); Ember does not return "
                        "an ONNXProgram")
    if not export_params:
        raise ValueError("ember.onnx.export: export_params=False is not supported: the weights are always written "
                         "as initializers")
    if external_data:
        raise ValueError("ember.onnx.export: external_data=True is not supported: the weights are written inside "
                         "the file (up to protobuf's 2 GB)")
    opset = DEFAULT_OPSET if opset_version is None else opset_version
    if opset not in SUPPORTED_OPSETS:
        raise ValueError(f"ember.onnx.export: opset_version {opset_version} is not supported; Ember writes opsets "
                         f"{', '.join(map(str, SUPPORTED_OPSETS))}")
    if dynamic_axes and dynamic_shapes is not None:
        raise ValueError("ember.onnx.export: give dynamic_axes or dynamic_shapes, not both")
    onnx = _import_onnx()
    from .. import export as _export
    from ..export._trace import _input_names

    axis_names, output_axes = {}, {}
    if isinstance(model, _export.ExportedProgram):
        # torch.onnx.export takes an ExportedProgram too: its dims are fixed.
        if dynamic_axes or dynamic_shapes is not None:
            raise ValueError("ember.onnx.export: an ExportedProgram has its dynamic dims already; dynamic_axes and "
                             "dynamic_shapes apply to a module or function")
        ep = model
        names = _given_names(input_names, [spec["name"] for spec in ep.input_specs], "input_names")
    else:
        args = args if isinstance(args, tuple) else (args,)
        kwargs = dict(kwargs or {})
        names = _given_names(input_names, _input_names(model, args, kwargs), "input_names")
        if dynamic_axes:
            dynamic_shapes, axis_names = dynamic_shapes_of(dynamic_axes, names)
        _exports_running[0] += 1
        try:
            ep = _export.export(model, args, kwargs or None, dynamic_shapes=dynamic_shapes)
        finally:
            _exports_running[0] -= 1
    program, weights = read_program(ep)
    outputs = _given_names(output_names, [spec["name"] for spec in ep.output_specs], "output_names")
    for key, axes in (dynamic_axes or {}).items():
        if key in outputs:
            output_axes[outputs.index(key)] = named_axes(key, axes)
        elif key not in names:
            raise ValueError(f"ember.onnx.export: dynamic_axes names {key!r}, which is neither an input "
                             f"({', '.join(names)}) nor an output ({', '.join(outputs)})")
    from ._convert import to_model

    model_proto = to_model(onnx, program, weights, input_names=names, output_names=outputs,
                           axis_names=axis_names, output_axes=output_axes, opset=opset,
                           keep_initializers_as_inputs=keep_initializers_as_inputs)
    _write(model_proto.SerializeToString(), f)


def _import_onnx():
    try:
        import onnx
    except ImportError:
        raise ImportError("ember.onnx.export needs the onnx package: pip install onnx") from None
    return onnx


def _given_names(given, defaults, argument):
    """torch's rule: the given names name the first values, the rest keep theirs."""
    if given is None:
        return list(defaults)
    given = list(given)
    if len(given) > len(defaults):
        raise ValueError(f"ember.onnx.export: {argument} has {len(given)} names for {len(defaults)} values")
    if not all(isinstance(n, str) for n in given):
        raise TypeError(f"ember.onnx.export: {argument} must be strings")
    return given + list(defaults[len(given):])


def _write(data, f):
    """The whole file or nothing: a path gets a temporary file beside it,
    renamed over it once written."""
    if hasattr(f, "write"):
        f.write(data)
        return
    path = os.fspath(f)
    directory = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def _umask():
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
