"""torch._dynamo's names that libraries and training scripts call
(is_compiling, disable, reset, config.cache_size_limit, mark_dynamic,
graph_break, optimize, explain), over ember.compiler. Ember's compiler
traces through the dispatcher rather than Python bytecode, so the hint for
PyTorch's bytecode tracer, allow_in_graph, changes nothing; mark_dynamic
and mark_static decide which dims of a tensor the next variant compiled for
it treats as dynamic, as in PyTorch."""

import functools

from .. import compiler
from ..compiler import allow_in_graph, disable, is_compiling, reset
from ..compiler import config  # noqa: F401  (torch._dynamo.config.cache_size_limit)

__all__ = ["allow_in_graph", "config", "disable", "explain", "graph_break", "is_compiling", "mark_dynamic",
           "mark_static", "maybe_mark_dynamic", "optimize", "reset"]


def _mark(t, attribute, index):
    dims = set(getattr(t, attribute, ()))
    dims.update([index] if isinstance(index, int) else index)
    setattr(t, attribute, dims)


def mark_dynamic(t, index, *, min=None, max=None, specialize_on=None):  # noqa: A002  (PyTorch's names)
    """Dims `index` of `t` are dynamic in the variants compiled for calls that pass it, from the first
    (sizes 0 and 1 stay specialized); `min`/`max` are accepted and not checked."""
    _mark(t, "_dynamo_dynamic_indices", index)


def maybe_mark_dynamic(t, index):
    """As mark_dynamic: a hint that dims `index` change size."""
    _mark(t, "_dynamo_weak_dynamic_indices", index)


def mark_static(t, index=None):
    """Dims `index` of `t` (every dim when None) stay static: a size change recompiles for the new size
    instead of making the dim dynamic."""
    _mark(t, "_dynamo_static_indices", range(t.dim()) if index is None else index)


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
