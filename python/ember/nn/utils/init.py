"""torch.nn.utils.skip_init: a module built without running its
initialisation, its parameters left as allocated (for weights about to be
loaded)."""

import inspect

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """module_cls(*args, **kwargs) built on the meta device, then given
    uninitialised memory on the device asked for (CPU by default)."""
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = "meta"
    return module_cls(*args, **kwargs).to_empty(device=final_device)
