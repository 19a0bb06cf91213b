// The op catalogue and each device type's kernel table, for coverage reports
// (python -m ember.info).
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "bindings.h"
#include "casters.h"
#include "ember/plugins.h"

namespace py = pybind11;

namespace ember::python {

void bind_catalogue(py::module_& m) {
  py::class_<CatalogueOp>(m, "CatalogueOp")
      .def_readonly("name", &CatalogueOp::name)
      .def_readonly("num_inputs", &CatalogueOp::num_inputs)
      .def_readonly("num_outputs", &CatalogueOp::num_outputs)
      .def_readonly("composite", &CatalogueOp::composite)
      .def_readonly("abi_minor", &CatalogueOp::abi_minor)
      .def("__repr__", [](const CatalogueOp& op) {
        return "CatalogueOp(name='" + op.name + "', " + (op.composite ? "composite" : "primitive") + ")";
      });
  m.def("catalogue_ops", &catalogue_ops);
  m.def(
      "registered_kernels",
      [](const std::string& device_type) {
        std::vector<OpKernels> table;
        {
          // The first question about a device type may discover plugins.
          py::gil_scoped_release no_gil;
          table = registered_kernels(device_type);
        }
        py::dict out;
        for (const OpKernels& entry : table) out[py::str(entry.op)] = py::cast(entry.dtypes);
        return out;
      },
      py::arg("device_type"));
}

}  // namespace ember::python
