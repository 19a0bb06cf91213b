// Python ints outside int64: Note [Integers too large for int64].
#include <Python.h>

#include <string>

#include "casters.h"

namespace ember::python {

void throw_int64_overflow(pybind11::handle value, PyObject* type) {
  const std::string text = pybind11::str(value);
  const char* what = type == PyExc_OverflowError ? "int too big to convert" : "Overflow when unpacking long long";
  PyErr_SetString(type, (std::string(what) + ": " + text + " does not fit in int64").c_str());
  throw pybind11::error_already_set();
}

int64_t int64_from_pylong(pybind11::handle src, PyObject* overflow_type) {
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(src.ptr(), &overflow);
  if (overflow != 0) throw_int64_overflow(src, overflow_type);
  if (v == -1 && PyErr_Occurred()) throw pybind11::error_already_set();
  return static_cast<int64_t>(v);
}

}  // namespace ember::python
