// ember.distributed's process groups and Work (runtime/src/distributed), the
// C++ half of ember/distributed/distributed_c10d.py. Collectives are queued
// without the GIL; a Work's wait gives it up too.
#include <pybind11/chrono.h>
#include <pybind11/stl.h>

#include <string>

#include "bindings.h"
#include "distributed/process_group.h"
#include "plugin/collective_engine.h"
#include "plugin/loader.h"

namespace py = pybind11;

namespace ember::python {

void bind_distributed(py::module_& m) {
  using distributed::ProcessGroup;
  using distributed::ReduceOp;
  using distributed::Work;
  py::module_ d = m.def_submodule("_distributed", "ember.distributed's process groups");

  py::enum_<ReduceOp>(d, "ReduceOp")
      .value("SUM", ReduceOp::Sum)
      .value("PRODUCT", ReduceOp::Product)
      .value("MIN", ReduceOp::Min)
      .value("MAX", ReduceOp::Max)
      .value("AVG", ReduceOp::Avg);

  py::class_<Work, distributed::WorkPtr>(d, "Work")
      .def(
          "wait",
          [](const Work& self, double timeout_seconds) {
            py::gil_scoped_release release;
            self.wait(distributed::Milliseconds(static_cast<int64_t>(timeout_seconds * 1000)));
            return true;
          },
          py::arg("timeout_seconds") = 0.0)
      .def("is_completed", &Work::is_completed)
      .def("is_success", &Work::is_success)
      .def("has_exception", [](const Work& self) { return static_cast<bool>(self.exception()); })
      .def("result", &Work::result)
      .def_property_readonly("description", &Work::description)
      .def("__repr__", [](const Work& self) { return "<Work " + self.description() + ">"; });

  py::class_<ProcessGroup, std::shared_ptr<ProcessGroup>>(d, "ProcessGroup")
      .def(py::init([](distributed::StorePtr store, int rank, int world_size, double timeout_seconds,
                       std::map<std::string, std::string> engines, std::string name, bool check_collectives,
                       bool log_collectives, std::string hostname) {
             distributed::ProcessGroupOptions options;
             options.rank = rank;
             options.world_size = world_size;
             options.timeout = distributed::Milliseconds(static_cast<int64_t>(timeout_seconds * 1000));
             options.engines = std::move(engines);
             options.name = std::move(name);
             options.check_collectives = check_collectives;
             options.log_collectives = log_collectives;
             options.hostname = std::move(hostname);
             py::gil_scoped_release release;
             return std::make_shared<ProcessGroup>(std::move(store), std::move(options));
           }),
           py::arg("store"), py::arg("rank"), py::arg("world_size"), py::arg("timeout_seconds"), py::arg("engines"),
           py::arg("name"), py::arg("check_collectives"), py::arg("log_collectives"), py::arg("hostname"))
      .def(
          "run",
          [](ProcessGroup& self, int kind, ReduceOp op, int root, uint32_t tag, std::vector<int64_t> input_splits,
             std::vector<int64_t> output_splits, double timeout_seconds, std::optional<Tensor> input,
             std::optional<Tensor> output, bool check, bool blocking) {
            distributed::CollectiveArgs args;
            args.kind = static_cast<ember_collective_kind>(kind);
            args.op = op;
            args.root = root;
            args.tag = tag;
            args.input_splits = std::move(input_splits);
            args.output_splits = std::move(output_splits);
            args.timeout = distributed::Milliseconds(static_cast<int64_t>(timeout_seconds * 1000));
            args.check = check;
            args.blocking = blocking;
            py::gil_scoped_release release;
            return self.run(args, input, output);
          },
          py::arg("kind"), py::arg("op"), py::arg("root"), py::arg("tag"), py::arg("input_splits"),
          py::arg("output_splits"), py::arg("timeout_seconds"), py::arg("input"), py::arg("output"),
          py::arg("check") = true, py::arg("blocking") = false)
      .def("shutdown",
           [](ProcessGroup& self) {
             py::gil_scoped_release release;
             self.shutdown();
           })
      .def_property_readonly("rank", &ProcessGroup::rank)
      .def_property_readonly("size", &ProcessGroup::size)
      .def_property_readonly("sequence", &ProcessGroup::sequence)
      .def_property_readonly("store", &ProcessGroup::store)
      .def_property_readonly("name", [](const ProcessGroup& self) { return self.options().name; })
      .def("engine_for", &ProcessGroup::engine_for);

  d.attr("ALL_REDUCE") = static_cast<int>(EMBER_COLLECTIVE_ALL_REDUCE);
  d.attr("BROADCAST") = static_cast<int>(EMBER_COLLECTIVE_BROADCAST);
  d.attr("ALL_GATHER") = static_cast<int>(EMBER_COLLECTIVE_ALL_GATHER);
  d.attr("REDUCE_SCATTER") = static_cast<int>(EMBER_COLLECTIVE_REDUCE_SCATTER);
  d.attr("REDUCE") = static_cast<int>(EMBER_COLLECTIVE_REDUCE);
  d.attr("GATHER") = static_cast<int>(EMBER_COLLECTIVE_GATHER);
  d.attr("SCATTER") = static_cast<int>(EMBER_COLLECTIVE_SCATTER);
  d.attr("ALL_TO_ALL") = static_cast<int>(EMBER_COLLECTIVE_ALL_TO_ALL);
  d.attr("SEND") = static_cast<int>(EMBER_COLLECTIVE_SEND);
  d.attr("RECV") = static_cast<int>(EMBER_COLLECTIVE_RECV);
  d.attr("BARRIER") = static_cast<int>(EMBER_COLLECTIVE_BARRIER);

  d.def("collective_engines", [] {
    plugin::discover_plugins();
    std::vector<py::dict> out;
    for (const plugin::CollectiveEngine* engine : plugin::collective_engines()) {
      py::dict entry;
      entry["name"] = engine->name();
      entry["plugin"] = engine->plugin_name();
      entry["version"] = engine->plugin_version();
      entry["device_types"] = engine->device_types();
      out.push_back(entry);
    }
    return out;
  });
}

}  // namespace ember::python
