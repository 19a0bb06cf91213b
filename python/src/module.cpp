// ember._C: the bridge between the runtime and the `ember` package.
#include "bindings.h"

PYBIND11_MODULE(_C, m) {
  m.doc() = "Ember runtime bindings; use the `ember` package instead of this module.";
  using namespace ember::python;
  bind_errors(m);
  bind_dtypes(m);
  bind_devices(m);
  bind_tensor(m);
  bind_ops(m);
  bind_indexing(m);
  bind_factories(m);
  bind_autograd(m);
  bind_autocast(m);
  bind_custom_function(m);
  bind_dlpack(m);
  bind_plugins(m);
  bind_threads(m);
  bind_buffers(m);
  bind_functional(m);
  bind_linalg(m);
  bind_foreach(m);
  bind_catalogue(m);
  bind_streams(m);
  bind_compile(m);
  bind_captured_grads(m);
  bind_export(m);
  bind_distributed_stores(m);
  bind_distributed(m);
  bind_profiler(m);
}
