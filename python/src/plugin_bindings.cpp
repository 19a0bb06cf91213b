// Plugins and devices from Python: explicit loading, the list of loaded and
// quarantined plugins, devices, and the caching allocator's statistics.
#include <ember/ember_plugin.h>
#include <pybind11/stl.h>

#include "bindings.h"
#include "ember/plugins.h"

namespace py = pybind11;

namespace ember::python {

void bind_plugins(py::module_& m) {
  py::class_<PluginInfo>(m, "PluginInfo")
      .def_readonly("name", &PluginInfo::name)
      .def_readonly("path", &PluginInfo::path)
      .def_readonly("version", &PluginInfo::version)
      .def_readonly("abi_major", &PluginInfo::abi_major)
      .def_readonly("abi_minor", &PluginInfo::abi_minor)
      .def_readonly("negotiated_minor", &PluginInfo::negotiated_minor)
      .def_readonly("device_type", &PluginInfo::device_type)
      .def_readonly("loaded", &PluginInfo::loaded)
      .def_readonly("error", &PluginInfo::error)
      .def_readonly("num_kernels", &PluginInfo::num_kernels)
      .def_readonly("skipped_ops", &PluginInfo::skipped_ops)
      .def("__repr__", [](const PluginInfo& p) {
        std::string out = "PluginInfo(name='" + p.name + "', path='" + p.path + "', ";
        if (p.loaded) return out + "loaded, " + std::to_string(p.num_kernels) + " kernels)";
        return out + "quarantined: " + p.error + ")";
      });
  py::class_<DeviceInfo>(m, "DeviceInfo")
      .def_readonly("device", &DeviceInfo::device)
      .def_readonly("name", &DeviceInfo::name)
      .def_readonly("total_memory", &DeviceInfo::total_memory)
      .def_readonly("compute_units", &DeviceInfo::compute_units)
      .def_readonly("plugin", &DeviceInfo::plugin)
      .def("__repr__", [](const DeviceInfo& d) {
        return "DeviceInfo(device='" + d.device.str() + "', name='" + d.name + "', plugin='" + d.plugin + "')";
      });

  m.attr("ABI_VERSION") = py::make_tuple(EMBER_ABI_VERSION_MAJOR, EMBER_ABI_VERSION_MINOR);
  // The VERSION file's, as the wheel's metadata has it (cmake/EmberVersion.cmake).
  m.attr("__version__") = EMBER_VERSION;
  // Loading runs a plugin's init, which may take long: no GIL held.
  const auto no_gil = py::call_guard<py::gil_scoped_release>();
  m.def("load_plugin", &load_plugin, py::arg("path"), no_gil);
  m.def("plugins", &plugins, no_gil);
  m.def("devices", &devices, no_gil);
  m.def("is_device_type_available", &is_device_type_available, py::arg("type"), no_gil);
  m.def("device_count", &device_count, py::arg("type"), no_gil);
  m.def("synchronize", &synchronize, py::arg("device"), no_gil);
  m.def("_set_kernel_timeout_ms", [](int64_t ms) { set_kernel_timeout(std::chrono::milliseconds(ms)); });
  m.def("_kernel_timeout_ms", [] { return kernel_timeout().count(); });
  m.def(
      "memory_stats",
      [](Device device) {
        const MemoryStats s = memory_stats(device);
        py::dict out;
        out["allocated_bytes"] = s.allocated;
        out["reserved_bytes"] = s.reserved;
        out["peak_allocated_bytes"] = s.peak_allocated;
        out["num_allocs"] = s.num_allocs;
        out["num_cache_hits"] = s.num_cache_hits;
        out["num_device_allocs"] = s.num_device_allocs;
        return out;
      },
      py::arg("device"));
  m.def("reset_peak_memory_stats", &reset_peak_memory_stats, py::arg("device"), no_gil);
  m.def("empty_cache", &empty_cache, py::arg("device"), no_gil);
}

}  // namespace ember::python
