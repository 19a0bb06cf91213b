// Streams and events (ember/stream.h) for the `ember` package's Stream,
// Event and per-device modules (python/ember/_streams.py). Calls that may
// wait for a device release the GIL.
#include <pybind11/stl.h>

#include <cstdint>
#include <functional>

#include "bindings.h"
#include "ember/stream.h"
#include "ember/tensor.h"

namespace py = pybind11;

namespace ember::python {

void bind_streams(py::module_& m) {
  const auto no_gil = py::call_guard<py::gil_scoped_release>();
  py::class_<Stream>(m, "_Stream")
      .def_static("create", &Stream::create, py::arg("device"), no_gil)
      .def_static("default_stream", &Stream::default_stream, py::arg("device"))
      .def_property_readonly("device", &Stream::device)
      .def_property_readonly("stream_id", &Stream::id)
      .def_property_readonly("native_handle",
                             [](const Stream& s) { return reinterpret_cast<std::uintptr_t>(s.native_handle()); })
      .def("synchronize", &Stream::synchronize, no_gil)
      .def("query", &Stream::query, no_gil)
      .def("wait_stream", &Stream::wait_stream, py::arg("other"), no_gil)
      .def("__eq__", [](const Stream& a, const Stream& b) { return a == b; })
      .def("__hash__", [](const Stream& s) {
        return std::hash<uint64_t>()(s.id() ^ (uint64_t(uint16_t(s.device().type)) << 48) ^
                                     (uint64_t(uint32_t(s.device().index)) << 32));
      });
  py::class_<Event>(m, "_Event")
      .def(py::init<bool>(), py::arg("enable_timing") = false)
      .def_property_readonly("enable_timing", &Event::enable_timing)
      .def_property_readonly("device", &Event::device)
      .def("record", &Event::record, py::arg("stream"), no_gil)
      .def("wait", &Event::wait, py::arg("stream"), no_gil)
      .def("synchronize", &Event::synchronize, no_gil)
      .def("query", &Event::query, no_gil)
      .def("elapsed_time", &Event::elapsed_time, py::arg("end_event"), no_gil);
  m.def("_current_stream", &current_stream, py::arg("device"));
  m.def("_set_current_stream", &set_current_stream, py::arg("stream"));
  m.def("_record_stream", &record_stream, py::arg("tensor"), py::arg("stream"));
}

}  // namespace ember::python
