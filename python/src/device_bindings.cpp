// ember.device: a device type and index ("cpu", "meta", "cuda:1"). Any
// function taking a device also takes its string.
#include <pybind11/operators.h>

#include <functional>
#include <string>

#include "bindings.h"
#include "ember/device.h"

namespace py = pybind11;

namespace ember::python {
namespace {

// PyTorch shows no index for a plain "cpu" or "meta".
py::object device_index(const Device& d) {
  if ((d.is_cpu() || d.is_meta()) && d.index == 0) return py::none();
  return py::int_(d.index);
}

}  // namespace

void bind_devices(py::module_& m) {
  py::class_<Device>(m, "device")
      .def(py::init<std::string_view>(), py::arg("type"))
      .def(py::init([](const std::string& type, int32_t index) {
             if (type.find(':') != std::string::npos) {
               throw py::value_error("device(): type '" + type + "' already has an index; pass the index once");
             }
             return Device(type + ":" + std::to_string(index));
           }),
           py::arg("type"), py::arg("index"))
      .def(py::init<const Device&>())
      .def_property_readonly("type", &Device::type_name)
      .def_property_readonly("index", &device_index)
      .def("__str__", &Device::str)
      .def("__repr__",
           [](const Device& d) {
             std::string out = "device(type='" + d.type_name() + "'";
             if (!device_index(d).is_none()) out += ", index=" + std::to_string(d.index);
             return out + ")";
           })
      .def(py::self == py::self)
      .def(py::self != py::self)
      .def("__hash__", [](const Device& d) { return std::hash<int64_t>()((int64_t{d.type} << 32) | d.index); })
      .def("__reduce__", [](const Device& d) {
        return py::make_tuple(py::module_::import("ember").attr("device"), py::make_tuple(d.str()));
      });
  py::implicitly_convertible<py::str, Device>();
}

}  // namespace ember::python
