"""Run by check_wheel.sh after it pip-installs samples/backend_template (the
wheel ember-emu) beside the core wheel: `import ember` must find the plugin
through its entry point alone, and its device must work."""

import pathlib

import ember
import ember_emu

plugins = {p.name: p for p in ember.plugins()}
emu = plugins["emu"]
assert emu.loaded, emu.error
package = pathlib.Path(ember_emu.__file__).parent.resolve()
assert pathlib.Path(emu.path).resolve().is_relative_to(package), emu.path

device_types = [info.device.type for info in ember.devices()]
assert "emu" in device_types, device_types

x = ember.arange(4.0, device="emu")
assert (x * 2 + 1).cpu().tolist() == [1.0, 3.0, 5.0, 7.0]
print("plugin wheel ok:", emu.path)
