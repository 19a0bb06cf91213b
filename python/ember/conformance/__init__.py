"""The conformance kit from Python: ``python -m ember.conformance --device <type>``
runs the ``ember-conformance`` program shipped with Ember on the plugin that
provides that device type (see ``sdk/docs/writing-a-backend.md``)."""

import os
import shutil
import subprocess

import ember

PROGRAM = "ember-conformance"


def find_program():
    """The kit's program: next to the installed package (the wheel puts it in
    ``ember/bin``), in the build tree the extension was built in, or on PATH."""
    package_dir = os.path.dirname(os.path.abspath(ember._C.__file__))
    for candidate in (os.path.join(package_dir, "bin", PROGRAM),
                      os.path.join(package_dir, os.pardir, os.pardir, "bin", PROGRAM)):
        if os.access(candidate, os.X_OK):
            return os.path.normpath(candidate)
    found = shutil.which(PROGRAM)
    if found is None:
        raise FileNotFoundError(f"{PROGRAM} was not found next to the ember package ({package_dir}) nor on PATH")
    return found


def plugin_for_device(device_type):
    """The library file of the loaded plugin that provides ``device_type``."""
    available = []
    for plugin in ember.plugins():
        if plugin.loaded:
            if plugin.device_type == device_type:
                return plugin.path
            available.append(plugin.device_type)
    raise ValueError(f"no loaded plugin provides device type '{device_type}' "
                     f"(loaded: {', '.join(available) or 'none'})")


def run(device_type, options=()):
    """Runs the kit on the plugin of ``device_type``; returns its exit status
    (0 when every check passed, 1 on a failure, 2 on bad usage)."""
    return subprocess.call([find_program(), plugin_for_device(device_type), *options])
