// The optimizer updates (adam_update, sgd_update, rmsprop_update): the
// backend's fused kernel gives the decomposition's bits over several steps,
// for every option, at sizes that run on the calling thread and on the pool
// (Note [Fused optimizer updates]).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include <ember/ember.h>

namespace ember {
namespace {

class OptimizerUpdates : public ::testing::Test {
 protected:
  void TearDown() override { set_composite_kernels_enabled(true); }
};

// Small (inline), odd-sized, and large enough to be split over threads.
constexpr int64_t kSizes[] = {1, 37, 1000, 300001};
constexpr int kSteps = 4;

// Bitwise equal as float values: the same NaN-ness, else the same value and sign.
void expect_same_bits(const Tensor& fused, const Tensor& decomposed, const std::string& what) {
  const std::vector<double> a = fused.tolist<double>(), b = decomposed.tolist<double>();
  ASSERT_EQ(a.size(), b.size()) << what;
  int64_t mismatches = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const bool same =
        (std::isnan(a[i]) && std::isnan(b[i])) || (a[i] == b[i] && std::signbit(a[i]) == std::signbit(b[i]));
    if (!same && mismatches++ < 3) ADD_FAILURE() << what << " element " << i << ": " << a[i] << " vs " << b[i];
  }
  EXPECT_EQ(mismatches, 0) << what;
}

// Gradients with the values that round differently if an op is fused or
// reordered: zeros of both signs, tiny ones whose squares underflow, huge
// ones whose squares overflow, and ordinary ones.
std::vector<Tensor> gradients(int64_t n, DType dtype, int steps) {
  std::vector<Tensor> grads;
  for (int step = 0; step < steps; ++step) {
    Tensor g = randn({n}) * 3.0;
    if (n >= 8) {
      const double specials[] = {0.0, -0.0, 1e-30, -1e-25, 1e30, 7.0, -1e-3, 0.5};
      for (int k = 0; k < 8; ++k) g.narrow(0, k, 1).fill_(specials[(k + step) % 8]);
    }
    grads.push_back(g.to(dtype));
  }
  return grads;
}

// Runs `update(state, grad, step)` kSteps times from one start, with the
// fused kernels on or off, and returns the tensors it updated.
using Update = std::function<void(std::vector<Tensor>& state, const Tensor& grad, int step)>;

std::vector<Tensor> run_steps(bool fused, const std::vector<Tensor>& start, const std::vector<Tensor>& grads,
                              const Update& update) {
  set_composite_kernels_enabled(fused);
  std::vector<Tensor> state;
  for (const Tensor& t : start) state.push_back(t.clone());
  for (size_t step = 0; step < grads.size(); ++step) update(state, grads[step], static_cast<int>(step) + 1);
  set_composite_kernels_enabled(true);
  return state;
}

void expect_fused_matches_decomposition(const std::vector<Tensor>& start, const std::vector<Tensor>& grads,
                                        const Update& update, const std::string& what) {
  const std::vector<Tensor> fused = run_steps(true, start, grads, update);
  const std::vector<Tensor> decomposed = run_steps(false, start, grads, update);
  for (size_t i = 0; i < fused.size(); ++i) {
    expect_same_bits(fused[i], decomposed[i], what + ", state " + std::to_string(i));
  }
}

// One named set of options of an update.
template <class Options>
struct Case {
  const char* name;
  Options options;
};

// Every case at every dtype and size, from a random parameter and
// `num_states` zero state tensors; `update(options, state, grad, step)`
// runs one step (state[0] is the parameter).
template <class Options, size_t kCases, class Step>
void expect_every_case_matches(const Case<Options> (&cases)[kCases], int num_states, const Step& update) {
  for (const DType dtype : {DType::Float32, DType::Float64}) {
    for (const int64_t n : kSizes) {
      const std::vector<Tensor> grads = gradients(n, dtype, kSteps);
      std::vector<Tensor> start = {randn({n}).to(dtype)};
      for (int k = 0; k < num_states; ++k) start.push_back(zeros({n}, TensorOptions(dtype)));
      for (const Case<Options>& c : cases) {
        expect_fused_matches_decomposition(
            start, grads,
            [&](std::vector<Tensor>& s, const Tensor& grad, int step) { update(c.options, s, grad, step); },
            std::string(c.name) + ", " + std::string(dtype_name(dtype)) + ", n " + std::to_string(n));
      }
    }
  }
}

bool has_cpu_kernel(const std::string& op, DType dtype) {
  for (const OpKernels& k : registered_kernels("cpu")) {
    if (k.op == op) return std::find(k.dtypes.begin(), k.dtypes.end(), dtype) != k.dtypes.end();
  }
  return false;
}

TEST_F(OptimizerUpdates, CpuHasTheFusedKernels) {
  for (const DType dtype : {DType::Float32, DType::Float64}) {
    EXPECT_TRUE(has_cpu_kernel("adam_update", dtype)) << dtype_name(dtype);
    EXPECT_TRUE(has_cpu_kernel("sgd_update", dtype)) << dtype_name(dtype);
    EXPECT_TRUE(has_cpu_kernel("rmsprop_update", dtype)) << dtype_name(dtype);
  }
}

TEST_F(OptimizerUpdates, AdamKernelGivesTheDecompositionsBits) {
  const Case<AdamUpdateOptions> cases[] = {
      {"adam", {.lr = 1e-3}},
      {"adam, l2 decay", {.lr = 1e-2, .beta1 = 0.8, .beta2 = 0.99, .weight_decay = 0.1}},
      {"adamw", {.lr = 3e-3, .weight_decay = 0.01, .decoupled_weight_decay = true}},
      {"amsgrad, maximize", {.lr = 1e-2, .eps = 1e-6, .weight_decay = 0.05, .amsgrad = true, .maximize = true}},
      {"adamw, amsgrad",
       {.lr = 0.1, .beta1 = 0.5, .beta2 = 0.9, .weight_decay = 0.3, .amsgrad = true, .decoupled_weight_decay = true}},
  };
  manual_seed(11);
  // param, exp_avg, exp_avg_sq, max_exp_avg_sq.
  expect_every_case_matches(
      cases, 3, [](const AdamUpdateOptions& o, std::vector<Tensor>& s, const Tensor& grad, int step) {
        const double step_size = o.lr / (1 - std::pow(o.beta1, step));
        const double bias_correction2_sqrt = std::sqrt(1 - std::pow(o.beta2, step));
        adam_update_(s[0], grad, s[1], s[2], o.amsgrad ? s[3] : Tensor(), step_size, bias_correction2_sqrt, o);
      });
}

TEST_F(OptimizerUpdates, SgdKernelGivesTheDecompositionsBits) {
  const Case<SgdUpdateOptions> cases[] = {
      {"plain", {.lr = 0.1}},
      {"weight decay, maximize", {.lr = 0.05, .weight_decay = 0.01, .maximize = true}},
      {"momentum", {.lr = 0.05, .momentum = 0.9}},
      {"momentum, dampening, decay", {.lr = 0.05, .momentum = 0.9, .dampening = 0.1, .weight_decay = 0.01}},
      {"nesterov, maximize", {.lr = 0.02, .momentum = 0.8, .nesterov = true, .maximize = true}},
  };
  manual_seed(12);
  // param, momentum buffer (filled by the first step).
  expect_every_case_matches(cases, 1,
                            [](const SgdUpdateOptions& o, std::vector<Tensor>& s, const Tensor& grad, int step) {
                              const bool momentum = o.momentum != 0.0;
                              sgd_update_(s[0], grad, momentum ? s[1] : Tensor(), momentum && step == 1, o);
                            });
}

TEST_F(OptimizerUpdates, RmspropKernelGivesTheDecompositionsBits) {
  const Case<RmspropUpdateOptions> cases[] = {
      {"plain", {.lr = 1e-2}},
      {"decay, maximize", {.lr = 1e-2, .alpha = 0.9, .eps = 1e-6, .weight_decay = 0.1, .maximize = true}},
      {"centered", {.lr = 1e-2, .centered = true}},
      {"momentum", {.lr = 1e-2, .momentum = 0.5}},
      {"centered, momentum, decay",
       {.lr = 0.05, .alpha = 0.8, .weight_decay = 0.01, .momentum = 0.9, .centered = true}},
  };
  manual_seed(14);
  // param, square_avg, grad_avg, momentum buffer.
  expect_every_case_matches(
      cases, 3, [](const RmspropUpdateOptions& o, std::vector<Tensor>& s, const Tensor& grad, int) {
        rmsprop_update_(s[0], grad, s[1], o.centered ? s[2] : Tensor(), o.momentum > 0 ? s[3] : Tensor(), o);
      });
}

// Operands the kernel does not take (a transposed gradient, a transposed
// parameter) run the decomposition, whose result is the kernel's on
// contiguous copies.
TEST_F(OptimizerUpdates, OtherLayoutsRunTheDecomposition) {
  manual_seed(13);
  const AdamUpdateOptions o{.lr = 1e-2, .weight_decay = 0.1, .decoupled_weight_decay = true};
  const Tensor grad = randn({5, 6});
  const Tensor start = randn({5, 6});
  for (const bool transposed_param : {false, true}) {
    Tensor p1 = transposed_param ? start.t().contiguous().t() : start.clone();
    Tensor g1 = transposed_param ? grad : grad.t().contiguous().t();
    Tensor m1 = zeros({5, 6}), v1 = zeros({5, 6});
    Tensor p2 = start.clone(), m2 = zeros({5, 6}), v2 = zeros({5, 6});
    ASSERT_FALSE(p1.is_contiguous() && g1.is_contiguous());
    adam_update_(p1, g1, m1, v1, Tensor(), 0.1, 0.03, o);
    adam_update_(p2, grad, m2, v2, Tensor(), 0.1, 0.03, o);
    expect_same_bits(p1, p2, "param");
    expect_same_bits(m1, m2, "exp_avg");
    expect_same_bits(v1, v2, "exp_avg_sq");
  }
}

TEST_F(OptimizerUpdates, ErrorsNameTheOpAndShapes) {
  const Tensor p = zeros({3, 4});
  try {
    adam_update_(p, zeros({4, 3}), zeros({3, 4}), zeros({3, 4}), Tensor(), 0.1, 1.0, {});
    ADD_FAILURE() << "no error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("adam_update(): expected grad of the parameter's shape [3, 4], but got "
                                         "shape [4, 3]"),
              std::string::npos)
        << e.what();
  }
  try {
    sgd_update_(p, zeros({3, 4}), Tensor(), false, {.lr = 0.1, .momentum = 0.9});
    ADD_FAILURE() << "no error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("sgd_update(): momentum needs momentum_buffer, but got none"),
              std::string::npos)
        << e.what();
  }
  try {
    sgd_update_(zeros({2}, TensorOptions(DType::Int64)), zeros({2}), Tensor(), false, {});
    ADD_FAILURE() << "no error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("sgd_update(): expected a floating point tensor, but got dtype int64"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ember
