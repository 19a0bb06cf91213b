"""A compiled function: guarded variants, recompiles, graph breaks, stances."""

import inspect
import json
import os
import sys
import warnings

from .. import _C
from .. import _determinism
from ..autograd import grad_mode as _grad_mode
from .._C import Tensor
from . import _config
from ._graph import GraphModule
from ._guards import CallGuard
from ._pytree import flatten, flatten_call, unflatten

def _autograd_grad(*args, **kwargs):
    from .. import autograd
    return autograd.grad(*args, **kwargs)


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _user_location():
    """file:line of the innermost frame outside the ember package."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = os.path.abspath(frame.f_code.co_filename)
        if not filename.startswith(_PACKAGE_DIR + os.sep):
            return f"{frame.f_code.co_filename}:{frame.f_lineno}"
        frame = frame.f_back
    return ""


def _log(topic, text, **fields):
    """An EMBER_LOGS / EMBER_TRACE event (Note [Compile logs]), through the core's log, which also puts
    it in a running profile's trace."""
    if "EMBER_LOGS" in os.environ or "EMBER_TRACE" in os.environ or _C._profiler_enabled():
        _C._log_event(topic, text, json.dumps(dict(fields, message=text)))


class _Variant:
    """One compiled form of the function, for calls its guards accept."""

    def __init__(self, guard):
        self.guard = guard
        self.graphs = []          # plans (for explain)
        self.breaks = []          # (reason, location)
        self.eager_reason = None  # set when the function runs eagerly
        self.by_sizes = _Traces()  # dynamic variants: one trace per concrete size and integer
        self.segment_cache = _C._SegmentCache()
        self.training = None      # the last training plan (Note [Compiled training])


# Note [Traces of dynamic variants]
# A dynamic variant's kernels take sizes as launch parameters, but its Python
# runs again under the tracer for each new size or integer, and building that
# plan costs more than running the function eagerly (a small decoder: 2 ms
# against 0.5). So once a variant has a trace, a size or integer it meets for
# the first time runs eagerly, and only one met again is traced and kept: a
# loop over a few sizes compiles each of them on its second call, and a
# generation loop whose length grows at every step runs at eager speed instead
# of tracing every step. The traces kept, and the sizes met once, are bounded
# (config.traces_per_variant), the least recently used going first.
class _Traces(dict):
    """A dynamic variant's traces by concrete sizes and integers (Note [Traces of dynamic variants])."""

    def __init__(self):
        super().__init__()
        self.met_once = {}

    def get(self, key):
        found = self.pop(key, None)
        if found is not None:
            self[key] = found
        return found

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        _drop_oldest(self)

    def first_meeting(self, key):
        """Whether a variant with traces meets `key` for the first time (and so runs it eagerly)."""
        if not self or key == ():
            return False
        if key in self.met_once:
            del self.met_once[key]
            return False
        self.met_once[key] = None
        _drop_oldest(self.met_once)
        return True


def _drop_oldest(table):
    if len(table) > _config.traces_per_variant:
        del table[next(iter(table))]


# Note [Arguments changed in place]
# A compiled call replays the graph and never runs the function's Python, so
# a function that stores into a list or dict it is given (a KV cache held in
# a list, a dict of outputs) would leave it unchanged at every call after the
# trace, and its next call would compute something else than eager. The
# trace runs on rebuilt copies of the containers and compares them after
# the call; a function that changed one runs eagerly, with the reason in
# explain(), as PyTorch would replay the change.
class _ArgumentChanged(Exception):
    pass


