// A tensor's bytes in and out of Python bytes-like objects: copies for the
// safetensors reader and writer (ember/serialization.py), and tensors that
// share a buffer's memory (ember.frombuffer, shared-memory tensors).
#include <pybind11/stl.h>

#include <cstring>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "bindings.h"
#include "casters.h"
#include "ember/error.h"
#include "ember/ops.h"
#include "ember/tensor.h"

namespace py = pybind11;

namespace ember::python {
namespace {

py::bytes tensor_bytes(const Tensor& t) {
  Tensor host = t.detach().to(Device(kCpuDeviceType, 0)).contiguous();
  const size_t nbytes = static_cast<size_t>(host.numel()) * host.element_size();
  return py::bytes(static_cast<const char*>(nbytes == 0 ? "" : host.data_ptr()), nbytes);
}

Tensor tensor_from_buffer(const py::buffer& buffer, size_t offset, DType dtype, const std::vector<int64_t>& shape) {
  const py::buffer_info info = buffer.request();
  const size_t available = static_cast<size_t>(info.size * info.itemsize);
  Tensor out = empty(shape, TensorOptions(dtype));
  const size_t nbytes = static_cast<size_t>(out.numel()) * out.element_size();
  if (offset > available || nbytes > available - offset) {
    throw_error(ErrorKind::Value, "tensor of " + std::to_string(nbytes) + " bytes at offset " +
                                      std::to_string(offset) + " does not fit a buffer of " +
                                      std::to_string(available) + " bytes");
  }
  if (nbytes != 0) std::memcpy(out.data_ptr(), static_cast<const char*>(info.ptr) + offset, nbytes);
  return out;
}

// Note [Tensors over Python buffers]: a tensor from ember.frombuffer shares
// the buffer's memory. Its storage holds the Py_buffer, and so a reference
// to the object that exported it, until the last tensor on that storage is
// gone; the release takes the GIL. Every tensor on such a storage can name
// its exporter (_buffer_owner): that is how a shared-memory tensor finds its
// mapping when it is sent to another process (ember/_shared_memory.py).
struct HeldBuffer {
  Py_buffer view;
  const Storage* storage = nullptr;
};

// Storage -> exporting object, for the storages alive. Read and written
// under the GIL only.
std::unordered_map<const Storage*, PyObject*>& buffer_owners() {
  static auto* owners = new std::unordered_map<const Storage*, PyObject*>();
  return *owners;
}

void release_held_buffer(void* context, void*) noexcept {
  auto* held = static_cast<HeldBuffer*>(context);
  // After the interpreter is gone there is nothing to give the buffer back to.
  if (!Py_IsInitialized()) return;
  py::gil_scoped_acquire gil;
  buffer_owners().erase(held->storage);
  PyBuffer_Release(&held->view);
  delete held;
}

[[noreturn]] void throw_value_error(const std::string& message) { throw py::value_error(message); }

// torch.frombuffer's checks and messages; count < 0 takes the rest of the buffer.
Tensor tensor_sharing_buffer(const py::object& buffer, DType dtype, int64_t count, int64_t offset) {
  auto held = std::make_unique<HeldBuffer>();
  bool read_only = false;
  if (PyObject_GetBuffer(buffer.ptr(), &held->view, PyBUF_SIMPLE | PyBUF_WRITABLE) != 0) {
    PyErr_Clear();
    if (PyObject_GetBuffer(buffer.ptr(), &held->view, PyBUF_SIMPLE) != 0) {
      PyErr_Clear();
      throw_value_error("object does not implement Python buffer protocol.");
    }
    read_only = true;
  }
  struct ReleaseOnError {
    HeldBuffer* held;
    ~ReleaseOnError() {
      if (held != nullptr) PyBuffer_Release(&held->view);
    }
  } guard{held.get()};
  const int64_t length = held->view.len;
  const auto element = static_cast<int64_t>(itemsize(dtype));
  if (length == 0 || count == 0) {
    throw_value_error("both buffer length (" + std::to_string(length) + ") and count (" + std::to_string(count) +
                      ") must not be 0");
  }
  if (offset < 0 || offset >= length) {
    throw_value_error("offset (" + std::to_string(offset) + " bytes) must be non-negative and no greater than "
                      "buffer length (" + std::to_string(length) + " bytes) minus 1");
  }
  if (count < 0 && (length - offset) % element != 0) {
    throw_value_error("buffer length (" + std::to_string(length - offset) + " bytes) after offset (" +
                      std::to_string(offset) + " bytes) must be a multiple of element size (" +
                      std::to_string(element) + ")");
  }
  if (count > 0 && count > (length - offset) / element) {
    throw_value_error("requested buffer length (" + std::to_string(count) + " * " + std::to_string(element) +
                      " bytes) after offset (" + std::to_string(offset) + " bytes) must not be greater than actual "
                      "buffer length (" + std::to_string(length) + " bytes)");
  }
  const int64_t elements = count > 0 ? count : (length - offset) / element;
  void* data = static_cast<char*>(held->view.buf) + offset;
  if (dtype == DType::Bool) {
    // Kernels read a bool as one byte that is 0 or 1, as the safetensors reader checks too.
    const auto* bytes = static_cast<const unsigned char*>(data);
    for (int64_t i = 0; i < elements; ++i) {
      if (bytes[i] > 1) {
        throw_value_error("frombuffer: byte " + std::to_string(offset + i) + " of the buffer is " +
                          std::to_string(bytes[i]) + ", not 0 or 1 as a bool element must be");
      }
    }
  }
  auto storage = std::make_shared<Storage>(data, static_cast<size_t>(elements * element), Device(kCpuDeviceType, 0),
                                           &release_held_buffer, held.get());
  guard.held = nullptr;
  held->storage = storage.get();
  buffer_owners()[storage.get()] = held->view.obj;
  held.release();
  if (read_only) storage->set_read_only();
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), dtype, std::vector<int64_t>{elements},
                                             std::vector<int64_t>{1}, 0));
}

// (address of the storage's first byte, its bytes): what Tensor.untyped_storage() reports.
std::pair<uintptr_t, size_t> storage_extent(const Tensor& t) {
  const Storage& storage = *t.impl()->storage();
  return {reinterpret_cast<uintptr_t>(storage.data()), storage.nbytes()};
}

py::object buffer_owner(const Tensor& t) {
  const auto found = buffer_owners().find(t.impl()->storage().get());
  if (found == buffer_owners().end()) return py::none();
  return py::reinterpret_borrow<py::object>(found->second);
}

}  // namespace

void bind_buffers(py::module_& m) {
  m.def("_tensor_sharing_buffer", &tensor_sharing_buffer, py::arg("buffer"), py::arg("dtype"), py::arg("count"),
        py::arg("offset"));
  m.def("_buffer_owner", &buffer_owner, py::arg("tensor"));
  m.def("_storage_extent", &storage_extent, py::arg("tensor"));
  m.def("_tensor_bytes", &tensor_bytes, py::arg("tensor"));
  m.def("_tensor_from_buffer", &tensor_from_buffer, py::arg("buffer"), py::arg("offset"), py::arg("dtype"),
        py::arg("shape"));
}

}  // namespace ember::python
