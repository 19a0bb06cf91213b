"""export(): the program traced at its example sizes and at more sizes per
dynamic dim, fitted into one program over symbolic sizes (Note [Sizes as
expressions] in runtime/src/export/sym_expr.h)."""

import inspect
import itertools

from .. import _C
from .._C import Tensor
from ..compiler import _config
from ..compiler._compiled import _user_location
from ._dims import dims_by_input, trace_sizes
from ._program import ExportedProgram


def _input_names(fn, args, kwargs):
    target = fn.forward if hasattr(fn, "forward") and hasattr(fn, "state_dict") else fn
    try:
        params = list(inspect.signature(target).parameters)
    except (TypeError, ValueError):
        params = []
    names = [params[i] if i < len(params) else f"args_{i}" for i in range(len(args))]
    return names + list(kwargs)


def _weight_names(fn):
    """state_dict names of a module's parameters and buffers, by the memory
    they hold (a state_dict's detached tensors share it)."""
    if not hasattr(fn, "state_dict"):
        return {}
    names = {}
    for name, t in fn.state_dict().items():
        names.setdefault(_identity(t), name)
    return names


def _identity(t):
    return (t.data_ptr(), tuple(t.shape), tuple(t.stride()), str(t.dtype), str(t.device))


def _trace_once(fn, tensors, kwarg_names):
    """(plan, captured, structure) of one trace; raises RuntimeError for a break."""
    tracer = _C._Tracer(fullgraph=True, dynamic=False, deterministic=False, codegen=False, cache=None,
                        location=_user_location, fused_composites=False)
    try:
        try:
            _config.exporting.active = True
            traced = [tracer.input(t) for t in tensors]
            num_args = len(tensors) - len(kwarg_names)
            out = fn(*traced[:num_args], **dict(zip(kwarg_names, traced[num_args:])))
            if isinstance(out, Tensor):
                structure, outs = "tensor", [out]
            elif isinstance(out, (tuple, list)) and not hasattr(out, "_fields") and out:
                structure, outs = type(out).__name__, list(out)
                if not all(isinstance(o, Tensor) for o in outs):
                    raise TypeError("export: the program must return a tensor or a tuple or list of tensors, "
                                    f"got {[type(o).__name__ for o in outs]}")
            else:
                raise TypeError("export: the program must return a tensor or a tuple or list of tensors, "
                                f"got {type(out).__name__}")
            for i, o in enumerate(outs):
                if not _C._is_tracing(o):
                    raise RuntimeError(f"export: output {i} is not computed from the inputs (a tensor returned "
                                       "as it is); return a computed tensor")
            tracer.finish(outs)
        finally:
            _config.exporting.active = False
            tracer.close()
    except _C._TraceUnsupported as e:
        raise RuntimeError(f"export: cannot capture the program: {e}") from None
    except RuntimeError as e:
        message = str(e)
        prefix = "compile(fullgraph=True): "
        if message.startswith(prefix):
            raise RuntimeError("export: " + message[len(prefix):]) from None
        raise
    return tracer.segments[0], list(tracer.captured), structure


def export(fn_or_module, args, kwargs=None, dynamic_shapes=None, *, codegen=True):
    """Captures `fn_or_module(*args, **kwargs)` into an ExportedProgram (under
    no_grad); `dynamic_shapes` marks dims that may change, PyTorch's way:
    {"x": {0: Dim("batch", min=1, max=1024)}} or ({0: batch},)."""
    from .. import no_grad, zeros
    kwargs = dict(kwargs or {})
    if not isinstance(args, tuple):
        raise TypeError(f"export: args must be a tuple, got {type(args).__name__}")
    names = _input_names(fn_or_module, args, kwargs)
    tensors = list(args) + list(kwargs.values())
    for name, t in zip(names, tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"export: input {name!r} must be a tensor, got {type(t).__name__}")
    dims = dims_by_input(dynamic_shapes, names, tensors)

    symbols, points, check = [], [], []
    for position in sorted(dims):
        for index in sorted(dims[position]):
            dim = dims[position][index]
            example = tensors[position].shape[index]
            known = next((i for i, s in enumerate(symbols) if s.__name__ == dim.__name__), None)
            if known is not None:
                if symbols[known] is not dim:
                    raise ValueError(f"export: two different Dims are named {dim.__name__!r}")
                if points[known][0] != example:
                    raise ValueError(f"export: dim {dim.__name__!r} is {points[known][0]} in one input and "
                                     f"{example} in input {names[position]!r} (dim {index})")
                continue
            more, third = trace_sizes(dim, example)
            symbols.append(dim)
            points.append([example] + more)
            check.append(third)
    low = [p[0] for p in points]

    def inputs_at(values):
        if values == low:
            return tensors
        out = []
        for position, t in enumerate(tensors):
            shape = list(t.shape)
            for index, dim in dims.get(position, {}).items():
                shape[index] = values[symbols.index(dim)]
            out.append(zeros(shape, dtype=t.dtype, device=t.device))
        return out

    # The grid of Note [Sizes as expressions]: digit i of the trace's number
    # in base 3 picks symbol i's size; one more trace checks the fit.
    bindings = [[points[i][digits[i]] for i in range(len(symbols))]
                for digits in (tuple(reversed(d)) for d in itertools.product(range(3), repeat=len(symbols)))]
    if symbols and all(c is not None for c in check):
        bindings.append(check)
    weight_names = _weight_names(fn_or_module)
    traces, base_captured, structure = [], None, None
    with no_grad():
        for values in bindings:
            try:
                plan, captured, out_structure = _trace_once(fn_or_module, inputs_at(values), list(kwargs))
            except RuntimeError as e:
                if values == low or "graph break" in str(e):
                    raise
                moved = ", ".join(f"{s.__name__}={v}" for s, v in zip(symbols, values))
                raise RuntimeError(f"export: constraint violation: the program fails at {moved}, inside the "
                                   f"range of its dynamic dims, so it specialises them: {e}") from None
            if base_captured is None:
                base_captured, structure = captured, out_structure
            else:
                _check_same_weights(base_captured, captured, weight_names, symbols, values)
            traces.append((plan, values))
    names_of_weights = []
    for i, t in enumerate(base_captured):
        name = weight_names.get(_identity(t))
        names_of_weights.append(name if name is not None else f"_constant_{i}")
    program = _C._export_build([(s.__name__, s.min, s.max) for s in symbols], traces, names, names_of_weights,
                               base_captured, structure, codegen)
    return ExportedProgram(program)


def _check_same_weights(base, captured, weight_names, symbols, values):
    moved = ", ".join(f"{s.__name__}={v}" for s, v in zip(symbols, values))
    if len(base) != len(captured):
        raise RuntimeError(f"export: constraint violation: the program reads {len(base)} tensors from outside "
                           f"at its example sizes but {len(captured)} at {moved}")
    from .. import equal
    for i, (a, b) in enumerate(zip(base, captured)):
        if _identity(a) in weight_names or _identity(b) in weight_names:
            if _identity(a) != _identity(b):
                raise RuntimeError(f"export: constraint violation: the program reads different weights at {moved}")
        elif tuple(a.shape) != tuple(b.shape) or a.dtype != b.dtype or not equal(a, b):
            raise RuntimeError(f"export: constraint violation: the constant tensor {i} the program makes differs "
                               f"at {moved}; it depends on a dynamic dim")
