// ember._C._nn: the composite ops behind ember.nn.functional (activations,
// linear, normalization, convolution, pooling, losses), GIL released.
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "casters.h"
#include "ember/functional.h"

namespace py = pybind11;

namespace ember::python {
namespace {

using OptTensor = std::optional<Tensor>;
using Ints = std::vector<int64_t>;

}  // namespace

void bind_functional(py::module_& parent) {
  py::module_ m = parent.def_submodule("_nn", "ember.nn.functional's kernels");
  const auto no_gil = py::call_guard<py::gil_scoped_release>();

  m.def("leaky_relu", &leaky_relu, py::arg("input"), py::arg("negative_slope"), no_gil);
  m.def("gelu", [](const Tensor& x, const std::string& approximate) { return gelu(x, approximate); },
        py::arg("input"), py::arg("approximate"), no_gil);
  m.def("silu", &silu, py::arg("input"), no_gil);
  m.def("softplus", &softplus, py::arg("input"), py::arg("beta"), py::arg("threshold"), no_gil);
  m.def("elu", &elu, py::arg("input"), py::arg("alpha"), no_gil);
  m.def("hardtanh", &hardtanh, py::arg("input"), py::arg("min_val"), py::arg("max_val"), no_gil);
  m.def("dropout", &dropout, py::arg("input"), py::arg("p"), py::arg("training"), no_gil);
  // The inplace=True forms: fn(input) stored back into input (ember::apply_inplace).
  m.def(
      "apply_inplace",
      [](py::object input, const py::function& fn, const std::string& name) {
        apply_inplace(input.cast<Tensor&>(), [&fn](const Tensor& x) { return fn(x).cast<Tensor>(); }, name);
        return input;
      },
      py::arg("input"), py::arg("fn"), py::arg("name"));

  m.def("linear", &linear, py::arg("input"), py::arg("weight"), py::arg("bias"), no_gil);
  m.def("layer_norm",
        [](const Tensor& x, const Ints& shape, const OptTensor& w, const OptTensor& b, double eps) {
          return layer_norm(x, shape, w, b, eps);
        },
        py::arg("input"), py::arg("normalized_shape"), py::arg("weight"), py::arg("bias"), py::arg("eps"), no_gil);
  m.def("batch_norm", &batch_norm, py::arg("input"), py::arg("running_mean"), py::arg("running_var"),
        py::arg("weight"), py::arg("bias"), py::arg("training"), py::arg("momentum"), py::arg("eps"), no_gil);
  m.def("group_norm", &group_norm, py::arg("input"), py::arg("num_groups"), py::arg("weight"), py::arg("bias"),
        py::arg("eps"), no_gil);
  m.def("scaled_dot_product_attention", &scaled_dot_product_attention, py::arg("query"), py::arg("key"),
        py::arg("value"), py::arg("attn_mask"), py::arg("dropout_p"), py::arg("is_causal"), py::arg("scale"),
        py::arg("enable_gqa"), no_gil);
  m.def(
      "lstm_layer",
      [](const Tensor& x, const Tensor& h0, const Tensor& c0, const Tensor& w_ih, const Tensor& w_hh, const Tensor& b,
         bool reverse) {
        LstmLayerResult r = lstm_layer(x, h0, c0, w_ih, w_hh, b, reverse);
        return py::make_tuple(std::move(r.output), std::move(r.h), std::move(r.c));
      },
      py::arg("input"), py::arg("h0"), py::arg("c0"), py::arg("w_ih"), py::arg("w_hh"), py::arg("bias"),
      py::arg("reverse"));
  m.def("lstm_layer_runs_kernel", &lstm_layer_runs_kernel, py::arg("input"));
  m.def("embedding", &embedding, py::arg("weight"), py::arg("indices"), no_gil);
  m.def("one_hot", &one_hot, py::arg("input"), py::arg("num_classes"), no_gil);

  // conv1d/2d/3d share one signature, and so do the transposed ones by kernel.
  using Convolution = Tensor (*)(const Tensor&, const Tensor&, const OptTensor&, IntArrayRef, IntArrayRef,
                                 IntArrayRef, int64_t);
  for (const auto& [name, fn] : {std::pair<const char*, Convolution>{"conv1d", &conv1d},
                                 {"conv2d", &conv2d},
                                 {"conv3d", &conv3d}}) {
    m.def(
        name,
        [fn](const Tensor& x, const Tensor& w, const OptTensor& b, const Ints& stride, const Ints& padding,
             const Ints& dilation, int64_t groups) { return fn(x, w, b, stride, padding, dilation, groups); },
        py::arg("input"), py::arg("weight"), py::arg("bias"), py::arg("stride"), py::arg("padding"),
        py::arg("dilation"), py::arg("groups"), no_gil);
  }
  using TransposedByKernel = std::optional<Tensor> (*)(const Tensor&, const Tensor&, IntArrayRef, IntArrayRef,
                                                       IntArrayRef, IntArrayRef, int64_t);
  for (const auto& [name, fn] :
       {std::pair<const char*, TransposedByKernel>{"conv_transpose2d_by_kernel", &conv_transpose2d_by_kernel},
        {"conv_transpose3d_by_kernel", &conv_transpose3d_by_kernel}}) {
    m.def(
        name,
        [fn](const Tensor& x, const Tensor& w, const Ints& stride, const Ints& padding, const Ints& output_padding,
             const Ints& dilation, int64_t groups) {
          return fn(x, w, stride, padding, output_padding, dilation, groups);
        },
        py::arg("input"), py::arg("weight"), py::arg("stride"), py::arg("padding"), py::arg("output_padding"),
        py::arg("dilation"), py::arg("groups"), no_gil);
  }
  m.def("max_pool2d",
        [](const Tensor& x, const Ints& kernel, const Ints& stride, const Ints& padding, const Ints& dilation,
           bool ceil_mode) { return max_pool2d(x, kernel, stride, padding, dilation, ceil_mode); },
        py::arg("input"), py::arg("kernel_size"), py::arg("stride"), py::arg("padding"), py::arg("dilation"),
        py::arg("ceil_mode"), no_gil);
  m.def("max_pool2d_with_indices",
        [](const Tensor& x, const Ints& kernel, const Ints& stride, const Ints& padding, const Ints& dilation,
           bool ceil_mode) {
          ValuesIndices out = max_pool2d_with_indices(x, kernel, stride, padding, dilation, ceil_mode);
          return std::make_pair(std::move(out.values), std::move(out.indices));
        },
        py::arg("input"), py::arg("kernel_size"), py::arg("stride"), py::arg("padding"), py::arg("dilation"),
        py::arg("ceil_mode"), no_gil);
  m.def("avg_pool2d",
        [](const Tensor& x, const Ints& kernel, const Ints& stride, const Ints& padding, bool count_include_pad) {
          return avg_pool2d(x, kernel, stride, padding, count_include_pad);
        },
        py::arg("input"), py::arg("kernel_size"), py::arg("stride"), py::arg("padding"),
        py::arg("count_include_pad"), no_gil);
  m.def("adaptive_avg_pool2d", [](const Tensor& x, const Ints& size) { return adaptive_avg_pool2d(x, size); },
        py::arg("input"), py::arg("output_size"), no_gil);
  m.def("pad", [](const Tensor& x, const Ints& padding, const Scalar& value) { return pad(x, padding, value); },
        py::arg("input"), py::arg("pad"), py::arg("value"), no_gil);

  m.def("cross_entropy",
        [](const Tensor& x, const Tensor& target, const OptTensor& w, int64_t ignore_index,
           const std::string& reduction, double smoothing) {
          return cross_entropy(x, target, w, ignore_index, reduction, smoothing);
        },
        py::arg("input"), py::arg("target"), py::arg("weight"), py::arg("ignore_index"), py::arg("reduction"),
        py::arg("label_smoothing"), no_gil);
  m.def("nll_loss",
        [](const Tensor& x, const Tensor& target, const OptTensor& w, int64_t ignore_index,
           const std::string& reduction) { return nll_loss(x, target, w, ignore_index, reduction); },
        py::arg("input"), py::arg("target"), py::arg("weight"), py::arg("ignore_index"), py::arg("reduction"),
        no_gil);
  m.def("mse_loss", [](const Tensor& x, const Tensor& t, const std::string& r) { return mse_loss(x, t, r); },
        py::arg("input"), py::arg("target"), py::arg("reduction"), no_gil);
  m.def("l1_loss", [](const Tensor& x, const Tensor& t, const std::string& r) { return l1_loss(x, t, r); },
        py::arg("input"), py::arg("target"), py::arg("reduction"), no_gil);
  m.def("smooth_l1_loss",
        [](const Tensor& x, const Tensor& t, const std::string& r, double beta) {
          return smooth_l1_loss(x, t, r, beta);
        },
        py::arg("input"), py::arg("target"), py::arg("reduction"), py::arg("beta"), no_gil);
  m.def("binary_cross_entropy",
        [](const Tensor& x, const Tensor& t, const OptTensor& w, const std::string& r) {
          return binary_cross_entropy(x, t, w, r);
        },
        py::arg("input"), py::arg("target"), py::arg("weight"), py::arg("reduction"), no_gil);
  m.def("binary_cross_entropy_with_logits",
        [](const Tensor& x, const Tensor& t, const OptTensor& w, const std::string& r, const OptTensor& pos_weight) {
          return binary_cross_entropy_with_logits(x, t, w, r, pos_weight);
        },
        py::arg("input"), py::arg("target"), py::arg("weight"), py::arg("reduction"), py::arg("pos_weight"), no_gil);
}

}  // namespace ember::python
