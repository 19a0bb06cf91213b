#pragma once

// One function per concept registers its part of ember._C; module.cpp calls
// them in dependency order (types before the functions that use them).
#include <pybind11/pybind11.h>

// Before any binding: its int64 caster must be the only one a file sees.
#include "casters.h"

namespace ember::autograd {
class Node;
}

namespace ember::python {

// The Python ctx object of an ember.autograd.Function's node, or null for
// any other node (Note [Custom function cycles]).
PyObject* python_function_context(const autograd::Node& node);

void bind_errors(pybind11::module_& m);
void bind_dtypes(pybind11::module_& m);
void bind_devices(pybind11::module_& m);
void bind_tensor(pybind11::module_& m);
void bind_ops(pybind11::module_& m);
void bind_factories(pybind11::module_& m);
void bind_autograd(pybind11::module_& m);
void bind_autocast(pybind11::module_& m);
void bind_custom_function(pybind11::module_& m);
void bind_dlpack(pybind11::module_& m);
void bind_indexing(pybind11::module_& m);
void bind_plugins(pybind11::module_& m);
void bind_threads(pybind11::module_& m);
void bind_buffers(pybind11::module_& m);
void bind_functional(pybind11::module_& m);
void bind_linalg(pybind11::module_& m);
void bind_foreach(pybind11::module_& m);
void bind_catalogue(pybind11::module_& m);
void bind_streams(pybind11::module_& m);
void bind_compile(pybind11::module_& m);
void bind_captured_grads(pybind11::module_& m);
void bind_export(pybind11::module_& m);
void bind_distributed_stores(pybind11::module_& m);
void bind_distributed(pybind11::module_& m);
void bind_profiler(pybind11::module_& m);

}  // namespace ember::python
