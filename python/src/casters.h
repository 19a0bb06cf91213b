#pragma once

// Conversions between Python objects and the runtime's value types, so that
// bindings take ember::Scalar and ember::DType directly:
//   Scalar <- bool / int / float (and NumPy scalars through __index__ /
//             __float__); never a Tensor, so Tensor overloads stay distinct.
//   DType  <- the ember.dtype singletons made in dtype_bindings.cpp.
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include "ember/dtype.h"
#include "ember/ops.h"
#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember::python {

// The Python object of class ember.dtype that stands for `dtype`.
pybind11::object dtype_object(DType dtype);
// The dtype an ember.dtype object stands for, or nothing for other objects.
bool dtype_from_object(pybind11::handle obj, DType& out);

// namedtuple (values, indices), what max(dim), sort and topk return.
pybind11::object values_indices_type();

// True for the ember Tensor class and its Python subclasses.
bool is_tensor(pybind11::handle obj);

}  // namespace ember::python

namespace ember::python {

// Note [Integers too large for int64]
// A Python int outside int64 is an error that names the value, raised as
// PyTorch raises it: ValueError for an int argument (dim, index, k ...),
// TypeError for an element of a shape or dims sequence, OverflowError for a
// number (Scalar). Left to pybind11, such an int fails overload resolution
// with a listing of every signature, or leaves an exception set behind a
// result (SystemError).
[[noreturn]] void throw_int64_overflow(pybind11::handle value, PyObject* type);

// The int64 value of a Python int, raising `overflow_type` for one outside int64.
int64_t int64_from_pylong(pybind11::handle src, PyObject* overflow_type);

}  // namespace ember::python

namespace pybind11::detail {

// int64 arguments, with Note [Integers too large for int64]; everything but
// an overflowing int is left to pybind11's own caster. Included by every
// binding file (through bindings.h) before any int64 argument is bound.
template <>
struct type_caster<int64_t> {
  static_assert(!std::is_same_v<int64_t, long long>, "the fallback below must be another specialization");
  PYBIND11_TYPE_CASTER(int64_t, const_name("int"));

  bool load(handle src, bool convert) {
    if (PyLong_Check(src.ptr())) {
      value = ember::python::int64_from_pylong(src, PyExc_ValueError);
      return true;
    }
    make_caster<long long> fallback;
    if (!fallback.load(src, convert)) return false;
    value = cast_op<long long>(fallback);
    return true;
  }

  static handle cast(int64_t v, return_value_policy, handle) { return PyLong_FromLongLong(v); }
};

template <>
struct type_caster<ember::Scalar> {
  PYBIND11_TYPE_CASTER(ember::Scalar, const_name("Number"));

  bool load(handle src, bool convert) {
    if (PyBool_Check(src.ptr())) {
      value = ember::Scalar(src.ptr() == Py_True);
      return true;
    }
    if (PyLong_Check(src.ptr())) {
      value = ember::Scalar(ember::python::int64_from_pylong(src, PyExc_OverflowError));
      return true;
    }
    if (PyFloat_Check(src.ptr())) {
      value = ember::Scalar(PyFloat_AS_DOUBLE(src.ptr()));
      return true;
    }
    // NumPy and other number types; a Tensor (which also defines __float__
    // for one-element tensors) must stay a Tensor.
    if (!convert || ember::python::is_tensor(src) || PyUnicode_Check(src.ptr())) return false;
    // numpy.bool has neither __index__ nor a bool subtype; it must stay a bool.
    if (std::string_view(Py_TYPE(src.ptr())->tp_name) == "numpy.bool") {
      value = ember::Scalar(PyObject_IsTrue(src.ptr()) == 1);
      return true;
    }
    if (PyIndex_Check(src.ptr())) {
      object index = reinterpret_steal<object>(PyNumber_Index(src.ptr()));
      if (!index) {
        PyErr_Clear();
        return false;
      }
      value = ember::Scalar(ember::python::int64_from_pylong(index, PyExc_OverflowError));
      return true;
    }
    if (PyNumber_Check(src.ptr()) && Py_TYPE(src.ptr())->tp_as_number->nb_float != nullptr) {
      const double v = PyFloat_AsDouble(src.ptr());
      if (v == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return false;
      }
      value = ember::Scalar(v);
      return true;
    }
    return false;
  }

  static handle cast(const ember::Scalar& s, return_value_policy, handle) {
    switch (s.kind()) {
      case ember::Scalar::Kind::Bool: return handle(s.to_bool() ? Py_True : Py_False).inc_ref();
      case ember::Scalar::Kind::Int: return PyLong_FromLongLong(s.to_int());
      case ember::Scalar::Kind::Float: return PyFloat_FromDouble(s.to_double());
    }
    return nullptr;
  }
};

template <>
struct type_caster<ember::DType> {
  PYBIND11_TYPE_CASTER(ember::DType, const_name("ember.dtype"));

  bool load(handle src, bool) { return ember::python::dtype_from_object(src, value); }

  static handle cast(ember::DType dtype, return_value_policy, handle) {
    return ember::python::dtype_object(dtype).release();
  }
};

}  // namespace pybind11::detail

namespace ember::python {

// A `dim` argument: None (every dimension), an int, or a sequence of ints.
struct Dims {
  std::vector<int64_t> values;
};

// The shape passed to view/reshape/zeros...: either one sequence or the
// sizes as separate arguments, as PyTorch takes both `x.view(2, 3)` and
// `x.view((2, 3))`.
std::vector<int64_t> shape_from_args(const pybind11::args& args, const char* op);
// A shape given as one sequence of ints.
std::vector<int64_t> shape_from_sequence(pybind11::handle source, const char* op);

}  // namespace ember::python

namespace pybind11::detail {

template <>
struct type_caster<ember::python::Dims> {
  PYBIND11_TYPE_CASTER(ember::python::Dims, const_name("int | tuple[int, ...] | None"));

  bool load(handle src, bool) {
    value.values.clear();
    if (src.is_none()) return true;
    if (PyLong_Check(src.ptr()) && !PyBool_Check(src.ptr())) {
      value.values.push_back(ember::python::int64_from_pylong(src, PyExc_ValueError));
      return true;
    }
    if (!PyTuple_Check(src.ptr()) && !PyList_Check(src.ptr())) return false;
    for (handle item : reinterpret_borrow<sequence>(src)) {
      if (!PyLong_Check(item.ptr()) || PyBool_Check(item.ptr())) return false;
      value.values.push_back(ember::python::int64_from_pylong(item, PyExc_TypeError));
    }
    return true;
  }

  static handle cast(const ember::python::Dims& dims, return_value_policy, handle) {
    tuple out(dims.values.size());
    for (size_t i = 0; i < dims.values.size(); ++i) out[i] = pybind11::int_(dims.values[i]);
    return out.release();
  }
};

}  // namespace pybind11::detail

namespace pybind11::detail {

template <>
struct type_caster<ember::ValuesIndices> {
  PYBIND11_TYPE_CASTER(ember::ValuesIndices, const_name("return_types"));

  bool load(handle, bool) { return false; }

  static handle cast(ember::ValuesIndices r, return_value_policy, handle) {
    return ember::python::values_indices_type()(pybind11::cast(std::move(r.values)),
                                                pybind11::cast(std::move(r.indices)))
        .release();
  }
};

}  // namespace pybind11::detail
