"""torch.nn.utils.stateless: the older home of functional_call, which
ember.func has (running a module with other parameters and buffers)."""

import warnings

from ...func import functional_call as _functional_call

__all__ = ["functional_call"]


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    warnings.warn("This API is deprecated as of PyTorch 2.0 and will be removed in a future version of PyTorch. "
                  "Please use torch.func.functional_call instead which is a drop-in replacement.", FutureWarning,
                  stacklevel=2)
    args = () if args is None else args
    return _functional_call(module, parameters_and_buffers, args if isinstance(args, tuple) else (args,), kwargs,
                            tie_weights=tie_weights, strict=strict)
