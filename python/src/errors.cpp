// ember::Error carries an ErrorKind; each kind becomes the exception a
// PyTorch user would catch, with the core's message unchanged.
#include <Python.h>

#include "bindings.h"
#include "ember/error.h"

namespace ember::python {
namespace {

PyObject* exception_type(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Value: return PyExc_ValueError;
    case ErrorKind::Type: return PyExc_TypeError;
    case ErrorKind::Index: return PyExc_IndexError;
    case ErrorKind::NotImplemented: return PyExc_NotImplementedError;
    case ErrorKind::OutOfMemory: return PyExc_MemoryError;
    case ErrorKind::Runtime: break;
  }
  return PyExc_RuntimeError;
}

}  // namespace

void bind_errors(pybind11::module_&) {
  pybind11::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const Error& e) {
      PyErr_SetString(exception_type(e.kind()), e.what());
    }
  });
}

}  // namespace ember::python
