// ember.autograd's engine entry points, grad modes, graph nodes and hooks.
// The backward pass runs without the GIL; Python hooks take it back.
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "autograd/node.h"
#include "bindings.h"
#include "casters.h"
#include "gil_safe.h"
#include "ember/autograd.h"
#include "ember/dispatch_key.h"
#include "op_helpers.h"

namespace py = pybind11;

namespace ember::python {
namespace {

std::vector<Tensor> defined_or_empty(const std::vector<std::optional<Tensor>>& tensors) {
  std::vector<Tensor> out;
  for (const auto& t : tensors) out.push_back(t.value_or(Tensor()));
  return out;
}

// A Python tensor hook, called with the GIL from the engine's thread.
class PythonHook {
 public:
  explicit PythonHook(py::function fn) : fn_(gil_safe(std::move(fn))) {}

  Tensor operator()(const Tensor& grad) const {
    py::gil_scoped_acquire gil;
    py::object result = (*fn_)(grad);
    return result.is_none() ? Tensor() : result.cast<Tensor>();
  }

 private:
  std::shared_ptr<py::function> fn_;
};

// What a Python pack hook returned for one saved tensor, and the unpack
// hook that turns it back into a tensor (on the engine's thread, with the GIL).
class PythonPackedTensor : public autograd::PackedSavedTensor {
 public:
  PythonPackedTensor(std::shared_ptr<py::object> packed, std::shared_ptr<py::function> unpack_hook)
      : packed_(std::move(packed)), unpack_hook_(std::move(unpack_hook)) {}

  Tensor unpack() const override {
    py::gil_scoped_acquire gil;
    py::object result = (*unpack_hook_)(*packed_);
    if (!is_tensor(result)) {
      throw py::type_error("Output of saved tensor unpack_hook expected to be a Tensor but got result of type " +
                           std::string(py::str(py::type::handle_of(result).attr("__name__"))));
    }
    return result.cast<Tensor>();
  }

 private:
  std::shared_ptr<py::object> packed_;
  std::shared_ptr<py::function> unpack_hook_;
};

void push_saved_tensors_hooks(py::function pack_hook, py::function unpack_hook) {
  auto pack = gil_safe(std::move(pack_hook));
  auto unpack = gil_safe(std::move(unpack_hook));
  autograd::push_saved_tensor_pack_hook([pack, unpack](const Tensor& tensor) {
    py::gil_scoped_acquire gil;
    return std::make_shared<PythonPackedTensor>(gil_safe(py::object((*pack)(tensor))), unpack);
  });
}

}  // namespace

void bind_autograd(py::module_& m) {
  const auto no_gil = py::call_guard<py::gil_scoped_release>();
  py::class_<autograd::Node, std::shared_ptr<autograd::Node>>(m, "Node")
      .def("name", &autograd::Node::name)
      .def_property_readonly("next_functions",
                             [](const autograd::Node& node) {
                               py::list out;
                               for (const auto& edge : node.next_edges()) {
                                 out.append(py::make_tuple(edge.node, edge.input_nr));
                               }
                               return py::tuple(out);
                             })
      .def("__repr__", [](const autograd::Node& node) { return "<" + node.name() + ">"; });

  m.def(
      "_backward",
      [](const std::vector<Tensor>& roots, const std::vector<std::optional<Tensor>>& grads, bool retain_graph,
         bool create_graph) {
        const std::vector<Tensor> grad_roots = defined_or_empty(grads);
        py::gil_scoped_release no_gil;
        autograd::backward(roots, grad_roots, retain_graph, create_graph);
      },
      py::arg("tensors"), py::arg("grad_tensors"), py::arg("retain_graph"), py::arg("create_graph"));
  m.def(
      "_grad",
      [](const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
         const std::vector<std::optional<Tensor>>& grad_outputs, bool retain_graph, bool create_graph,
         bool allow_unused) {
        std::vector<Tensor> grads;
        {
          py::gil_scoped_release no_gil;
          grads = autograd::grad(outputs, inputs, defined_or_empty(grad_outputs), retain_graph, create_graph,
                                 allow_unused);
        }
        std::vector<std::optional<Tensor>> out;
        for (Tensor& g : grads) out.push_back(g.defined() ? std::optional<Tensor>(std::move(g)) : std::nullopt);
        return out;
      },
      py::arg("outputs"), py::arg("inputs"), py::arg("grad_outputs"), py::arg("retain_graph"),
      py::arg("create_graph"), py::arg("allow_unused"));
  m.def("is_grad_enabled", &autograd::is_grad_enabled);
  // The thread-local switch NoGradGuard and EnableGradGuard flip; Python's
  // context managers save and restore it themselves.
  m.def("_set_grad_enabled", [](bool enabled) {
    const DispatchKeySet autograd_key = DispatchKeySet::of(DispatchKey::Autograd);
    LocalDispatchKeys& keys = local_dispatch_keys();
    keys.excluded = enabled ? keys.excluded - autograd_key : keys.excluded | autograd_key;
  });

  // torch.utils.hooks.RemovableHandle's surface: remove(), and a context
  // manager that removes the hook on exit.
  py::class_<autograd::HookHandle>(m, "RemovableHandle")
      .def("remove", &autograd::HookHandle::remove)
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](autograd::HookHandle& handle, py::args) { handle.remove(); });
  TensorClass cls = tensor_class(m);
  cls.def(
      "register_hook",
      [](const Tensor& t, py::function hook) { return autograd::register_hook(t, PythonHook(std::move(hook))); },
      py::arg("hook"));
  cls.def(
      "register_post_accumulate_grad_hook",
      [](const Tensor& t, py::function hook) {
        auto fn = gil_safe(std::move(hook));
        return autograd::register_post_accumulate_grad_hook(t, [fn](const Tensor& leaf) {
          py::gil_scoped_acquire gil;
          (*fn)(leaf);
        });
      },
      py::arg("hook"));
  m.def("_push_saved_tensors_hooks", &push_saved_tensors_hooks, py::arg("pack_hook"), py::arg("unpack_hook"));
  m.def("_pop_saved_tensors_hooks", &autograd::pop_saved_tensor_pack_hook);
  m.def("_queue_callback", [](py::function callback) {
    auto fn = gil_safe(std::move(callback));
    autograd::queue_callback([fn] {
      py::gil_scoped_acquire gil;
      (*fn)();
    });
  });
  cls.def(
      "backward",
      [](const Tensor& t, std::optional<Tensor> gradient, std::optional<bool> retain_graph, bool create_graph) {
        t.backward(gradient.value_or(Tensor()), retain_graph.value_or(create_graph), create_graph);
      },
      py::arg("gradient") = py::none(), py::arg("retain_graph") = py::none(), py::arg("create_graph") = false,
      no_gil);
}

}  // namespace ember::python
