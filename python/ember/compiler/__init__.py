"""ember.compiler, shaped like torch.compiler: compile functions and modules into fused kernels.

``ember.compile(fn)`` traces ``fn`` through the dispatcher's Trace step the first time it is
called with inputs of a new kind: Python runs once on tracing tensors, every op of the
catalogue is recorded into a graph, and the graph compiles into a plan of generated kernels
(through the device's code generator plugin) and extern calls. Python control flow and side
effects happen at trace time only, as with ``jax.jit``; tensors the function reads from
outside (parameters, closures, globals) are read again at every call. See docs/compiler.md.
"""

import functools

from .. import _C
from . import _config
from . import _config as config
from ._compiled import CompiledFunction
from ._graph import Graph, GraphModule, Node

__all__ = ["compile", "reset", "disable", "list_backends", "set_stance", "explain", "is_compiling",
           "is_dynamo_compiling", "is_exporting", "allow_in_graph", "assume_constant_result",
           "nested_compile_region", "substitute_in_graph", "cudagraph_mark_step_begin", "Graph", "GraphModule",
           "Node", "config"]

_BACKENDS = ("ember", "eager")


def list_backends():
    """Backend names ``compile(backend=...)`` takes; a callable backend is also accepted."""
    return list(_BACKENDS)


def _check_backend(backend):
    if callable(backend):
        return
    if backend not in _BACKENDS:
        raise ValueError(f"compile: unknown backend {backend!r}; expected one of {list(_BACKENDS)} or a callable "
                         f"backend(graph_module, example_inputs)")


class OptimizedModule:
    """A compiled nn.Module: calls run the compiled forward with the module's hooks; everything else
    (parameters, state_dict without any prefix, train()/eval(), to(), hooks) is the original module's."""

    def __init__(self, module, compiled_forward):
        object.__setattr__(self, "_orig_mod", module)
        object.__setattr__(self, "forward", compiled_forward)

    def __call__(self, *args, **kwargs):
        return self._orig_mod._call_with_hooks(self.forward, args, kwargs)

    def __getattr__(self, name):
        return getattr(self._orig_mod, name)

    def __setattr__(self, name, value):
        setattr(self._orig_mod, name, value)

    def train(self, mode=True):
        self._orig_mod.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def __repr__(self):
        return f"OptimizedModule({self._orig_mod!r})"


def compile(model=None, *, fullgraph=False, dynamic=None, backend="ember", mode=None, options=None):
    """Compiles a function or an nn.Module (also usable as ``@compile`` or ``@compile(...)``)."""
    _check_backend(backend)
    if model is None:
        return lambda fn: compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                  options=options)
    from ..nn import Module
    if isinstance(model, Module):
        compiled = CompiledFunction(model.forward, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                                    mode=mode, options=options, module=model)
        return OptimizedModule(model, compiled)
    if not callable(model):
        raise TypeError(f"compile: expected a function or an nn.Module, got {type(model).__name__}")
    if backend == "eager":
        return model
    compiled = CompiledFunction(model, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                options=options)

    @functools.wraps(model)
    def run(*args, **kwargs):
        return compiled(*args, **kwargs)

    run._ember_compiled = compiled
    return run


def reset():
    """Forgets every compiled variant of every compiled function."""
    _config.reset()


def set_stance(stance="default"):
    """"default", "force_eager", "eager_on_recompile" or "fail_on_recompile"; returns the previous one."""
    return _config.set_stance(stance)


class _Disabled:
    """ember.compiler.disable's region. Inside a trace it is a graph break: the code runs eagerly on
    real tensors and tracing goes on after it (Note [Eager regions])."""

    def __init__(self, what):
        self._region = _C._EagerRegion(f"ember.compiler.disable: {what} runs eagerly")

    def __enter__(self):
        _config._state["disabled"] += 1
        try:
            self._region.__enter__()
        except BaseException:
            _config._state["disabled"] -= 1
            raise
        return self

    def __exit__(self, *exc):
        try:
            self._region.__exit__(*exc)
        finally:
            _config._state["disabled"] -= 1


def disable(fn=None):
    """Runs ``fn`` (or, with no argument, a ``with`` block) eagerly, also when a compiled function
    reaches it: there it is a graph break, and compiled code resumes after it."""
    if fn is None:
        return _Disabled("a `with ember.compiler.disable()` block")

    @functools.wraps(fn)
    def run(*args, **kwargs):
        with _Disabled(getattr(fn, "__qualname__", repr(fn))):
            return fn(*args, **kwargs)

    return run


def is_compiling():
    """True while a function is being traced."""
    return _C._is_tracing_thread()


is_dynamo_compiling = is_compiling


def is_exporting():
    """True while ember.export captures a program on this thread."""
    return getattr(_config.exporting, "active", False)


def _unchanged(fn=None, **options):
    """A decorator (with or without options) that leaves the function as it is: Ember traces through Python,
    so what PyTorch's compiler needs told about a function, Ember's does not."""
    if fn is None:
        return lambda function: function
    return fn


allow_in_graph = assume_constant_result = nested_compile_region = _unchanged


def substitute_in_graph(original_fn, *, can_constant_fold_through=False, skip_signature_check=False):
    return lambda polyfill: polyfill


def cudagraph_mark_step_begin():
    """Nothing to mark: compiled graphs replay no CUDA graphs across steps."""


class ExplainOutput:
    def __init__(self, graphs, breaks, eager_reasons, recompiles, guards):
        self.graphs = graphs
        self.graph_count = len(graphs)
        self.break_reasons = breaks
        self.graph_break_count = len(breaks)
        self.eager_reasons = eager_reasons
        self.recompile_reasons = recompiles
        self.guards = guards
        self.ops_per_graph = [[n["op"] for n in g.graph["nodes"]] for g in graphs]
        self.kernels_per_graph = [g.num_kernels for g in graphs]

    def __str__(self):
        lines = [f"Graph count: {self.graph_count}", f"Graph break count: {self.graph_break_count}"]
        for i, g in enumerate(self.graphs):
            lines.append(f"Graph {i}: {len(g.graph['nodes'])} ops, {g.num_kernels} generated kernels, "
                         f"{g.num_extern_calls} extern calls, {g.num_in_place_updates} updates written in place")
            lines.extend("  eager: " + r for r in g.eager_reasons)
            lines.append("  " + g.graph["code"].replace("\n", "\n  "))
        for reason, location in self.break_reasons:
            lines.append(f"Break at {location}: {reason}")
        for reason in self.eager_reasons:
            lines.append(f"Runs eagerly: {reason}")
        for reason in self.recompile_reasons:
            lines.append(f"Recompile: {reason}")
        lines.append("Guards:")
        lines.extend("  " + g for g in self.guards)
        return "\n".join(lines)


def explain(fn, *args, **kwargs):
    """Compiles ``fn`` afresh, calls it once, and reports graphs, breaks, guards and eager parts."""
    target = getattr(fn, "_ember_compiled", None)
    if target is None:
        compiled = compile(fn)
        target = getattr(compiled, "_ember_compiled", None) or compiled.forward
        compiled(*args, **kwargs)
    else:
        target(*args, **kwargs)
    graphs, breaks, reasons = target.summary()
    guards = []
    for v in target.variants:
        guards.extend(v.guard.describe())
    return ExplainOutput(graphs, breaks, reasons, list(target.recompile_reasons), guards)

