// Softmax family and pointwise activations, composed from elementwise
// primitives and reductions.
#include <cmath>
#include <string>

#include "autograd/record.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_registry.h"
#include "ops/composite/common.h"

namespace ember {

using composite::recorded;
using composite::to_floating;

namespace {

// The backend's fused kernel when it has one (Note [Composite kernels]).
std::optional<Tensor> fused_over_dim(const char* name, const Tensor& x, int64_t dim) {
  const dispatch::Op& op = dispatch::OpRegistry::get().at(name);
  if (!dispatch::use_composite_kernel(op, x)) return std::nullopt;
  const int64_t d = x.dim() == 0 ? 0 : normalize_dim(dim, x.dim(), name);
  const Tensor input = x.dim() == 0 ? x.reshape({1}) : x;
  const Tensor out = dispatch::call_single(op, {input}, {dispatch::attr_int("dim", d)});
  return x.dim() == 0 ? out.reshape(IntArrayRef{}) : out;
}

}  // namespace

// Subtracting the row maximum keeps exp() from overflowing on large logits.
// The result does not depend on the shift, so no gradient flows through it:
// differentiated, it would only add terms that cancel, which in float16 or
// bfloat16 leaves rounding error at each line's maximum.
Tensor softmax(const Tensor& x, int64_t dim) {
  const Tensor xf = to_floating(x);
  if (auto fused = fused_over_dim("softmax", xf, dim)) return *fused;
  const int64_t dims[] = {dim};
  const Tensor e = exp(xf - amax(xf.detach(), dims, true));
  return e / sum(e, dims, true);
}

Tensor log_softmax(const Tensor& x, int64_t dim) {
  const Tensor xf = to_floating(x);
  if (auto fused = fused_over_dim("log_softmax", xf, dim)) return *fused;
  const int64_t dims[] = {dim};
  const Tensor shifted = xf - amax(xf.detach(), dims, true);
  return shifted - log(sum(exp(shifted), dims, true));
}

Tensor clamp(const Tensor& x, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  if (!min && !max) throw_error(ErrorKind::Runtime, "clamp(): at least one of 'min' or 'max' must not be None");
  if (x.dtype() == DType::Bool) throw_error(ErrorKind::NotImplemented, "clamp(): not implemented for dtype bool");
  // maximum then minimum: NaN propagates, and min > max gives max (PyTorch).
  Tensor out = x;
  if (min) out = maximum(out, composite::scalar_fitting(x, *min, "clamp"));
  if (max) out = minimum(out, composite::scalar_fitting(x, *max, "clamp"));
  return out;
}

// Not clamp(x, 0) when recorded: maximum's derivative splits ties, while
// relu's gradient at 0 is 0 (PyTorch), and a where has a one-op backward.
// NaN stays NaN. Unrecorded, relu is PyTorch's clamp_min(x, 0), -0.0 kept.
Tensor relu(const Tensor& x) {
  if (x.dtype() == DType::Bool) throw_error(ErrorKind::Runtime, "relu(): boolean inputs are not supported");
  if (!recorded(x)) return clamp(x, Scalar(0), std::nullopt);
  return autograd::name_history(where(le(x, 0), Scalar(0), x), "ReluBackward0");
}

// Unrecorded with a slope in [0, 1], max(x, slope * x) is the same value in
// two passes for three.
Tensor leaky_relu(const Tensor& x, double negative_slope) {
  if (!recorded(x) && negative_slope >= 0 && negative_slope <= 1 && is_floating(x.dtype())) {
    return maximum(x, x * negative_slope);
  }
  return where(gt(x, 0), x, x * negative_slope);
}

Tensor gelu(const Tensor& x, std::string_view approximate) {
  if (approximate != "none" && approximate != "tanh") {
    throw_error(ErrorKind::Runtime,
                "gelu(): approximate must be 'none' or 'tanh', got '" + std::string(approximate) + "'");
  }
  const bool tanh_form = approximate == "tanh";
  const Tensor xf = to_floating(x);
  static const dispatch::Op& fused = dispatch::op(dispatch::OpId::Gelu);
  if (dispatch::use_composite_kernel(fused, xf)) {
    return dispatch::call_single(fused, {xf.contiguous()}, {dispatch::attr_int("approximate", tanh_form ? 1 : 0)});
  }
  // The forms of Note [gelu without cancellation] (plugins/cpu/kernels/gelu.cpp):
  // PyTorch's 1 + erf, and sigmoid(2 u) for 1 + tanh(u).
  if (!tanh_form) return xf * 0.5 * (erf(xf * M_SQRT1_2) + 1.0);
  const double twice_k = 2 * std::sqrt(2.0 / M_PI);
  return xf * sigmoid((xf + xf * xf * xf * 0.044715) * twice_k);
}

Tensor silu(const Tensor& x) {
  const Tensor xf = to_floating(x);
  return xf * sigmoid(xf);
}

// The branch not taken is evaluated on a bounded input so that it stays
// finite: an inf there would turn the zero gradient of `where` into NaN.
// At the threshold itself the soft branch is taken whole (a clamp there
// would split the tie and halve the gradient).
Tensor softplus(const Tensor& x, double beta, double threshold) {
  const Tensor scaled = to_floating(x) * beta;
  const Tensor linear = gt(scaled, threshold);
  const Tensor soft = log1p(exp(where(linear, Scalar(threshold), scaled))) / beta;
  return where(linear, to_floating(x), soft);
}

// The negative branch reads x itself at 0 (not a clamp, whose derivative
// splits the tie): elu's gradient at 0 is alpha, as in PyTorch.
Tensor elu(const Tensor& x, double alpha) {
  const Tensor xf = to_floating(x);
  const Tensor positive = gt(xf, 0);
  return where(positive, xf, expm1(where(positive, Scalar(0), xf)) * alpha);
}

// PyTorch's gradient is 0 at both bounds, where a clamp's splits the tie;
// integers, which have no gradient, keep their dtype through the clamp.
Tensor hardtanh(const Tensor& x, double min_val, double max_val) {
  if (!is_floating(x.dtype()) || (!recorded(x) && min_val <= max_val)) return clamp(x, Scalar(min_val), Scalar(max_val));
  return where(le(x, min_val), Scalar(min_val), where(ge(x, max_val), Scalar(max_val), x));
}

Tensor dropout(const Tensor& x, double p, bool training) {
  if (p < 0 || p > 1) {
    throw_error(ErrorKind::Value, "dropout(): probability has to be between 0 and 1, but got " + std::to_string(p));
  }
  if (!training || p == 0) return x;
  composite::check_floating("dropout", x);
  if (p == 1) return x * 0;
  const Tensor keep = lt(rand(x.sizes(), TensorOptions(x.dtype(), x.device())), 1 - p);
  return x * keep * (1 / (1 - p));
}

}  // namespace ember
