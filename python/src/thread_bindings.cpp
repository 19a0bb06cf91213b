// ember.set_num_threads and ember.get_num_threads: the intra-op thread count
// of ember/threads.h, with torch.set_num_threads's argument rules; and the
// OpenMP wait policy that `python -m ember.info` reports.
#include <Python.h>

#include <climits>
#include <string>

#include "bindings.h"
#include "ember/error.h"
#include "ember/threads.h"

namespace py = pybind11;

namespace ember::python {
namespace {

// PyTorch takes any integer (an object with __index__) but bool, raises
// RuntimeError for other types and ValueError beyond a C int.
int thread_count_argument(const py::handle& value) {
  if (PyBool_Check(value.ptr()) || !PyIndex_Check(value.ptr())) {
    throw Error(ErrorKind::Runtime,
                std::string("set_num_threads expects an int, but got ") + Py_TYPE(value.ptr())->tp_name);
  }
  const auto index = py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr()));
  if (!index) throw py::error_already_set();
  int overflow = 0;
  const long long count = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (overflow != 0 || count > INT_MAX || count < INT_MIN) {
    throw py::value_error("set_num_threads: " + py::str(index).cast<std::string>() + " does not fit in a C int");
  }
  return static_cast<int>(count);
}

}  // namespace

void bind_threads(py::module_& m) {
  m.def(
      "set_num_threads",
      [](const py::object& value) {
        const int count = thread_count_argument(value);
        py::gil_scoped_release no_gil;  // the first call may discover plugins
        set_num_threads(count);
      },
      "set_num_threads(int)\n\nSets the number of threads used for intra-op parallelism on CPU.");
  m.def("get_num_threads", &get_num_threads, py::call_guard<py::gil_scoped_release>(),
        "get_num_threads() -> int\n\nReturns the number of threads used for intra-op parallelism on CPU.");
  m.def("_openmp_wait_policy", &openmp_wait_policy, py::call_guard<py::gil_scoped_release>());
}

}  // namespace ember::python
