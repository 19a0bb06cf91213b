"""check_plugin_loads.py <plugin library>: in a Python process, `import
ember` loads the CPU plugin (and with it oneDNN and the OpenMP runtime)
before it reaches <plugin library> on EMBER_PLUGIN_PATH, as in a user's
program; the plugin must load all the same, and without its device report
none. Also fails if a library of Ember's in this process asks for static
TLS."""

# Note [No static TLS]
# glibc keeps a few hundred bytes of static TLS for libraries loaded after
# the program starts. A library whose code reads any thread_local with the
# initial-exec model (DF_STATIC_TLS) must have its whole TLS block there, and
# once that space is gone every later such library fails to load with
# "cannot allocate memory in static TLS block". Vendor runtimes need it: HIP's
# libamdhip64 takes 272 bytes, libgomp 136. Ember's own libraries are loaded
# before any device plugin, so they keep their thread-locals in the default
# (dynamic) model and leave that space to the vendors.

import os
import subprocess
import sys

import ember

library = os.path.realpath(sys.argv[1])
plugins = {os.path.realpath(p.path): p for p in ember.plugins()}
assert library in plugins, f"{library} was not found; plugins: {list(plugins)}"
plugin = plugins[library]
assert plugin.loaded, f"{plugin.name} did not load into Python: {plugin.error}"
devices = [info.device.type for info in ember.devices()]
print(f"{plugin.name}: loaded, {plugin.num_kernels} kernels, devices: {devices}")

with open("/proc/self/maps") as maps:
    mapped = {line.split()[-1] for line in maps if "/" in line}
ours = sorted(path for path in mapped if os.path.basename(path).startswith(("libember", "_C.")))
assert any("libember_runtime" in path for path in ours), ours
for path in ours:
    dynamic = subprocess.run(["readelf", "-dW", path], capture_output=True, text=True, check=True).stdout
    assert "STATIC_TLS" not in dynamic, f"{path} asks for static TLS (Note [No static TLS])"
print("no static TLS in", len(ours), "libraries of Ember's")