class CompiledFunction:
    def __init__(self, fn, *, fullgraph=False, dynamic=None, backend="ember", mode=None, options=None,
                 module=None):
        self.fn = fn
        self.fullgraph = fullgraph
        self.dynamic = dynamic
        self.backend = backend
        self.mode = mode
        self.options = dict(options or {})
        self.module = module
        self.variants = []
        self.recompile_reasons = []
        self.limit_warned = False
        self._names = None
        self._module_state_version = None
        self._module_state = ()
        try:
            self._signature = inspect.signature(fn)
        except (TypeError, ValueError):
            self._signature = None
        _config.register(self)

    # --- naming of arguments for guard messages
    def _changed_argument(self, args, kwargs, spec, traced, targs, tkwargs):
        """What the traced call changed of the lists and dicts it was given (Note [Arguments changed in
        place]), in words, or None."""
        after, after_spec = flatten_call(targs, tkwargs)
        if after_spec != spec or len(after) != len(traced):
            return "the function adds to or removes from a list or dict it is given"
        for name, before, now in zip(self._leaf_names(args, kwargs, len(traced)), traced, after):
            if before is not now:
                return f"the function stores into {name}, part of a list or dict it is given"
        return None

    def _leaf_names(self, args, kwargs, count):
        if self._names is not None and len(self._names) == count:
            return self._names
        names = []
        params = list(self._signature.parameters) if self._signature is not None else []

        def walk(value, name):
            if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
                for i, item in enumerate(value):
                    walk(item, f"{name}[{i}]")
            elif isinstance(value, dict):
                for key, item in value.items():
                    walk(item, f"{name}[{key!r}]")
            else:
                names.append(name)

        for i, arg in enumerate(args):
            walk(arg, params[i] if i < len(params) else f"args[{i}]")
        for key, arg in kwargs.items():
            walk(arg, key)
        self._names = names
        return names

    def _module_modes(self):
        """Training flags and the identity of every parameter, buffer and submodule of a compiled
        module, recomputed only after a change (Note [Module state version])."""
        if self.module is None:
            return ()
        from ..nn.modules import module as module_file
        version = module_file._state_version[0]
        if self._module_state_version != version:
            modules = list(self.module.modules())
            self._module_state = (tuple(m.training for m in modules),
                                  tuple(id(t) for t in self.module.parameters()),
                                  tuple(id(t) for t in self.module.buffers()),
                                  tuple(id(m) for m in modules))
            self._module_state_version = version
        return self._module_state

    # --- calls
    def __call__(self, *args, **kwargs):
        stance = _config.stance()
        # Called while an outer compile or export traces, the function runs as Python so that the outer
        # trace records its ops (a compiled function inside another is inlined, as in PyTorch).
        if stance == "force_eager" or _config.disabled() or _C._is_tracing_thread():
            return self.fn(*args, **kwargs)
        leaves, spec = flatten_call(args, kwargs)
        modes = self._module_modes()
        closest = None  # the newest variant for arguments of this structure, else the first one
        for variant in self.variants:
            why = variant.guard.failure(leaves, spec, modes)
            if why is None:
                return self._run(variant, args, kwargs, leaves, spec)
            if closest is None or variant.guard.spec == spec:
                closest = (variant, why)
        if self.variants:
            reason = closest[1]
            if stance == "fail_on_recompile":
                raise RuntimeError(f"compile: recompilation forbidden by set_stance('fail_on_recompile'): {reason}")
            if stance == "eager_on_recompile":
                return self.fn(*args, **kwargs)
            if len(self.variants) >= _config.cache_size_limit:
                if not self.limit_warned:
                    self.limit_warned = True
                    warnings.warn(
                        f"compile: {getattr(self.fn, '__qualname__', self.fn)} reached the limit of "
                        f"{_config.cache_size_limit} compiled variants (cache_size_limit); the variants "
                        f"compiled so far keep serving, and calls they do not accept run eagerly. "
                        f"Last guard failure: {reason}", RuntimeWarning, stacklevel=2)
                return self.fn(*args, **kwargs)
            self.recompile_reasons.append(reason)
            _log("recompiles", f"recompiling {getattr(self.fn, '__qualname__', self.fn)}: {reason}",
                 function=str(getattr(self.fn, "__qualname__", self.fn)), reason=reason)
        dynamic_dims, dynamic_ints = self._automatic_dynamic(closest, leaves, spec)
        names = self._leaf_names(args, kwargs, len(leaves))
        variant = _Variant(CallGuard(names, leaves, spec, dynamic_dims, dynamic_ints, modes))
        self.variants.append(variant)
        return self._run(variant, args, kwargs, leaves, spec)

    def _automatic_dynamic(self, failure, leaves, spec):
        """The dims whose size change caused this recompile, and the integer arguments whose value did
        (dynamic=None); with dynamic=True, every dim and integer from the first call."""
        if self.dynamic is False:
            return {}, set()
        if self.dynamic is True:
            return ({i: range(leaf.dim()) for i, leaf in enumerate(leaves) if isinstance(leaf, Tensor)},
                    {i for i, leaf in enumerate(leaves) if type(leaf) is int})
        dims, ints = {}, set()
        if failure is not None and failure[0].guard.spec == spec:
            guard = failure[0].guard
            for i, tensor_guard in guard.tensors:
                changed = tensor_guard.size_changes(leaves[i])
                if changed is None:
                    dims = {}
                    break
                if changed or tensor_guard.dynamic:
                    dims[i] = set(changed) | set(tensor_guard.dynamic)
            else:
                ints = guard.int_changes(leaves)
        return _with_marked_dims(dims, leaves), ints

    def _run(self, variant, args, kwargs, leaves, spec):
        if variant.eager_reason is not None:
            return self.fn(*args, **kwargs)
        tensors = variant.guard.unique_tensors(leaves)
        dynamic = variant.guard.dynamic
        key = variant.guard.trace_key(leaves, tensors)
        compiled = variant.by_sizes.get(key)
        if compiled is not None:
            runner, captured, out_spec, positions, passthrough, training, reads = compiled
            inputs = list(tensors) + list(captured)
            if reads is not None:
                stale = reads.refresh(inputs, len(tensors))
                if stale is not None:
                    return self._retrace(variant, args, kwargs, leaves, spec, key, dynamic, stale)
            if training is not None:
                try:
                    real = training.run(inputs, self._eager_backward(variant, args, kwargs, inputs))
                except _C._StaleTrace as e:
                    return self._retrace(variant, args, kwargs, leaves, spec, key, dynamic, str(e))
            elif reads.start_requiring_grad(captured):
                return self._retrace(variant, args, kwargs, leaves, spec, key, dynamic,
                                     "a tensor the function reads requires grad now and did not when it was traced")
            else:
                real = runner(inputs)
            return _rebuild(out_spec, positions, real, passthrough)
        if variant.by_sizes.first_meeting(key):
            return self.fn(*args, **kwargs)
        return self._trace(variant, args, kwargs, leaves, spec, key, dynamic)

    def _retrace(self, variant, args, kwargs, leaves, spec, key, dynamic, reason):
        del variant.by_sizes[key]
        self.recompile_reasons.append(reason)
        _log("recompiles", f"recompiling {getattr(self.fn, '__qualname__', self.fn)}: {reason}",
             function=str(getattr(self.fn, "__qualname__", self.fn)), reason=reason)
        return self._trace(variant, args, kwargs, leaves, spec, key, dynamic)

    def _eager_backward(self, variant, args, kwargs, primals):
        """The gradients of `primals` from the function run eagerly with its history: what a
        backward with create_graph=True runs instead of the compiled one."""
        def backward(grads):
            variant.eager_reason_backward = (
                "backward with create_graph=True ran eagerly: higher-order gradients need the eager "
                "history, which a compiled backward does not record")
            with _grad_mode.enable_grad():
                out = self.fn(*args, **kwargs)
            outputs = [leaf for leaf in flatten(out)[0] if isinstance(leaf, Tensor)]
            pairs = [(o, g) for o, g in zip(outputs, grads)
                     if isinstance(g, Tensor) and o.requires_grad]
            wrt = [p for p in primals if p.requires_grad]
            found = iter(_autograd_grad([o for o, _ in pairs], wrt, [g for _, g in pairs],
                                        create_graph=True, allow_unused=True) if pairs and wrt else [])
            return [next(found, None) if p.requires_grad else None for p in primals]
        return backward

    def _trace(self, variant, args, kwargs, leaves, spec, key, dynamic):
        grad_mode_at_trace = _C.is_grad_enabled()
        deterministic = bool(self.options.get("deterministic", False)) or _determinism._state["enabled"]
        codegen = self.backend == "ember" or callable(self.backend)
        if callable(self.backend):
            codegen = False
        shared_views = variant.guard.shared_views()
        if shared_views is not None:
            variant.eager_reason = shared_views
            _log("graph_breaks", f"{getattr(self.fn, '__qualname__', self.fn)} runs eagerly: {shared_views}",
                 eager=shared_views)
            if self.fullgraph:
                raise RuntimeError(f"compile(fullgraph=True): {shared_views}")
            return self.fn(*args, **kwargs)
        tracer = _C._Tracer(fullgraph=self.fullgraph, dynamic=dynamic, deterministic=deterministic,
                            codegen=codegen, cache=variant.segment_cache, location=_user_location)
        try:
            try:
                traced, by_guard = [], []
                for leaf in leaves:
                    if isinstance(leaf, Tensor):
                        earlier, same = variant.guard.sharing[len(by_guard)]
                        by_guard.append(by_guard[earlier] if same else tracer.input(leaf))
                        traced.append(by_guard[-1])
                    else:
                        traced.append(leaf)
                targs, tkwargs = unflatten(spec, traced)
                out = self.fn(*targs, **tkwargs)
                changed = self._changed_argument(args, kwargs, spec, traced, targs, tkwargs)
                if changed is not None:
                    raise _ArgumentChanged(changed)
                out_leaves, out_spec = flatten(out)
                tensor_out = [leaf for leaf in out_leaves if isinstance(leaf, Tensor)]
                primals = variant.guard.unique_tensors(leaves)
                real = tracer.finish(tensor_out, self._eager_backward(variant, args, kwargs, primals))
                primals.extend(tracer.captured)
            finally:
                tracer.close()
        except (_C._TraceUnsupported, _ArgumentChanged) as e:
            variant.eager_reason = str(e)
            _log("graph_breaks", f"{getattr(self.fn, '__qualname__', self.fn)} runs eagerly: {e}", eager=str(e))
            if self.fullgraph:
                raise RuntimeError(f"compile(fullgraph=True): {e}") from None
            return self.fn(*args, **kwargs)
        positions = [i for i, leaf in enumerate(out_leaves) if isinstance(leaf, Tensor)]
        passthrough = list(out_leaves)
        variant.graphs.extend(tracer.segments)
        for reason, location in tracer.breaks:
            variant.breaks.append((reason, location))
            _log("graph_breaks", f"graph break at {location}: {reason}", location=location, reason=reason)
        training = tracer.training_plan
        if tracer.escaped:
            # The next call traces again (Note [Escaped tensors]).
            _log("recompiles", f"{getattr(self.fn, '__qualname__', self.fn)} keeps tensors it made; "
                 "the next call traces again")
        elif training is not None:
            variant.training = training
            variant.by_sizes[key] = (None, list(tracer.captured), out_spec, positions, passthrough, training, None)
        elif not tracer.breaks:
            plan = tracer.segments[0]
            runner = plan.run
            if callable(self.backend):
                gm = GraphModule(plan)
                example = variant.guard.unique_tensors(leaves) + list(tracer.captured)
                runner = _as_list_runner(self.backend(gm, example))
            reads = _CapturedReads(tracer.captured, tracer.captured_grad_owners, grad_mode_at_trace)
            variant.by_sizes[key] = (runner, list(tracer.captured), out_spec, positions, passthrough, None, reads)
        else:
            variant.breaks_seen = True
        return _rebuild(out_spec, positions, real, passthrough)

    # --- explain
    def summary(self):
        graphs, breaks, reasons = [], [], []
        for v in self.variants:
            graphs.extend(v.graphs)
            breaks.extend(v.breaks)
            if v.eager_reason:
                reasons.append(v.eager_reason)
            if getattr(v, "eager_reason_backward", None):
                reasons.append(v.eager_reason_backward)
        return graphs, breaks, reasons


