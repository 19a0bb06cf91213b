"""The Ember XPU plugin (Intel GPUs through OpenCL) as a pip package.

``ember`` finds it through the ``ember.plugins`` entry point, which names
:func:`plugin`; nothing needs importing by hand. The plugin needs an OpenCL
ICD loader and CLBlast on the system (Debian: ``ocl-icd-libopencl1``,
``libclblast1``) and a driver: ``intel-opencl-icd`` for Intel GPUs, or
``pocl-opencl-icd`` for the CPU.
"""

import os

__version__ = "1.0.0"


def plugin():
    """Where the plugin library is and which ABI major it was built for."""
    here = os.path.dirname(os.path.abspath(__file__))
    return {"path": os.path.join(here, "ember", "plugins", "libember_plugin_xpu.so"), "abi_major": 1}
