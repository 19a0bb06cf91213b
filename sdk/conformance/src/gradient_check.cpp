#include "gradient_check.h"

#include <cmath>

#include <ember/autograd.h>
#include <ember/ops.h>

#include "input_values.h"
#include "tensor_compare.h"

namespace ember::conformance {

namespace {

// At most this many elements of each input are perturbed.
constexpr int64_t kMaxPerturbed = 64;

struct Steps {
  double eps, rtol, atol;
};

Steps steps_for(DType dtype) {
  return dtype == DType::Float64 ? Steps{1e-6, 1e-5, 1e-6} : Steps{1e-2, 5e-2, 2e-2};
}

bool is_differentiable_input(const InputSpec& spec) { return !spec.dtype || is_floating(*spec.dtype); }

}  // namespace

GradientResult check_gradient(const OpCase& op_case, const Variation& variation, DType dtype, Device device) {
  GradientResult result;
  std::vector<Tensor> host;
  for (size_t i = 0; i < variation.inputs.size(); ++i) {
    host.push_back(make_input(variation.inputs[i], dtype, seed_for(op_case.op, variation.name, i)));
  }
  auto on_device = [&](const std::vector<Tensor>& bases) {
    Tensors args;
    for (size_t i = 0; i < bases.size(); ++i) {
      const auto& view = variation.inputs[i].view;
      args.push_back(view ? view(bases[i]) : bases[i]);
    }
    return args;
  };

  // Analytic: d(sum_k <out_k, w_k>)/d input, by backward on the device.
  std::vector<Tensor> leaves;
  std::vector<size_t> leaf_inputs;
  std::vector<Tensor> bases;
  for (size_t i = 0; i < host.size(); ++i) {
    Tensor base = host[i].to(device).clone();
    if (is_differentiable_input(variation.inputs[i])) {
      base.requires_grad_();
      leaves.push_back(base);
      leaf_inputs.push_back(i);
    }
    bases.push_back(base);
  }
  if (leaves.empty()) return result;
  const Tensors outputs = variation.call(on_device(bases), dtype, device);
  std::vector<Tensor> weights;
  Tensor loss;
  for (size_t k = 0; k < outputs.size(); ++k) {
    if (!outputs[k].requires_grad()) {
      weights.emplace_back();
      continue;
    }
    InputSpec weight_spec{.shape = outputs[k].sizes()};
    weights.push_back(make_input(weight_spec, dtype, seed_for(op_case.op, variation.name, 100 + k)).to(device));
    const Tensor term = sum(outputs[k] * weights.back());
    loss = loss.defined() ? loss + term : term;
  }
  if (!loss.defined()) return result;
  result.differentiable = true;
  const std::vector<Tensor> grads = autograd::grad({loss}, leaves, {}, false, false, /*allow_unused=*/true);

  // Numeric: the same loss without recording, with one element moved by +-eps.
  const Steps steps = steps_for(dtype);
  auto loss_at = [&](const std::vector<Tensor>& moved_host) {
    autograd::NoGradGuard no_grad;
    std::vector<Tensor> moved;
    for (const Tensor& t : moved_host) moved.push_back(t.to(device));
    const Tensors outs = variation.call(on_device(moved), dtype, device);
    double total = 0;
    for (size_t k = 0; k < outs.size(); ++k) {
      if (weights[k].defined()) total += sum(outs[k] * weights[k]).to(DType::Float64).item<double>();
    }
    return total;
  };
  for (size_t leaf = 0; leaf < leaves.size(); ++leaf) {
    const size_t input = leaf_inputs[leaf];
    const std::vector<double> values = host[input].tolist<double>();
    const std::vector<double> analytic =
        grads[leaf].defined() ? grads[leaf].to(Device("cpu")).tolist<double>() : std::vector<double>(values.size(), 0);
    const int64_t count = std::min<int64_t>(static_cast<int64_t>(values.size()), kMaxPerturbed);
    for (int64_t j = 0; j < count; ++j) {
      std::vector<Tensor> moved = host;
      std::vector<double> shifted = values;
      shifted[j] = values[j] + steps.eps;
      moved[input] = tensor<double>(shifted, host[input].sizes()).to(dtype);
      const double plus = loss_at(moved);
      shifted[j] = values[j] - steps.eps;
      moved[input] = tensor<double>(shifted, host[input].sizes()).to(dtype);
      const double minus = loss_at(moved);
      const double numeric = (plus - minus) / (2 * steps.eps);
      if (!std::isfinite(numeric)) continue;
      const double error = std::abs(analytic[j] - numeric);
      result.max_error = std::max(result.max_error, error);
      if (error > steps.atol + steps.rtol * std::abs(numeric)) {
        result.ok = false;
        result.problem = "gradient of input " + std::to_string(input) + " element " + std::to_string(j) + " is " +
                         std::to_string(analytic[j]) + ", finite differences give " + std::to_string(numeric) +
                         "; input " + describe_tensor(host[input]);
        return result;
      }
    }
  }
  return result;
}

}  // namespace ember::conformance
