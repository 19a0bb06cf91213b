// Exported programs (runtime/src/export) for python/ember/export.
#include <pybind11/stl.h>

#include "bindings.h"
#include "compile/plan.h"
#include "export/build_program.h"
#include "export/file_format.h"
#include "export/program.h"

namespace py = pybind11;

namespace ember::python {

using exported::Program;

namespace {

const char* structure_name(exported::OutputStructure s) {
  return s == exported::OutputStructure::Tensor ? "tensor" : s == exported::OutputStructure::List ? "list" : "tuple";
}

exported::OutputStructure structure_of(const std::string& name) {
  if (name == "tensor") return exported::OutputStructure::Tensor;
  if (name == "list") return exported::OutputStructure::List;
  if (name == "tuple") return exported::OutputStructure::Tuple;
  throw py::value_error("unknown output structure '" + name + "'");
}

py::list specs_of(const Program& p, const std::vector<exported::TensorSpec>& specs) {
  const std::vector<std::string> names = p.symbol_names();
  py::list out;
  for (const exported::TensorSpec& s : specs) {
    std::vector<std::string> shape;
    for (const exported::SymExpr& e : s.shape) shape.push_back(e.str(names));
    py::dict d;
    d["name"] = s.name;
    d["dtype"] = s.dtype;
    d["device"] = s.device;
    d["shape"] = shape;
    out.append(d);
  }
  return out;
}

}  // namespace

void bind_export(py::module_& m) {
  py::class_<Program, std::shared_ptr<Program>>(m, "_ExportedProgram")
      .def("run",
           [](const Program& p, const std::vector<Tensor>& inputs) {
             ExcludeDispatchKeysGuard no_trace(DispatchKeySet::of(DispatchKey::Trace));
             return p.run(inputs);
           })
      .def("save", [](const Program& p, const std::string& path) { exported::save_program(p, path); })
      .def_property_readonly("code", &Program::code)
      .def_property_readonly("symbols",
                             [](const Program& p) {
                               std::vector<std::tuple<std::string, int64_t, int64_t>> out;
                               for (const exported::Symbol& s : p.symbols) out.emplace_back(s.name, s.min, s.max);
                               return out;
                             })
      .def_property_readonly("input_specs", [](const Program& p) { return specs_of(p, p.inputs); })
      .def_property_readonly("weight_specs", [](const Program& p) { return specs_of(p, p.weights); })
      .def_property_readonly("output_specs", [](const Program& p) { return specs_of(p, p.output_specs()); })
      .def_property_readonly("weights", [](const Program& p) { return p.weight_values; })
      .def_property_readonly("output_structure", [](const Program& p) { return structure_name(p.output_structure); })
      .def_property_readonly("num_nodes", [](const Program& p) { return p.graph.nodes.size(); })
      .def_property_readonly("ops", [](const Program& p) {
        std::vector<std::string> out;
        for (const compile::Node& n : p.graph.nodes) out.push_back(p.graph.op_of(n).name());
        return out;
      });

  m.def(
      "_export_build",
      [](const std::vector<std::tuple<std::string, int64_t, int64_t>>& symbols,
         const std::vector<std::pair<std::shared_ptr<compile::Plan>, std::vector<int64_t>>>& traces,
         std::vector<std::string> input_names, std::vector<std::string> weight_names, std::vector<Tensor> weights,
         const std::string& output_structure, bool codegen) {
        exported::ProgramParts parts;
        for (const auto& [name, lo, hi] : symbols) parts.symbols.push_back(exported::Symbol{name, lo, hi});
        parts.input_names = std::move(input_names);
        parts.weight_names = std::move(weight_names);
        parts.weight_values = std::move(weights);
        parts.output_structure = structure_of(output_structure);
        std::vector<exported::Trace> all;
        for (const auto& [plan, values] : traces) all.push_back(exported::Trace{plan->graph(), values});
        std::shared_ptr<Program> p = exported::build_program(std::move(parts), all);
        p->codegen = codegen;
        return p;
      },
      py::arg("symbols"), py::arg("traces"), py::arg("input_names"), py::arg("weight_names"), py::arg("weights"),
      py::arg("output_structure"), py::arg("codegen"));
  m.def("_export_load", &exported::load_program, py::arg("path"));
}

}  // namespace ember::python
