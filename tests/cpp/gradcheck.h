#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <ember/ember.h>

namespace ember::testing {

using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

// Compares autograd's gradient of sum(f(inputs) * w), for a fixed random w,
// with central finite differences in float64. Inputs must be float64 and
// require grad; every element of every input is perturbed.
inline void gradcheck(const Fn& f, const std::vector<Tensor>& inputs, const std::string& label,
                      double eps = 1e-6, double tol = 1e-5) {
  const Tensor probe = f(inputs);
  manual_seed(1234);
  const Tensor weights = rand(probe.sizes(), TensorOptions(DType::Float64));
  auto objective = [&](const std::vector<Tensor>& xs) { return sum(mul(f(xs).to(DType::Float64), weights)); };
  const std::vector<Tensor> analytic = autograd::grad({objective(inputs)}, inputs, {}, false, false, true);
  autograd::NoGradGuard no_grad;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const Tensor& x = inputs[k];
    const std::vector<double> got =
        analytic[k].defined() ? analytic[k].contiguous().tolist<double>() : std::vector<double>(x.numel(), 0.0);
    Tensor flat = x.detach().contiguous();
    std::vector<Tensor> xs = inputs;
    for (int64_t i = 0; i < x.numel(); ++i) {
      std::vector<double> values = flat.tolist<double>();
      const double original = values[i];
      values[i] = original + eps;
      xs[k] = tensor<double>(values, x.sizes());
      const double plus = objective(xs).item<double>();
      values[i] = original - eps;
      xs[k] = tensor<double>(values, x.sizes());
      const double minus = objective(xs).item<double>();
      const double numeric = (plus - minus) / (2 * eps);
      EXPECT_NEAR(got[i], numeric, tol * (1 + std::abs(numeric)))
          << label << ": input " << k << " element " << i;
    }
  }
}

// A float64 leaf with values in [low, high), reproducible per seed.
inline Tensor leaf(IntArrayRef shape, uint64_t seed, double low = -1.0, double high = 1.0) {
  manual_seed(seed);
  Tensor t = rand(shape, TensorOptions(DType::Float64)) * (high - low) + low;
  return t.detach().requires_grad_();
}

}  // namespace ember::testing
