// ember::Error carries an ErrorKind; each kind becomes the exception a
// PyTorch user would catch, with the core's message unchanged.
#include <Python.h>

#include "bindings.h"
#include "ember/error.h"

namespace ember::python {
namespace {

// ember.OutOfMemoryError: a RuntimeError, as PyTorch's allocation failures
// are (torch.OutOfMemoryError), and a MemoryError, as Python's are.
PyObject* g_out_of_memory = nullptr;

PyObject* exception_type(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Value: return PyExc_ValueError;
    case ErrorKind::Type: return PyExc_TypeError;
    case ErrorKind::Index: return PyExc_IndexError;
    case ErrorKind::NotImplemented: return PyExc_NotImplementedError;
    case ErrorKind::OutOfMemory:
      return g_out_of_memory;
    case ErrorKind::Runtime: break;
  }
  return PyExc_RuntimeError;
}

}  // namespace

void bind_errors(pybind11::module_& m) {
  // Leaked, like the type of any extension module, so that it outlives every raise.
  g_out_of_memory = PyErr_NewExceptionWithDoc(
      "ember.OutOfMemoryError", "A device or host allocation failed.",
      pybind11::make_tuple(pybind11::handle(PyExc_RuntimeError), pybind11::handle(PyExc_MemoryError)).release().ptr(),
      nullptr);
  if (g_out_of_memory == nullptr) throw pybind11::error_already_set();
  m.attr("OutOfMemoryError") = pybind11::handle(g_out_of_memory);
  pybind11::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const Error& e) {
      PyErr_SetString(exception_type(e.kind()), e.what());
    }
  });
}

}  // namespace ember::python
