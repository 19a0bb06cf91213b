// ember._C's side of ember.profiler: sessions, record_function ranges, and
// the Python stack capture for with_stack (ember/profiler.h).
#include <Python.h>
#include <frameobject.h>

#include <memory>
#include <string>
#include <vector>

#include "bindings.h"
#include "ember/profiler.h"

#include <pybind11/stl.h>

namespace py = pybind11;

namespace ember::python {
namespace {

constexpr size_t kMaxFrames = 128;

// Note [Profiler stacks]
// with_stack asks for the Python stack of every op. Ops run with the GIL
// released, so the capture takes it back on threads that have a Python
// thread state (their frames are still there) and gives none on threads
// Python never ran on (the autograd engine's, a plugin's). Taking the GIL at
// every op is why with_stack costs more than the rest of the profiler;
// ember.profiler drops the frames of the ember package itself.
void capture_python_stack(std::vector<std::string>& frames) noexcept {
  if (!Py_IsInitialized() || PyGILState_GetThisThreadState() == nullptr) return;
  const PyGILState_STATE gil = PyGILState_Ensure();
  try {
    PyFrameObject* frame = PyEval_GetFrame();  // borrowed
    Py_XINCREF(frame);
    while (frame != nullptr && frames.size() < kMaxFrames) {
      PyCodeObject* code = PyFrame_GetCode(frame);  // new reference
      const char* file = PyUnicode_AsUTF8(code->co_filename);
      const char* function = PyUnicode_AsUTF8(code->co_name);
      if (file != nullptr && function != nullptr) {
        frames.push_back(std::string(file) + "(" + std::to_string(PyFrame_GetLineNumber(frame)) + "): " + function);
      }
      PyErr_Clear();
      Py_DECREF(code);
      PyFrameObject* back = PyFrame_GetBack(frame);  // new reference
      Py_DECREF(frame);
      frame = back;
    }
    Py_XDECREF(frame);
  } catch (...) {
    // Out of memory building a frame: the op keeps the frames it has.
  }
  PyGILState_Release(gil);
}

py::object device_string(int32_t type, int32_t index) {
  if (type < 0) return py::none();
  return py::str(Device(static_cast<DeviceTypeId>(type), index).str());
}

// One event as a tuple, in the order ember/profiler/_events.py reads it:
// cheaper than an object per event for the many a session holds.
py::tuple event_tuple(const profiler::ProfilerEvent& e) {
  py::list shapes;
  for (const auto& shape : e.input_shapes) shapes.append(py::cast(shape));
  return py::make_tuple(static_cast<int>(e.kind), e.name, e.start_ns, e.end_ns, e.thread_id,
                        device_string(e.device_type, e.device_index), e.id, e.parent_id, shapes,
                        py::cast(e.input_dtypes), py::cast(e.stack), e.bytes, e.address, e.total_allocated,
                        e.total_reserved, e.peak_allocated, e.detail);
}

}  // namespace

void bind_profiler(py::module_& m) {
  profiler::set_stack_capture(&capture_python_stack);
  m.def(
      "_profiler_start",
      [](bool record_shapes, bool profile_memory, bool with_stack) {
        profiler::start({record_shapes, profile_memory, with_stack});
      },
      py::arg("record_shapes") = false, py::arg("profile_memory") = false, py::arg("with_stack") = false);
  m.def("_profiler_stop", [] {
    std::vector<profiler::ProfilerEvent> events;
    {
      // Threads recording with_stack take the GIL while they hold nothing
      // stop() waits for, but stop() waits for their buffers: let them run.
      py::gil_scoped_release no_gil;
      events = profiler::stop();
    }
    py::list result;
    for (const auto& e : events) result.append(event_tuple(e));
    return result;
  });
  m.def("_profiler_enabled", &profiler::is_enabled);
  m.def("_profiler_timed_device_types", &profiler::timed_device_types);
  py::class_<profiler::RecordFunction>(m, "_RecordFunction")
      .def(py::init<std::string_view>(), py::arg("name"))
      .def("end", &profiler::RecordFunction::end);
}

}  // namespace ember::python
