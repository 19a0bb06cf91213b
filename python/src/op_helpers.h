#pragma once

// Registering one op both as ember.<name>(input, ...) and as the method
// Tensor.<name>(...), with the GIL released while it runs.
#include <pybind11/pybind11.h>

#include "ember/ops.h"
#include "ember/tensor.h"

namespace ember::python {

using TensorClass = pybind11::class_<Tensor>;

inline TensorClass tensor_class(pybind11::module_& m) {
  return pybind11::reinterpret_borrow<TensorClass>(m.attr("Tensor"));
}

template <typename F, typename... Extra>
void def_function(pybind11::module_& m, const char* name, F&& f, const Extra&... extra) {
  m.def(name, std::forward<F>(f), pybind11::arg("input"), extra...,
        pybind11::call_guard<pybind11::gil_scoped_release>());
}

template <typename F, typename... Extra>
void def_op(pybind11::module_& m, TensorClass& cls, const char* name, F&& f, const Extra&... extra) {
  cls.def(name, f, extra..., pybind11::call_guard<pybind11::gil_scoped_release>());
  def_function(m, name, std::forward<F>(f), extra...);
}

// An in-place method: runs `f(self, args...)` without the GIL and returns
// the same Python object, as PyTorch's `x.add_(y) is x`.
template <typename... Args, typename F>
auto inplace(F f) {
  return [f](pybind11::object self, Args... args) {
    Tensor& t = self.cast<Tensor&>();
    {
      pybind11::gil_scoped_release no_gil;
      f(t, args...);
    }
    return self;
  };
}

// A 0-d tensor holding a Python number on `like`'s device: it takes part in
// type promotion as weakly as the number itself (docs/type-promotion.md).
// Beside a floating tensor a float is held in the wider of its dtype and
// the default float dtype, so that a float64 op sees the number unrounded (a
// float32 0-d tensor would round 0.7 first) and a 0-d `like` keeps its dtype.
inline Tensor wrap_scalar(const Tensor& like, const Scalar& value) {
  if (value.is_floating() && is_floating(like.dtype())) {
    return scalar_tensor(value, TensorOptions(promote_types(like.dtype(), default_float_dtype()), like.device()));
  }
  return scalar_tensor(value, TensorOptions(like.device()));
}

}  // namespace ember::python
