"""torch.autograd.graph: hooks on what autograd saves for the backward pass
(saved_tensors_hooks, save_on_cpu, disable_saved_tensors_hooks) and on the
gradients of several tensors at once (register_multi_grad_hook).

Saved-tensor hooks are per thread, as in PyTorch. Ember runs the pack hook
when an op's record is complete, so a custom Function's saved output is
packed as a tensor without history; the unpacked output gets its history
back. Tensors a hook saves while it runs are not packed again, and an
unpacked tensor is not checked against in-place changes (its version lies
with whatever the pack hook returned)."""

import threading

from .. import _C

__all__ = ["Node", "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "register_multi_grad_hook"]

Node = _C.Node

_disabled = threading.local()


class saved_tensors_hooks:  # noqa: N801  (PyTorch's name)
    """Within the block, each tensor saved for backward is replaced by
    pack_hook(tensor), and unpack_hook(that) gives it back when the backward
    needs it."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        message = getattr(_disabled, "message", None)
        if message is not None:
            raise RuntimeError(message)
        _C._push_saved_tensors_hooks(self.pack_hook, self.unpack_hook)
        return self

    def __exit__(self, *exc_info):
        _C._pop_saved_tensors_hooks()
        return False


class save_on_cpu(saved_tensors_hooks):  # noqa: N801
    """Saved tensors kept in host memory during the forward pass and moved
    back to their device for the backward (pin_memory is accepted; Ember's
    host memory is not pinned)."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack_to_cpu(tensor):
            return tensor.device, tensor.to("cpu", copy=tensor.device.type == "cpu")

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


class disable_saved_tensors_hooks:  # noqa: N801
    """Within the block, entering saved_tensors_hooks raises RuntimeError(error_message)."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        self._previous = getattr(_disabled, "message", None)
        _disabled.message = self.error_message
        return self

    def __exit__(self, *exc_info):
        _disabled.message = self._previous
        return False


class _MultiHandle:
    def __init__(self, handles):
        self._handles = handles

    def remove(self):
        for handle in self._handles:
            handle.remove()


class _PendingGrads(threading.local):
    """The gradients one backward pass has given so far, per thread, since
    passes on different threads run apart."""

    grads = None


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """mode "all": fn(grads) once per backward pass that reaches any of the
    tensors, after their gradients are computed (None for those it did not
    reach); mode "any": fn(grad) with the first of them computed, once per
    pass."""
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    pending = _PendingGrads()

    def finish():
        grads, pending.grads = pending.grads, None
        if mode == "all":
            fn(tuple(grads))

    def hook_for(position):
        def hook(grad):
            if pending.grads is None:
                pending.grads = [None] * len(tensors)
                _C._queue_callback(finish)
                if mode == "any":
                    fn(grad)
            pending.grads[position] = grad
            return None

        return hook

    return _MultiHandle([tensor.register_hook(hook_for(i)) for i, tensor in enumerate(tensors)])
