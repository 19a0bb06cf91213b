"""DataParallel: runs a module on the accelerator's devices, the batch split
among them; here on one device (see DataParallel)."""

import itertools

from ... import _C
from ... import accelerator
from ..modules.module import Module


class DataParallel(Module):
    """Wraps ``module`` (registered as ``self.module``, so its state dict keys
    start with ``module.``) to run on ``device_ids`` of the accelerator
    (ember.accelerator), all of them by default. Without an accelerator it
    calls the module as it is, as PyTorch does without a GPU. With one device
    it moves the inputs there and calls the module, whose parameters must be
    there already (``model.to(device)``). Splitting a batch across several
    devices needs module replicas whose gradients flow back to the one set of
    parameters, which Ember cannot build yet: more than one device is a
    NotImplementedError that says to pass one."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.dim = dim
        device_type = accelerator.current_accelerator(check_available=True)
        if device_type is None:
            self.device_ids, self.output_device, self.src_device_obj = [], None, None
            return
        if device_ids is None:
            device_ids = list(range(accelerator.device_count()))
        self.device_ids = [_index(device, device_type.type) for device in device_ids]
        if len(self.device_ids) > 1:
            raise NotImplementedError(
                f"DataParallel over {len(self.device_ids)} {device_type.type} devices: Ember cannot replicate a "
                "module across devices yet; pass device_ids=[0] to run it on one")
        if not self.device_ids:
            self.output_device, self.src_device_obj = None, None
            return
        self.output_device = self.device_ids[0] if output_device is None else _index(output_device, device_type.type)
        self.src_device_obj = _C.device(device_type.type, self.device_ids[0])

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for tensor in itertools.chain(self.module.parameters(), self.module.buffers()):
            if tensor.device != self.src_device_obj:
                raise RuntimeError(f"module must have its parameters and buffers on device {self.src_device_obj} "
                                   f"(device_ids[0]) but found one of them on device: {tensor.device}")
        return self.module(*_moved(inputs, self.src_device_obj), **_moved(kwargs, self.src_device_obj))


def _index(device, device_type):
    if isinstance(device, int):
        return device
    device = device if isinstance(device, _C.device) else _C.device(device)
    if device.type != device_type:
        raise ValueError(f"DataParallel: expected a {device_type} device, got {device}")
    return device.index or 0


def _moved(value, device):
    """``value`` with every tensor in its tuples, lists and dicts on ``device``."""
    if isinstance(value, _C.Tensor):
        return value.to(device)
    if isinstance(value, dict):
        return {key: _moved(item, device) for key, item in value.items()}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_moved(item, device) for item in value))
    if isinstance(value, (list, tuple)):
        return type(value)(_moved(item, device) for item in value)
    return value
