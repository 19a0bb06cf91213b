// The gradients a compiled plan reads from outside, refreshed at each call
// (Note [Gradients read while tracing] in runtime/src/compile/tracer.h).
// An optimizer's step reads every parameter's .grad; checking and passing
// them here, in one call, costs a fraction of doing it tensor by tensor in
// Python, which took a quarter of a compiled AdamW step over 100 tensors.
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "ember/dim_vector.h"
#include "ember/tensor.h"

namespace py = pybind11;

namespace ember::python {
namespace {

struct Layout {
  DimVector sizes, strides;
  DType dtype;
  Device device;

  explicit Layout(const Tensor& t) : sizes(t.sizes()), strides(t.strides()), dtype(t.dtype()), device(t.device()) {}
  bool matches(const Tensor& t) const {
    return t.dtype() == dtype && t.device() == device && t.sizes() == sizes && t.strides() == strides;
  }
  std::string str() const {
    return std::string(dtype_name(dtype)) + " " + shape_str(sizes) + " strides " + shape_str(strides) + " on " +
           device.str();
  }
};

class CapturedGrads {
 public:
  // Captured input positions[i] is owners[i].grad, traced as traced[i].
  CapturedGrads(std::vector<int64_t> positions, std::vector<Tensor> owners, const std::vector<Tensor>& traced)
      : positions_(std::move(positions)), owners_(std::move(owners)) {
    for (const Tensor& t : traced) layouts_.emplace_back(t);
  }

  // Puts each owner's present gradient at offset + its position in
  // `inputs`; returns why the function must be traced again, if it must.
  std::optional<std::string> refresh(py::list inputs, int64_t offset) const {
    for (size_t i = 0; i < owners_.size(); ++i) {
      Tensor grad = owners_[i].grad();
      if (!grad.defined()) return std::string("a .grad the function reads is None now");
      if (!layouts_[i].matches(grad)) {
        return "a .grad the function reads is laid out otherwise now: " + Layout(grad).str() + " vs " +
               layouts_[i].str();
      }
      inputs[static_cast<size_t>(offset + positions_[i])] = py::cast(std::move(grad));
    }
    return std::nullopt;
  }

 private:
  std::vector<int64_t> positions_;
  std::vector<Tensor> owners_;
  std::vector<Layout> layouts_;
};

}  // namespace

void bind_captured_grads(py::module_& m) {
  py::class_<CapturedGrads>(m, "_CapturedGrads")
      .def(py::init<std::vector<int64_t>, std::vector<Tensor>, const std::vector<Tensor>&>(), py::arg("positions"),
           py::arg("owners"), py::arg("traced"))
      .def("refresh", &CapturedGrads::refresh, py::arg("inputs"), py::arg("offset"));
}

}  // namespace ember::python
