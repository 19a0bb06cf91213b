"""ember.utils: helpers that PyTorch keeps under torch.utils."""

import importlib

from . import dlpack


def __getattr__(name):
    # ember.utils.data loads on first use: multiprocessing and shared memory
    # are a third of `import ember` otherwise.
    if name in ("data", "checkpoint", "benchmark", "collect_env", "model_zoo"):
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
