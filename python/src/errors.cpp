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
// ember.distributed's DistError (a RuntimeError) and its two kinds, as in
// torch.distributed.
PyObject* g_dist_store_error = nullptr;
PyObject* g_dist_backend_error = nullptr;

PyObject* new_exception(const char* name, const char* doc, pybind11::tuple bases) {
  // Leaked, like the type of any extension module, so that it outlives every raise.
  PyObject* type = PyErr_NewExceptionWithDoc(name, doc, bases.release().ptr(), nullptr);
  if (type == nullptr) throw pybind11::error_already_set();
  return type;
}

PyObject* exception_type(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Value: return PyExc_ValueError;
    case ErrorKind::Type: return PyExc_TypeError;
    case ErrorKind::Index: return PyExc_IndexError;
    case ErrorKind::NotImplemented: return PyExc_NotImplementedError;
    case ErrorKind::OutOfMemory:
      return g_out_of_memory;
    case ErrorKind::DistributedStore: return g_dist_store_error;
    case ErrorKind::DistributedBackend: return g_dist_backend_error;
    case ErrorKind::Runtime: break;
  }
  return PyExc_RuntimeError;
}

}  // namespace

void bind_errors(pybind11::module_& m) {
  g_out_of_memory =
      new_exception("ember.OutOfMemoryError", "A device or host allocation failed.",
                    pybind11::make_tuple(pybind11::handle(PyExc_RuntimeError), pybind11::handle(PyExc_MemoryError)));
  m.attr("OutOfMemoryError") = pybind11::handle(g_out_of_memory);
  PyObject* dist_error = new_exception("ember.distributed.DistError", "A distributed operation failed.",
                                       pybind11::make_tuple(pybind11::handle(PyExc_RuntimeError)));
  g_dist_store_error = new_exception("ember.distributed.DistStoreError", "A store call failed or timed out.",
                                     pybind11::make_tuple(pybind11::handle(dist_error)));
  g_dist_backend_error =
      new_exception("ember.distributed.DistBackendError", "A collective, a peer or an engine failed.",
                    pybind11::make_tuple(pybind11::handle(dist_error)));
  m.attr("DistError") = pybind11::handle(dist_error);
  m.attr("DistStoreError") = pybind11::handle(g_dist_store_error);
  m.attr("DistBackendError") = pybind11::handle(g_dist_backend_error);
  pybind11::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const Error& e) {
      PyErr_SetString(exception_type(e.kind()), e.what());
    }
  });
}

}  // namespace ember::python
