"""Run by check_wheel.sh after it pip-installs a plugin wheel beside the core
wheel: `plugin_wheel_smoke.py <device type> <package> [--device-optional]`
(emu ember_emu for samples/backend_template, xpu ember_xpu for plugins/xpu,
rocm ember_rocm --device-optional for plugins/rocm). `import ember` must
find the plugin through its entry point alone, load it from the package's
folder, and its device must compute; with --device-optional, a machine
without that device passes once the plugin has loaded and reports none."""

import importlib
import importlib.metadata
import pathlib
import sys

import ember

device_type, package_name, *options = sys.argv[1:]
assert options in ([], ["--device-optional"]), options
plugins = {p.name: p for p in ember.plugins()}
plugin = plugins[device_type]
assert plugin.loaded, plugin.error
package = pathlib.Path(importlib.import_module(package_name).__file__).parent.resolve()
assert pathlib.Path(plugin.path).resolve().is_relative_to(package), plugin.path

# The package, its wheel's metadata and the plugin library report one version.
module = importlib.import_module(package_name)
distribution = package_name.replace("_", "-")
assert plugin.version == module.__version__ == importlib.metadata.version(distribution), plugin.version

device_types = [info.device.type for info in ember.devices()]
if device_type not in device_types and options:
    print(f"plugin wheel ok: {plugin.path} ({plugin.num_kernels} kernels), no {device_type} device here")
    sys.exit(0)
assert device_type in device_types, device_types

x = ember.arange(4.0, device=device_type)
assert (x * 2 + 1).cpu().tolist() == [1.0, 3.0, 5.0, 7.0]
print("plugin wheel ok:", plugin.path)
