// Factories with fixed signatures; ember/_factories.py gives them PyTorch's
// flexible ones (*size, requires_grad=...). tensor(data) from nested Python
// sequences is parsed here, in one pass that finds the shape and the kind.
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "casters.h"
#include "ember/error.h"
#include "ember/ops.h"
#include "op_helpers.h"

namespace py = pybind11;

namespace ember::python {
namespace {

// Values of a nested sequence in row-major order, with the widest kind seen
// (bool < int < float) deciding the dtype, as torch.tensor does.
struct NestedValues {
  std::vector<int64_t> shape;
  std::vector<Scalar> values;
  Scalar::Kind kind = Scalar::Kind::Bool;
};

bool is_sequence(py::handle obj) {
  return PyList_Check(obj.ptr()) || PyTuple_Check(obj.ptr()) || is_tensor(obj);
}

void collect(py::handle obj, size_t depth, NestedValues& out) {
  if (!is_sequence(obj)) {
    if (depth != out.shape.size()) {
      throw_error(ErrorKind::Value, "tensor(): expected a sequence at depth " + std::to_string(depth) +
                                        " like its siblings, got a number");
    }
    Scalar value;
    try {
      value = obj.cast<Scalar>();
    } catch (const py::cast_error&) {
      throw py::type_error("tensor(): could not convert an object of type " +
                           std::string(py::str(py::type::handle_of(obj).attr("__name__"))) + " to a number");
    }
    if (static_cast<int>(value.kind()) > static_cast<int>(out.kind)) out.kind = value.kind();
    out.values.push_back(value);
    return;
  }
  const auto seq = py::reinterpret_borrow<py::sequence>(obj);
  const auto length = static_cast<int64_t>(py::len(seq));
  if (depth == out.shape.size() && out.values.empty()) {
    out.shape.push_back(length);
  } else if (depth >= out.shape.size() || out.shape[depth] != length) {
    throw_error(ErrorKind::Value, "tensor(): expected a sequence of length " +
                                      (depth < out.shape.size() ? std::to_string(out.shape[depth]) : "0") +
                                      " at dim " + std::to_string(depth) + " (got " + std::to_string(length) + ")");
  }
  for (py::handle item : seq) collect(item, depth + 1, out);
}

template <typename T>
Tensor typed_tensor(const NestedValues& nested, TensorOptions options, T (Scalar::*get)() const) {
  std::vector<T> values;
  values.reserve(nested.values.size());
  for (const Scalar& s : nested.values) values.push_back((s.*get)());
  py::gil_scoped_release no_gil;
  return tensor<T>(values, nested.shape, options);
}

Tensor tensor_from_sequence(py::handle data, std::optional<DType> dtype, Device device) {
  NestedValues nested;
  collect(data, 0, nested);
  // An empty sequence holds no kind: it gets the default float dtype.
  if (nested.values.empty()) nested.kind = Scalar::Kind::Float;
  TensorOptions options(device);
  switch (nested.kind) {
    case Scalar::Kind::Bool:
      options.dtype = dtype;
      return typed_tensor<bool>(nested, options, &Scalar::to_bool);
    case Scalar::Kind::Int:
      options.dtype = dtype;
      return typed_tensor<int64_t>(nested, options, &Scalar::to_int);
    case Scalar::Kind::Float:
      options.dtype = dtype.value_or(default_float_dtype());
      return typed_tensor<double>(nested, options, &Scalar::to_double);
  }
  return Tensor();
}

TensorOptions options_of(std::optional<DType> dtype, Device device) {
  TensorOptions options(device);
  options.dtype = dtype;
  return options;
}

}  // namespace

void bind_factories(py::module_& m) {
  const auto no_gil = py::call_guard<py::gil_scoped_release>();
  m.def("_tensor_from_sequence", &tensor_from_sequence, py::arg("data"), py::arg("dtype"), py::arg("device"));
  using ShapeFactory = Tensor (*)(IntArrayRef, TensorOptions);
  const std::pair<const char*, ShapeFactory> shaped[] = {
      {"_empty", &empty}, {"_zeros", &zeros}, {"_ones", &ones}, {"_rand", &rand}, {"_randn", &randn}};
  for (const auto& [name, fn] : shaped) {
    m.def(
        name,
        [fn = fn](const std::vector<int64_t>& shape, std::optional<DType> dtype, Device device) {
          return fn(shape, options_of(dtype, device));
        },
        py::arg("shape"), py::arg("dtype"), py::arg("device"), no_gil);
  }
  m.def(
      "_full",
      [](const std::vector<int64_t>& shape, const Scalar& value, std::optional<DType> dtype, Device device) {
        return full(shape, value, options_of(dtype, device));
      },
      py::arg("shape"), py::arg("fill_value"), py::arg("dtype"), py::arg("device"), no_gil);
  m.def(
      "_empty_strided",
      [](const std::vector<int64_t>& shape, const std::vector<int64_t>& strides, std::optional<DType> dtype,
         Device device) { return empty_strided(shape, strides, options_of(dtype, device)); },
      py::arg("size"), py::arg("stride"), py::arg("dtype"), py::arg("device"), no_gil);
  m.def(
      "_arange",
      [](const Scalar& start, const Scalar& end, const Scalar& step, std::optional<DType> dtype, Device device) {
        return arange(start, end, step, options_of(dtype, device));
      },
      py::arg("start"), py::arg("end"), py::arg("step"), py::arg("dtype"), py::arg("device"), no_gil);
  m.def(
      "scalar_tensor",
      [](const Scalar& value, std::optional<DType> dtype, Device device) {
        return scalar_tensor(value, options_of(dtype, device));
      },
      py::arg("value"), py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = Device(), no_gil);
  m.def("manual_seed", &manual_seed, py::arg("seed"), no_gil);
  TensorClass cls = tensor_class(m);
  cls.def("uniform_", inplace<double, double>([](Tensor& t, double low, double high) { uniform_(t, low, high); }),
          py::arg("from") = 0.0, py::arg("to") = 1.0);
  cls.def("normal_", inplace<double, double>([](Tensor& t, double mean, double std) { normal_(t, mean, std); }),
          py::arg("mean") = 0.0, py::arg("std") = 1.0);
}

}  // namespace ember::python
