// Factories with fixed signatures; ember/_factories.py gives them PyTorch's
// flexible ones (*size, requires_grad=...). tensor(data) from nested Python
// sequences is parsed here, in one pass that finds the shape and the kind.
#include <pybind11/stl.h>

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "casters.h"
#include "core/narrowing.h"
#include "ember/error.h"
#include "ember/ops.h"
#include "ember/random_state.h"
#include "op_helpers.h"

namespace py = pybind11;

namespace ember::python {
namespace {

// Values of a nested sequence in row-major order, with the dtype they
// promote to (Python bools, ints and floats count as bool, int64 and the
// default float dtype; one-element tensors as their own dtype), as
// torch.tensor does.
struct NestedValues {
  std::vector<int64_t> shape;
  std::vector<Scalar> values;
  std::optional<DType> dtype;
};

bool is_list_or_tuple(py::handle obj) { return PyList_Check(obj.ptr()) || PyTuple_Check(obj.ptr()); }

void add_value(const Scalar& value, DType dtype, NestedValues& out) {
  out.dtype = out.dtype ? promote_types(*out.dtype, dtype) : dtype;
  out.values.push_back(value);
}

// A tensor where a number belongs is one number, as in PyTorch.
void add_tensor_value(const Tensor& t, NestedValues& out) {
  if (t.numel() != 1) {
    throw_error(ErrorKind::Value,
                "tensor(): only one element tensors can be converted to Python scalars, got a "
                "tensor of shape " +
                    shape_str(t.sizes()) + " where a number belongs");
  }
  Scalar value;
  {
    py::gil_scoped_release no_gil;
    value = t.item();
  }
  add_value(value, t.dtype(), out);
}

void add_number(py::handle obj, NestedValues& out) {
  if (obj.is_none()) throw_error(ErrorKind::Runtime, "tensor(): could not infer dtype of NoneType");
  if (PyLong_Check(obj.ptr()) && !PyBool_Check(obj.ptr())) {
    add_value(Scalar(int64_from_pylong(obj, PyExc_ValueError)), DType::Int64, out);
    return;
  }
  Scalar value;
  try {
    value = obj.cast<Scalar>();
  } catch (const py::cast_error&) {
    // PyTorch: a TypeError for text, a RuntimeError for other objects.
    const std::string message = "tensor(): could not convert an object of type " +
                                std::string(py::str(py::type::handle_of(obj).attr("__name__"))) + " to a number";
    if (PyUnicode_Check(obj.ptr()) || PyBytes_Check(obj.ptr())) throw py::type_error(message);
    throw_error(ErrorKind::Runtime, message);
  }
  add_value(value, value.natural_dtype(), out);
}

// The first element at each depth decides the shape; a tensor there is a
// number (so it ends the shape), and further down a tensor where a sequence
// belongs is iterated like one.
void collect(py::handle obj, size_t depth, NestedValues& out) {
  const bool is_leaf_depth = depth == out.shape.size() && !(out.values.empty() && is_list_or_tuple(obj));
  if (is_leaf_depth) {
    if (is_list_or_tuple(obj)) {
      throw_error(ErrorKind::Type,
                  "tensor(): expected a number at dim " + std::to_string(depth) + " like its siblings, got a sequence");
    }
    if (is_tensor(obj)) {
      add_tensor_value(obj.cast<const Tensor&>(), out);
    } else {
      add_number(obj, out);
    }
    return;
  }
  if (!is_list_or_tuple(obj) && !(is_tensor(obj) && obj.cast<const Tensor&>().dim() > 0)) {
    throw_error(ErrorKind::Type, "tensor(): expected a sequence of length " + std::to_string(out.shape[depth]) +
                                     " at dim " + std::to_string(depth) + " like its siblings, got a number");
  }
  const auto seq = py::reinterpret_borrow<py::sequence>(obj);
  const auto length = static_cast<int64_t>(py::len(seq));
  if (depth == out.shape.size()) {
    out.shape.push_back(length);
  } else if (out.shape[depth] != length) {
    throw_error(ErrorKind::Value, "tensor(): expected a sequence of length " + std::to_string(out.shape[depth]) +
                                      " at dim " + std::to_string(depth) + " (got " + std::to_string(length) + ")");
  }
  // Owned references: indexing a tensor makes a new object that only this
  // loop keeps alive.
  for (int64_t i = 0; i < length; ++i) {
    const py::object item = seq[static_cast<size_t>(i)];
    collect(item, depth + 1, out);
  }
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
  // An empty sequence holds no dtype: it gets the default float dtype.
  const DType inferred = nested.dtype.value_or(default_float_dtype());
  TensorOptions options(device);
  options.dtype = dtype.value_or(inferred);
  if (inferred == DType::Bool) return typed_tensor<bool>(nested, options, &Scalar::to_bool);
  if (is_integral(inferred, false)) return typed_tensor<int64_t>(nested, options, &Scalar::to_int);
  return typed_tensor<double>(nested, options, &Scalar::to_double);
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
  // Shapes are read here, under the GIL, so that a bad size is a TypeError
  // naming the factory (Note [Integers too large for int64]).
  for (const auto& [name, fn] : shaped) {
    m.def(
        name,
        [fn = fn, op = name + 1](py::handle shape, std::optional<DType> dtype, Device device) {
          const std::vector<int64_t> sizes = shape_from_sequence(shape, op);
          py::gil_scoped_release released;
          return fn(sizes, options_of(dtype, device));
        },
        py::arg("shape"), py::arg("dtype"), py::arg("device"));
  }
  m.def(
      "_full",
      [](py::handle shape, const Scalar& value, std::optional<DType> dtype, Device device) {
        const std::vector<int64_t> sizes = shape_from_sequence(shape, "full");
        py::gil_scoped_release released;
        return full(sizes, value, options_of(dtype, device));
      },
      py::arg("shape"), py::arg("fill_value"), py::arg("dtype"), py::arg("device"));
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
        if (dtype) check_fits(value, *dtype, "scalar_tensor");
        return scalar_tensor(value, options_of(dtype, device));
      },
      py::arg("value"), py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = Device(), no_gil);
  // Any int in [-2^63, 2^64), as PyTorch (a negative seed wraps).
  m.def(
      "manual_seed",
      [](py::int_ seed) {
        const unsigned long long value = PyLong_AsUnsignedLongLongMask(seed.ptr());
        if (!PyObject_RichCompareBool(seed.ptr(), py::int_(std::numeric_limits<int64_t>::min()).ptr(), Py_GE) ||
            !PyObject_RichCompareBool(seed.ptr(), py::int_(std::numeric_limits<uint64_t>::max()).ptr(), Py_LE)) {
          throw_int64_overflow(seed, PyExc_ValueError);
        }
        manual_seed(static_cast<uint64_t>(value));
      },
      py::arg("seed"));
  // ember.random packs these into torch.get_rng_state's byte tensor.
  m.def("_random_state", [] {
    const RandomState state = random_state();
    return py::make_tuple(state.seed, state.offset);
  });
  m.def(
      "_set_random_state", [](uint64_t seed, uint64_t offset) { set_random_state({seed, offset}); }, py::arg("seed"),
      py::arg("offset"));
  m.def("initial_seed", &initial_seed);
  TensorClass cls = tensor_class(m);
  cls.def("uniform_", inplace<double, double>([](Tensor& t, double low, double high) { uniform_(t, low, high); }),
          py::arg("from") = 0.0, py::arg("to") = 1.0);
  cls.def("normal_", inplace<double, double>([](Tensor& t, double mean, double std) { normal_(t, mean, std); }),
          py::arg("mean") = 0.0, py::arg("std") = 1.0);
}

}  // namespace ember::python
