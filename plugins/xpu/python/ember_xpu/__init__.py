"""The Ember XPU plugin (Intel GPUs through OpenCL) as a pip package.

``ember`` finds it through the ``ember.plugins`` entry point, which names
:func:`plugin`; nothing needs importing by hand. The wheel carries the OpenCL
ICD loader and CLBlast (``ember_xpu.libs``); the machine provides a driver
that registers itself in ``/etc/OpenCL/vendors``: ``intel-opencl-icd`` for
Intel GPUs, or ``pocl-opencl-icd`` for the CPU.
"""

import os

from . import _build_info

__version__ = _build_info.version


def plugin():
    """Where the plugin library is and the plugin ABI it speaks, which the core
    checks before it opens the library."""
    here = os.path.dirname(os.path.abspath(__file__))
    return {"path": os.path.join(here, "ember", "plugins", "libember_plugin_xpu.so"),
            "abi_major": _build_info.abi_major, "abi_minor": _build_info.abi_minor,
            "distribution": "ember-xpu", "version": __version__}
