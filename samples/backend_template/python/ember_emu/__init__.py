"""Ember's backend template (an accelerator emulated on the CPU) as a pip
package: the shape every plugin wheel takes.

``ember`` finds the plugin through the ``ember.plugins`` entry point, which
names :func:`plugin`; nothing needs importing by hand.
"""

import os

__version__ = "0.1.0"


def plugin():
    """Where the plugin library is and which ABI major it was built for."""
    here = os.path.dirname(os.path.abspath(__file__))
    return {"path": os.path.join(here, "libember_plugin_emu.so"), "abi_major": 1}
