"""Reverse-mode automatic differentiation (ember.autograd), run by the C++ engine."""

import warnings

from .. import _C
from .function import Function, FunctionCtx
from .grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from . import profiler  # torch.autograd.profiler
from . import functional  # torch.autograd.functional
from . import graph  # torch.autograd.graph
from .anomaly_mode import detect_anomaly, set_detect_anomaly

__all__ = ["backward", "grad", "Function", "FunctionCtx", "no_grad", "enable_grad", "inference_mode",
           "set_grad_enabled", "gradcheck", "gradgradcheck", "GradcheckError", "Variable", "detect_anomaly",
           "set_detect_anomaly"]


def Variable(data, requires_grad=False, volatile=False):  # noqa: N802  (PyTorch's legacy constructor)
    """The legacy wrapper: the tensor itself, requiring grad when asked
    (PyTorch's Variable has been the Tensor since 0.4)."""
    return data.requires_grad_() if requires_grad else data


def _as_list(tensors):
    if tensors is None:
        return []
    if isinstance(tensors, _C.Tensor):
        return [tensors]
    return list(tensors)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates the gradients of ``tensors`` into the .grad of every leaf
    they depend on, or, given ``inputs``, of those tensors only (leaves or
    not), as PyTorch's does."""
    roots = _as_list(tensors)
    grads = _as_list(grad_tensors)
    if grads and len(grads) != len(roots):
        raise RuntimeError(f"backward: got {len(grads)} grad_tensors for {len(roots)} tensors")
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is None:
        _C._backward(roots, grads, retain_graph, create_graph)
        return
    targets = _as_list(inputs)
    if not targets:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    # As PyTorch's, a non-leaf input retains its gradient from now on, so later passes add to its .grad too.
    for target in targets:
        if not target.is_leaf:
            target.retain_grad()
    stores_before = [_retained_grad_stores(target) for target in targets]
    found = grad(roots, targets, grads or None, retain_graph=retain_graph, create_graph=create_graph,
                 allow_unused=True)
    with set_grad_enabled(create_graph):
        for target, stores, value in zip(targets, stores_before, found):
            # A retained gradient's hook has added the value already where the pass went on through the
            # tensor to another input; where the tensor only ends the pass, its hooks do not run.
            if value is None or _retained_grad_stores(target) != stores:
                continue
            value = value if create_graph else value.detach()
            target.grad = value if target.grad is None else target.grad + value


def _retained_grad_stores(tensor):
    """How many times Tensor.retain_grad's hook has stored into tensor.grad."""
    return getattr(tensor, "_retained_grad_stores", 0)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of ``outputs`` with respect to ``inputs``, as a tuple
    (a dict when ``inputs`` is a dict of tensors); no .grad changes. With
    ``is_grads_batched``, each grad_output's first dim is a batch of
    grad_outputs and each gradient gets that first dim (one backward pass
    per batch entry, where PyTorch vmaps one pass)."""
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
                      "gradient for other parts of the graph, please use torch.autograd.backward.", FutureWarning,
                      stacklevel=2)
    if isinstance(inputs, dict):
        names = list(inputs)
        found = grad(outputs, [inputs[name] for name in names], grad_outputs, retain_graph, create_graph,
                     allow_unused=allow_unused, is_grads_batched=is_grads_batched,
                     materialize_grads=materialize_grads)
        return dict(zip(names, found))
    outputs = _as_list(outputs)
    inputs_list = _as_list(inputs)
    if retain_graph is None:
        retain_graph = create_graph
    allow_unused = bool(allow_unused) or materialize_grads
    if is_grads_batched:
        grads = _batched_grads(outputs, inputs_list, _as_list(grad_outputs), retain_graph, create_graph,
                               allow_unused)
    else:
        grads = _C._grad(outputs, inputs_list, _as_list(grad_outputs), retain_graph, create_graph, allow_unused)
    if materialize_grads:
        grads = [g if g is not None else _C._zeros(list(x.shape), x.dtype, x.device)
                 for g, x in zip(grads, inputs_list)]
    return tuple(grads)


def _batched_grads(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused):
    if len(grad_outputs) != len(outputs) or any(g is None or g.dim() == 0 for g in grad_outputs):
        raise RuntimeError("grad: is_grads_batched=True needs one grad_output per output, each with a batch dim "
                           "first")
    batch = grad_outputs[0].shape[0]
    if any(g.shape[0] != batch for g in grad_outputs):
        raise RuntimeError(f"grad: is_grads_batched=True needs grad_outputs of one batch size, got "
                           f"{[g.shape[0] for g in grad_outputs]}")
    per_entry = [_C._grad(outputs, inputs, [g[i] for g in grad_outputs], retain_graph or i + 1 < batch,
                          create_graph, allow_unused) for i in range(batch)]
    return [None if found[0] is None else _C.stack(list(found)) for found in zip(*per_entry)]


from . import forward_ad  # noqa: E402  (torch.autograd.forward_ad; it calls grad above)
