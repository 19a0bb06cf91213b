"""torch._dynamo's names that libraries and training scripts call
(is_compiling, disable, reset, config.cache_size_limit, mark_dynamic,
graph_break, optimize, explain), over ember.compiler. Ember's compiler
traces through the dispatcher rather than Python bytecode, so the hints
for PyTorch's bytecode tracer (mark_dynamic, mark_static, allow_in_graph)
are accepted and change nothing: a dimension whose size changes becomes
dynamic on the recompile it causes."""

import functools

from .. import compiler
from ..compiler import allow_in_graph, disable, is_compiling, reset
from ..compiler import config  # noqa: F401  (torch._dynamo.config.cache_size_limit)

__all__ = ["allow_in_graph", "config", "disable", "explain", "graph_break", "is_compiling", "mark_dynamic",
           "mark_static", "maybe_mark_dynamic", "optimize", "reset"]


def mark_dynamic(t, index, *, min=None, max=None, specialize_on=None):  # noqa: A002  (PyTorch's names)
    """Accepted: dims become dynamic when a size change recompiles."""


maybe_mark_dynamic = mark_static = mark_dynamic


@disable
def graph_break():
    """Ends the graph being captured here; compiled code resumes after it."""


def optimize(backend="inductor", *, nopython=False, dynamic=None, disable=False, **kwargs):
    """torch._dynamo.optimize(backend): a decorator compiling with Ember's backend (PyTorch's backend names
    mean Ember's compiler here; a callable backend is passed on)."""
    chosen = backend if callable(backend) else "ember"
    if disable:
        return lambda fn: fn
    return lambda fn: compiler.compile(fn, fullgraph=nopython, dynamic=dynamic, backend=chosen)


def explain(fn, *args, **kwargs):
    """explain(fn)(*args), or the older explain(fn, *args): ember.compiler.explain's report of one call."""
    if args or kwargs:
        return compiler.explain(fn, *args, **kwargs)
    return functools.partial(compiler.explain, fn)
