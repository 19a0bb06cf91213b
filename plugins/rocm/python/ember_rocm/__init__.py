"""The Ember ROCm plugin (AMD GPUs through HIP) as a pip package.

``ember`` finds it through the ``ember.plugins`` entry point, which names
:func:`plugin`; nothing needs importing by hand. The plugin needs the HIP
runtime (Debian: libamdhip64-5) and an AMD driver. Without a GPU it loads
and reports no device.
"""

import os

from . import _build_info

__version__ = _build_info.version


def plugin():
    """Where the plugin library is and the plugin ABI it speaks, which the core
    checks before it opens the library."""
    here = os.path.dirname(os.path.abspath(__file__))
    return {"path": os.path.join(here, "ember", "plugins", "libember_plugin_rocm.so"),
            "abi_major": _build_info.abi_major, "abi_minor": _build_info.abi_minor,
            "distribution": "ember-rocm", "version": __version__}