class _CapturedReads:
    """What an inference plan must check of the tensors it reads from outside before it runs.

    A captured gradient is the parameter's ``.grad`` at the call, not the tensor the trace met
    (Note [Gradients read while tracing]). And a plan traced under grad mode saw which captured
    tensors required grad (an optimizer's step reads parameters under no_grad), so only one that
    starts requiring grad since makes a call trace again, for a plan that records derivatives."""

    def __init__(self, captured, grad_owners, grad_mode):
        read = [(i, owner, t) for i, (t, owner) in enumerate(zip(captured, grad_owners)) if owner is not None]
        self.grads = _C._CapturedGrads([i for i, _, _ in read], [owner for _, owner, _ in read],
                                       [t for _, _, t in read])
        self.seen_requiring = [grad_mode and t.requires_grad for t in captured]

    def refresh(self, inputs, offset):
        """Puts each parameter's present .grad into `inputs`; the reason to trace again, or None."""
        return self.grads.refresh(inputs, offset)

    def start_requiring_grad(self, captured):
        return _C.is_grad_enabled() and any(t.requires_grad and not seen
                                            for t, seen in zip(captured, self.seen_requiring))


def _with_marked_dims(dims, leaves):
    """`dims` with what mark_dynamic and maybe_mark_dynamic added to each tensor argument and without
    what mark_static took away (ember._dynamo)."""
    for i, leaf in enumerate(leaves):
        if not isinstance(leaf, Tensor):
            continue
        marked = getattr(leaf, "_dynamo_dynamic_indices", set()) | getattr(leaf, "_dynamo_weak_dynamic_indices", set())
        static = getattr(leaf, "_dynamo_static_indices", set())
        chosen = (dims.get(i, set()) | marked) - static
        if chosen:
            dims[i] = chosen
        else:
            dims.pop(i, None)
    return dims


def _as_list_runner(compiled):
    def run(inputs):
        out = compiled(*inputs)
        if isinstance(out, Tensor):
            return [out]
        return list(out)
    return run


def _rebuild(out_spec, positions, real, passthrough):
    if out_spec is None and positions:
        return real[0]
    leaves = list(passthrough)
    for position, tensor in zip(positions, real):
        leaves[position] = tensor
    return unflatten(out_spec, leaves)
