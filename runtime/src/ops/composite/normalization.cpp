// layer_norm, batch_norm and group_norm: one normalisation step over a set
// of dims, then an optional per-channel affine transform.
#include <string>

#include "dispatch/dispatcher.h"
#include "dispatch/op_registry.h"
#include "ember/autograd.h"
#include "ops/composite/common.h"

namespace ember {
namespace {

struct Moments {
  Tensor normalized;
  Tensor mean;  // keepdim shape
  Tensor var;   // biased, keepdim shape
};

Moments normalize_over(const Tensor& x, IntArrayRef dims, double eps) {
  const Tensor m = mean(x, dims, true);
  const Tensor centered = x - m;
  const Tensor v = mean(centered * centered, dims, true);
  return {centered * rsqrt(v + eps), m, v};
}

void check_param(std::string_view op, std::string_view name, const std::optional<Tensor>& p, IntArrayRef shape) {
  if (p && p->sizes() != DimVector(shape)) {
    throw_error(ErrorKind::Runtime, std::string(op) + "(): expected " + std::string(name) + " of shape " +
                                        shape_str(shape) + ", but got " + shape_str(p->sizes()));
  }
}

Tensor affine(Tensor y, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias, IntArrayRef shape) {
  if (weight) y = y * weight->reshape(shape);
  if (bias) y = y + bias->reshape(shape);
  return y;
}

// running = (1 - momentum) * running + momentum * scale * batch, in place.
// Running statistics are state, not part of the result: no graph is recorded.
void update_running(Tensor running, const Tensor& batch, double scale, double momentum) {
  const autograd::NoGradGuard no_grad;
  running *= 1 - momentum;
  running += batch.reshape(running.sizes()) * (momentum * scale);
}

// Every dim but the channel dim 1 of a [N, C, ...] input.
DimVector batch_dims(const Tensor& x) {
  DimVector dims;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (d != 1) dims.push_back(d);
  }
  return dims;
}

}  // namespace

Tensor layer_norm(const Tensor& x, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps) {
  composite::check_floating("layer_norm", x);
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  const int64_t lead = x.dim() - k;
  bool matches = k > 0 && lead >= 0;
  for (int64_t i = 0; matches && i < k; ++i) matches = x.size(lead + i) == normalized_shape[i];
  if (!matches) {
    throw_error(ErrorKind::Runtime, "layer_norm(): normalized_shape " + shape_str(normalized_shape) +
                                        " must be a non-empty suffix of the input shape " + shape_str(x.sizes()));
  }
  check_param("layer_norm", "weight", weight, normalized_shape);
  check_param("layer_norm", "bias", bias, normalized_shape);
  static const dispatch::Op& fused = dispatch::op(dispatch::OpId::LayerNorm);
  const bool params_fit = (!weight || (weight->dtype() == x.dtype() && weight->device() == x.device())) &&
                          (!bias || (bias->dtype() == x.dtype() && bias->device() == x.device()));
  if (params_fit && dispatch::use_composite_kernel(fused, x)) {
    const TensorOptions options(x.dtype(), x.device());
    return dispatch::call_single(fused,
                                 {x.contiguous(), weight ? weight->contiguous() : ones(normalized_shape, options),
                                  bias ? bias->contiguous() : zeros(normalized_shape, options)},
                                 {dispatch::attr_int("normalized_ndim", k), dispatch::attr_float("eps", eps)});
  }
  DimVector dims;
  for (int64_t i = 0; i < k; ++i) dims.push_back(lead + i);
  return affine(normalize_over(x, dims, eps).normalized, weight, bias, normalized_shape);
}

Tensor batch_norm(const Tensor& x, const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
                  const std::optional<Tensor>& weight, const std::optional<Tensor>& bias, bool training,
                  double momentum, double eps) {
  composite::check_floating("batch_norm", x);
  composite::check_rank("batch_norm", x, 2, kMaxDims, "input");
  const int64_t channels = x.size(1);
  const int64_t per_channel[] = {channels};
  for (const auto& [name, p] : {std::pair<const char*, const std::optional<Tensor>&>{"running_mean", running_mean},
                                {"running_var", running_var}, {"weight", weight}, {"bias", bias}}) {
    check_param("batch_norm", name, p, per_channel);
  }
  const DimVector shape = composite::channel_shape(channels, x.dim());
  if (!training) {
    if (!running_mean || !running_var) {
      throw_error(ErrorKind::Runtime, "batch_norm(): running_mean and running_var must be given in evaluation mode");
    }
    const Tensor normalized = (x - running_mean->reshape(shape)) * rsqrt(running_var->reshape(shape) + eps);
    return affine(normalized, weight, bias, shape);
  }
  const int64_t count = channels == 0 ? 0 : x.numel() / channels;
  if (count <= 1) {
    throw_error(ErrorKind::Value, "batch_norm(): expected more than 1 value per channel when training, got input shape " +
                                      shape_str(x.sizes()));
  }
  const Moments moments = normalize_over(x, batch_dims(x), eps);
  if (running_mean) update_running(*running_mean, moments.mean, 1, momentum);
  if (running_var) {
    const double unbiased = static_cast<double>(count) / static_cast<double>(count - 1);
    update_running(*running_var, moments.var, unbiased, momentum);
  }
  return affine(moments.normalized, weight, bias, shape);
}

Tensor group_norm(const Tensor& x, int64_t num_groups, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps) {
  composite::check_floating("group_norm", x);
  composite::check_rank("group_norm", x, 2, kMaxDims, "input");
  const int64_t channels = x.size(1);
  if (num_groups <= 0 || channels % num_groups != 0) {
    throw_error(ErrorKind::Runtime, "group_norm(): expected the number of channels (" + std::to_string(channels) +
                                        ") of input " + shape_str(x.sizes()) + " to be divisible by num_groups (" +
                                        std::to_string(num_groups) + ")");
  }
  const int64_t per_channel[] = {channels};
  check_param("group_norm", "weight", weight, per_channel);
  check_param("group_norm", "bias", bias, per_channel);
  const Tensor grouped = x.reshape({x.size(0), num_groups, -1});
  const Tensor normalized = normalize_over(grouped, {2}, eps).normalized.reshape(x.sizes());
  return affine(normalized, weight, bias, composite::channel_shape(channels, x.dim()));
}

}  // namespace ember
