"""The Ember CUDA plugin (NVIDIA GPUs through the CUDA runtime and cuBLAS) as a
pip package.

``ember`` finds it through the ``ember.plugins`` entry point, which names
:func:`plugin`; nothing needs importing by hand. The plugin needs an NVIDIA
driver (the CUDA runtime is linked in; cuBLAS comes from the CUDA toolkit or
pip's nvidia-cublas). Without a GPU it loads and reports no device.
"""

import os

__version__ = "1.0.0"


def plugin():
    """Where the plugin library is and which ABI major it was built for."""
    here = os.path.dirname(os.path.abspath(__file__))
    return {"path": os.path.join(here, "ember", "plugins", "libember_plugin_cuda.so"), "abi_major": 1}
