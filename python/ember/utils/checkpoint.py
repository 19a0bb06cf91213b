"""torch.utils.checkpoint: activation checkpointing. `checkpoint(fn, *args)`
runs fn without keeping its intermediate tensors and runs it again in
backward to get them, trading compute for memory; `checkpoint_sequential`
does so segment by segment over a sequence of modules. Note [Recomputing
in backward] says how.
"""

import contextlib
import warnings

from .. import _C
from ..amp.autocast_mode import get_autocast_dtype, is_autocast_enabled, set_autocast_dtype, set_autocast_enabled
from ..autograd import backward as _backward
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, no_grad
from ..nn.modules.container import Sequential
from ..random import get_rng_state, set_rng_state

__all__ = ["checkpoint", "checkpoint_sequential"]

# Note [Recomputing in backward]
# The forward call is one autograd node whose inputs are fn's tensor
# arguments. Its backward restores the random state and the autocast state the
# forward saw (so dropout draws the same mask), runs fn again under grad mode
# on detached copies of the arguments, and runs backward through that second
# graph: the gradients of the arguments go back through the node, and those of
# the parameters fn used accumulate into their .grad there, as PyTorch's
# reentrant variant does. With use_reentrant=False the node also gets an empty
# input that requires grad, so it is recorded (and the parameters get their
# gradients) even when no argument requires grad, and keyword arguments are
# passed on. In both variants the parameters' gradients reach only .grad:
# autograd.grad and backward(inputs=...) through a checkpoint see the
# arguments' gradients only, where PyTorch's non-reentrant variant gives the
# parameters' too.

_AUTOCAST_DEVICE_TYPES = ("cpu",)


class _Recomputed(Function):
    @staticmethod
    def forward(ctx, run, *tensors):
        ctx.run = run
        ctx.save_for_backward(*tensors)
        with no_grad():
            outputs = run.call(tensors)
        single = isinstance(outputs, _C.Tensor)
        run.single_output = single
        return outputs if single else tuple(outputs)

    @staticmethod
    def backward(ctx, *grads):
        run = ctx.run
        saved = ctx.saved_tensors
        inputs = [t.detach().requires_grad_(t.requires_grad) for t in saved]
        with run.restored_state(), enable_grad():
            outputs = run.call(inputs)
        outputs = [outputs] if run.single_output else list(outputs)
        pairs = [(out, g) for out, g in zip(outputs, grads)
                 if isinstance(out, _C.Tensor) and out.requires_grad and g is not None]
        if pairs:
            _backward([out for out, _ in pairs], [g for _, g in pairs])
        return (None,) + tuple(t.grad if t.requires_grad else None for t in inputs)


class _Run:
    """fn with its arguments, and the state its forward ran in."""

    def __init__(self, function, args, kwargs, preserve_rng_state, extra_inputs):
        self.function = function
        self.args = args
        self.kwargs = kwargs
        self.positions = [i for i, arg in enumerate(args) if isinstance(arg, _C.Tensor)]
        self.extra_inputs = extra_inputs
        self.rng_state = get_rng_state() if preserve_rng_state else None
        self.autocast = _autocast_state()
        self.single_output = True

    def call(self, tensors):
        args = list(self.args)
        for position, tensor in zip(self.positions, tensors[self.extra_inputs:]):
            args[position] = tensor
        return self.function(*args, **self.kwargs)

    @contextlib.contextmanager
    def restored_state(self):
        """The random and autocast state of the forward, inside the block only."""
        rng_state = get_rng_state() if self.rng_state is not None else None
        if rng_state is not None:
            set_rng_state(self.rng_state)
        autocast = _autocast_state()
        _set_autocast_state(self.autocast)
        try:
            yield
        finally:
            if rng_state is not None:
                set_rng_state(rng_state)
            _set_autocast_state(autocast)


def _autocast_state():
    return {device: (is_autocast_enabled(device), get_autocast_dtype(device)) for device in _AUTOCAST_DEVICE_TYPES}


def _set_autocast_state(state):
    for device, (enabled, dtype) in state.items():
        set_autocast_enabled(device, enabled)
        set_autocast_dtype(device, dtype)


_USE_REENTRANT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch 2.9, "
    "calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is recommended, but if "
    "you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more "
    "details on the differences between the two variants.")


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default", debug=False,
               preserve_rng_state=True, early_stop=True, **kwargs):
    """function(*args, **kwargs) without its intermediate tensors kept
    (Note [Recomputing in backward])."""
    if use_reentrant is None:
        warnings.warn(_USE_REENTRANT_WARNING, stacklevel=2)
        use_reentrant = True
    if use_reentrant and context_fn is not None:
        raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
    if use_reentrant and kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if context_fn is not None:
        raise NotImplementedError("checkpoint: context_fn is not supported by Ember")
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check}")
    tensors = [arg for arg in args if isinstance(arg, _C.Tensor)]
    if not _C.is_grad_enabled():
        return function(*args, **kwargs)
    if use_reentrant:
        if not any(t.requires_grad for t in tensors):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)
        run = _Run(function, args, kwargs, preserve_rng_state, extra_inputs=0)
        return _Recomputed.apply(run, *tensors)
    run = _Run(function, args, kwargs, preserve_rng_state, extra_inputs=1)
    recorded = _C._empty([0], None, _C.device("cpu")).requires_grad_()
    return _Recomputed.apply(run, recorded, *tensors)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):  # noqa: A002
    """Runs a Sequential (or a list of modules) in `segments` pieces, all
    but the last checkpointed."""
    if use_reentrant is None:
        warnings.warn(_USE_REENTRANT_WARNING, stacklevel=2)
        use_reentrant = True
    if isinstance(functions, Sequential):
        functions = list(functions.children())
    functions = list(functions)
    segment_size = len(functions) // segments
    end = -1

    def run_segment(start, stop):
        def forward(x):
            for function in functions[start:stop + 1]:
                x = function(x)
            return x
        return forward

    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_segment(start, end), input, use_reentrant=use_reentrant, **kwargs)  # noqa: A001
    return run_segment(end + 1, len(functions) - 1)(input)

