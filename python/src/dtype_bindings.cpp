// ember.dtype: one immutable singleton per runtime dtype (ember.float32, ...),
// compared by identity like torch.dtype objects.
#include <array>
#include <string>

#include "bindings.h"
#include "casters.h"

namespace py = pybind11;

namespace ember::python {
namespace {

struct DTypeObject {
  DType value;
};

// Owned for the life of the process: the singletons must outlive every
// tensor that might still convert its dtype during interpreter shutdown.
std::array<PyObject*, kNumDTypes> g_dtype_objects{};
PyTypeObject* g_dtype_type = nullptr;

}  // namespace

py::object dtype_object(DType dtype) {
  return py::reinterpret_borrow<py::object>(g_dtype_objects[static_cast<size_t>(dtype)]);
}

bool dtype_from_object(py::handle obj, DType& out) {
  if (Py_TYPE(obj.ptr()) != g_dtype_type) return false;
  out = obj.cast<const DTypeObject&>().value;
  return true;
}

void bind_dtypes(py::module_& m) {
  auto cls = py::class_<DTypeObject>(m, "dtype");
  cls.def_property_readonly("is_floating_point", [](const DTypeObject& d) { return is_floating(d.value); })
      .def_property_readonly("is_signed",
                             [](const DTypeObject& d) {
                               return d.value != DType::Bool && d.value != DType::UInt8;
                             })
      .def_property_readonly("is_complex", [](const DTypeObject&) { return false; })
      .def_property_readonly("itemsize", [](const DTypeObject& d) { return itemsize(d.value); })
      .def("__repr__", [](const DTypeObject& d) { return "ember." + std::string(dtype_name(d.value)); })
      .def("__reduce__", [](const DTypeObject& d) { return std::string(dtype_name(d.value)); });
  g_dtype_type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  for (int i = 0; i < kNumDTypes; ++i) {
    const auto dtype = static_cast<DType>(i);
    py::object obj = py::cast(DTypeObject{dtype});
    g_dtype_objects[static_cast<size_t>(i)] = obj.inc_ref().ptr();
    m.attr(std::string(dtype_name(dtype)).c_str()) = obj;
  }
  m.def("get_default_dtype", [] { return default_float_dtype(); });
  m.def("set_default_dtype", [](DType dtype) { set_default_float_dtype(dtype); });
  m.def("promote_types", [](DType a, DType b) { return promote_types(a, b); });
}

}  // namespace ember::python
