// A tensor's bytes in and out of Python bytes-like objects, for the
// safetensors reader and writer (ember/serialization.py). Always copies.
#include <pybind11/stl.h>

#include <cstring>
#include <string>
#include <vector>

#include "bindings.h"
#include "casters.h"
#include "ember/error.h"
#include "ember/ops.h"

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

}  // namespace

void bind_buffers(py::module_& m) {
  m.def("_tensor_bytes", &tensor_bytes, py::arg("tensor"));
  m.def("_tensor_from_buffer", &tensor_from_buffer, py::arg("buffer"), py::arg("offset"), py::arg("dtype"),
        py::arg("shape"));
}

}  // namespace ember::python
