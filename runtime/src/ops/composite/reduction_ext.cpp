// Reductions composed from sum/mean/amax/amin: logsumexp, var, std, norm.
#include <cmath>
#include <limits>
#include <string>

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

Tensor norm(const Tensor& x, double p, IntArrayRef dims, bool keepdim) {
  composite::check_floating("norm", x);
  if (std::isinf(p)) return p > 0 ? amax(abs(x), dims, keepdim) : amin(abs(x), dims, keepdim);
  if (p == 2) return sqrt(sum(x * x, dims, keepdim));
  if (p == 1) return sum(abs(x), dims, keepdim);
  if (p == 0) return sum(ne(x, 0), dims, keepdim).to(x.dtype());
  return pow(sum(pow(abs(x), p), dims, keepdim), 1.0 / p);
}

}  // namespace ember
