#pragma once

// A Python object owned by C++ code that may drop it without holding the GIL
// (the autograd engine frees nodes, hooks and custom functions as it runs).
#include <pybind11/pybind11.h>

#include <memory>

namespace ember::python {

template <typename T>
std::shared_ptr<T> gil_safe(T object) {
  return std::shared_ptr<T>(new T(std::move(object)), [](T* owned) {
    pybind11::gil_scoped_acquire gil;
    delete owned;
  });
}

}  // namespace ember::python
