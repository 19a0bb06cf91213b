// Reductions composed from sum/mean/amax/amin: logsumexp, var, std, norm.
#include <algorithm>
#include <cmath>
#include <memory>
#include <limits>
#include <string>

#include "ember/autograd.h"
#include "ops/composite/common.h"

namespace ember {

Tensor logsumexp(const Tensor& x, IntArrayRef dims, bool keepdim) {
  const Tensor xf = composite::to_floating(x);
  // Shift by the maximum for stability; an infinite maximum is replaced by 0
  // so that a row of -inf gives -inf (and +inf gives +inf), not NaN.
  const Tensor m = amax(xf, dims, true);
  const Tensor shift = where(eq(abs(m), std::numeric_limits<double>::infinity()), 0.0, m);
  const Tensor s = log(sum(exp(xf - shift), dims, keepdim));
  return s + shift.reshape(s.sizes());
}

// Two passes, (x - mean)^2 summed, instead of E[x^2] - E[x]^2: the latter
// cancels catastrophically in float32 when the mean is large.
Tensor var(const Tensor& x, IntArrayRef dims, double correction, bool keepdim) {
  composite::check_floating("var", x);
  const DimVector norm_dims = normalize_dims(dims, x.dim(), "var");
  int64_t count = 1;
  if (norm_dims.empty() || x.dim() == 0) {
    count = x.numel();
  } else {
    for (int64_t d : norm_dims) count *= x.size(d);
  }
  const Tensor centered = x - mean(x, dims, true);
  // Division by zero or fewer degrees of freedom gives inf/NaN, as in PyTorch.
  return sum(centered * centered, dims, keepdim) / std::max(0.0, static_cast<double>(count) - correction);
}

Tensor std(const Tensor& x, IntArrayRef dims, double correction, bool keepdim) {
  return sqrt(var(x, dims, correction, keepdim));
}

namespace {

// Note [Norm subgradient]
// d||x||_p/dx = sign(x) |x|^(p-1) / ||x||^(p-1) is 0/0 where the norm is 0.
// PyTorch takes 0 there, the subgradient gradient clipping and normalize()
// rely on; the chain rule through sqrt or pow would give inf * 0 = NaN. So
// the p-norms other than 0, 1 and inf carry their own backward.
class VectorNorm final : public autograd::CustomFunction {
 public:
  VectorNorm(double p, IntArrayRef dims, bool keepdim) : p_(p), dims_(dims), keepdim_(keepdim) {}

  std::string name() const override { return "LinalgVectorNorm"; }
  std::string node_name() const override { return "LinalgVectorNormBackward0"; }

  std::vector<Tensor> forward(autograd::FunctionContext& ctx, const std::vector<Tensor>& inputs) override {
    const Tensor& x = inputs[0];
    Tensor n = p_ == 2 ? sqrt(sum(x * x, dims_, keepdim_)) : pow(sum(pow(abs(x), p_), dims_, keepdim_), 1.0 / p_);
    ctx.save_for_backward({x, n});
    return {n};
  }

  std::vector<Tensor> backward(autograd::FunctionContext& ctx, const std::vector<Tensor>& grads) override {
    const std::vector<Tensor> saved = ctx.saved_tensors();
    const Tensor& x = saved[0];
    // Reduced dims kept as size 1, so the norm and its gradient broadcast.
    DimVector kept = x.sizes();
    if (dims_.empty()) {
      std::fill(kept.begin(), kept.end(), 1);
    } else {
      for (int64_t d : normalize_dims(dims_, x.dim(), "norm")) kept[d] = 1;
    }
    const Tensor n = saved[1].reshape(kept);
    const Tensor g = grads[0].reshape(kept);
    const Tensor scale = where(eq(n, 0.0), 0.0, g / (p_ == 2 ? n : pow(n, p_ - 1)));
    Tensor scaled_x = x;
    if (p_ != 2) {
      scaled_x = sign(x) * pow(abs(x), p_ - 1);
      // |x|^(p-1) is inf at 0 for p < 1; the subgradient there is 0.
      if (p_ < 1) scaled_x = where(eq(x, 0.0), 0.0, scaled_x);
    }
    return {scaled_x * scale};
  }

 private:
  double p_;
  DimVector dims_;
  bool keepdim_;
};

}  // namespace

Tensor norm(const Tensor& x, double p, IntArrayRef dims, bool keepdim) {
  composite::check_floating("norm", x);
  if (std::isinf(p)) return p > 0 ? amax(abs(x), dims, keepdim) : amin(abs(x), dims, keepdim);
  if (p == 1) return sum(abs(x), dims, keepdim);
  if (p == 0) return sum(ne(x, 0), dims, keepdim).to(x.dtype());
  return autograd::apply_function(std::make_shared<VectorNorm>(p, dims, keepdim), {x})[0];
}

}  // namespace ember
