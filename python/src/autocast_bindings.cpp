// ember.autocast's thread state and regions (Note [Autocast]), and the cast
// the Python composites apply to their arguments.
#include <memory>
#include <string>

#include "bindings.h"
#include "ember/autocast.h"
#include "ember/device.h"

namespace py = pybind11;

namespace ember::python {
namespace {

DeviceTypeId type_named(const std::string& device_type) { return Device(device_type).type; }

// One `with ember.autocast(...)` block: the guard lives from __enter__ to
// __exit__, which Python calls in nesting order on the thread that entered.
class AutocastRegion {
 public:
  AutocastRegion(const std::string& device_type, DType dtype, bool enabled, bool cache_enabled)
      : type_(type_named(device_type)), dtype_(dtype), enabled_(enabled), cache_enabled_(cache_enabled) {}

  void enter() {
    if (guard_) throw py::value_error("autocast: this region was entered already and is not reentrant");
    guard_ = std::make_unique<autocast::AutocastGuard>(type_, dtype_, enabled_, cache_enabled_);
  }
  void exit() { guard_.reset(); }

 private:
  DeviceTypeId type_;
  DType dtype_;
  bool enabled_;
  bool cache_enabled_;
  std::unique_ptr<autocast::AutocastGuard> guard_;
};

autocast::CastPolicy policy_named(const std::string& name) {
  if (name == "lower_precision") return autocast::CastPolicy::LowerPrecision;
  if (name == "float32") return autocast::CastPolicy::Float32;
  throw py::value_error("autocast: unknown cast policy '" + name + "' (expected 'lower_precision' or 'float32')");
}

}  // namespace

void bind_autocast(py::module_& m) {
  py::class_<AutocastRegion>(m, "_AutocastRegion")
      .def(py::init<const std::string&, DType, bool, bool>(), py::arg("device_type"), py::arg("dtype"),
           py::arg("enabled"), py::arg("cache_enabled"))
      .def("enter", &AutocastRegion::enter)
      .def("exit", &AutocastRegion::exit);
  m.def("_autocast_is_enabled", [](const std::string& type) { return autocast::is_enabled(type_named(type)); });
  m.def("_autocast_dtype", [](const std::string& type) { return autocast::dtype(type_named(type)); });
  m.def("_autocast_set_enabled",
        [](const std::string& type, bool enabled) { autocast::set_enabled(type_named(type), enabled); });
  m.def("_autocast_set_dtype",
        [](const std::string& type, DType dtype) { autocast::set_dtype(type_named(type), dtype); });
  m.def("_autocast_clear_cache", &autocast::clear_cache);
  // What a compiled function's guards compare: the device types autocast is on for, with their dtypes.
  m.def("_autocast_state", [] {
    py::list enabled;
    for (DeviceTypeId type = 0; type < kMaxDeviceTypes; ++type) {
      if (autocast::is_enabled(type)) enabled.append(py::make_tuple(Device(type).type_name(), autocast::dtype(type)));
    }
    return py::tuple(enabled);
  });
  m.def("_autocast_any_enabled", &autocast::any_enabled);
  m.def("_autocast_cast",
        [](const Tensor& t, const std::string& policy) { return autocast::cast(t, policy_named(policy)); });
}

}  // namespace ember::python
