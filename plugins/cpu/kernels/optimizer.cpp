// adam_update, sgd_update and rmsprop_update, the fused kernels of the
// optimizers' update composites (ops.md "Composite ops a backend may
// override"): one pass over the parameter, its gradient and its state where
// the decomposition makes up to fourteen.
//
// Note [Optimizer kernels round like the ops]: the kernels must give the
// decomposition's bits (Note [Fused optimizer updates] in the core). Each
// line below is one op of the decomposition in the parameter's dtype, every
// scalar is rounded to that dtype first (as the core rounds a Python number
// beside a tensor), and this file is compiled with -ffp-contract=off
// (plugins/cpu/CMakeLists.txt), so that no multiply and add become one
// fused multiply-add rounded once. +, -, *, /, sqrt and maximum are
// correctly rounded in every lane (Note [One-pass exact arithmetic]), so the
// vector loops give the scalar bits wherever a thread's chunk starts. Only
// float32 and float64 have kernels: a reduced float's decomposition rounds
// each step to its own dtype, which a kernel would have to mimic with a
// conversion per op; float16 and bfloat16 parameters run the decomposition.
#include <cmath>
#include <string>

#include "../parallel.h"
#include "grain.h"
#include "isa_clones.h"
#include "kernels.h"

namespace ember::cpu {
namespace {

// About 0.5 ns an element for AdamW (a square root and a division among a
// dozen ops; RMSprop has the same two) and 0.2 ns for SGD with momentum, one
// core, 64K float32 in L2 (Note [Grain sizes]).
constexpr int64_t kAdaptiveGrain = grain_for(0.5);
constexpr int64_t kSgdGrain = grain_for(0.2);

// The operands arrive contiguous, of the parameter's dtype (the core passes
// any other layout to the decomposition); an empty state tensor stands for
// state the options leave unused.
void check_operand(const ember_kernel_call& call, const char* op, int64_t i) {
  const DLTensor& param = call.inputs[0];
  const DLTensor& t = call.inputs[i];
  if (!sdk::is_contiguous(t) || sdk::numel(t) != sdk::numel(param) || t.dtype.code != param.dtype.code ||
      t.dtype.bits != param.dtype.bits) {
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, std::string(op) + ": input " + std::to_string(i) + " (" +
                                                 std::to_string(sdk::numel(t)) + " elements) is not a contiguous " +
                                                 "tensor of the parameter's dtype and " +
                                                 std::to_string(sdk::numel(param)) + " elements");
  }
}

// check_operand for inputs [0, used_inputs).
void check_operands(const ember_kernel_call& call, const char* op, int64_t used_inputs) {
  for (int64_t i = 0; i < used_inputs; ++i) check_operand(call, op, i);
}

template <class T>
T* operand(const DLTensor& t) {
  return reinterpret_cast<T*>(sdk::data_ptr(t));
}

// maximum's NaN rule: NaN if either operand is NaN, the first one first.
template <class T>
T maximum(T a, T b) {
  if (a != a) return a;
  if (b != b) return b;
  return a < b ? b : a;
}

// The steps the updates share, one op of the decomposition a line.

// -grad with maximize, then + param * rate with L2 weight decay.
template <class T>
inline __attribute__((always_inline)) T effective_grad(T grad, T param, bool maximize, bool l2, T rate) {
  grad = maximize ? -grad : grad;
  const T decay = param * rate;
  const T with_decay = grad + decay;
  return l2 ? with_decay : grad;
}

// avg + (x - avg) * weight: a moving average's lerp toward x.
template <class T>
inline __attribute__((always_inline)) T lerp_toward(T avg, T x, T weight) {
  const T toward = x - avg;
  const T step = toward * weight;
  return avg + step;
}

// avg * keep + (x * x) * weight: a moving average of squares.
template <class T>
inline __attribute__((always_inline)) T average_of_squares(T avg, T x, T keep, T weight) {
  const T square = x * x;
  const T step = square * weight;
  const T kept = avg * keep;
  return kept + step;
}

// Adam's scalars, each rounded to T as the decomposition's op rounds it.
template <class T>
struct AdamScalars {
  bool maximize, weight_decay, decoupled;
  T decay_factor, weight_decay_rate, one_minus_beta1, beta2, one_minus_beta2, bias_correction2_sqrt, eps, step_size;

  explicit AdamScalars(const ember_kernel_call& call) {
    const double lr = sdk::attr_float(call, "lr"), wd = sdk::attr_float(call, "weight_decay");
    const double beta1 = sdk::attr_float(call, "beta1"), b2 = sdk::attr_float(call, "beta2");
    maximize = sdk::attr_bool(call, "maximize");
    weight_decay = wd != 0.0;
    decoupled = sdk::attr_bool(call, "decoupled_weight_decay");
    decay_factor = static_cast<T>(1 - lr * wd);
    weight_decay_rate = static_cast<T>(wd);
    one_minus_beta1 = static_cast<T>(1 - beta1);
    beta2 = static_cast<T>(b2);
    one_minus_beta2 = static_cast<T>(1 - b2);
    bias_correction2_sqrt = static_cast<T>(sdk::attr_float(call, "bias_correction2_sqrt"));
    eps = static_cast<T>(sdk::attr_float(call, "eps"));
    step_size = static_cast<T>(sdk::attr_float(call, "step_size"));
  }
};

// Elements [0, n) of one chunk; each statement is one op of the
// decomposition (Note [Optimizer kernels round like the ops]). The option
// tests are loop-invariant selects, which the vectoriser keeps as blends.
template <class T, bool kAmsgrad>
EMBER_CPU_ISA_CLONES void adam_run(T* __restrict param, const T* __restrict grad_in, T* __restrict exp_avg,
                                   T* __restrict exp_avg_sq, T* __restrict max_exp_avg_sq, int64_t n,
                                   const AdamScalars<T> s) {
  const bool l2 = s.weight_decay && !s.decoupled, decoupled = s.weight_decay && s.decoupled;
  for (int64_t i = 0; i < n; ++i) {
    const T grad = effective_grad(grad_in[i], param[i], s.maximize, l2, s.weight_decay_rate);
    const T decayed = param[i] * s.decay_factor;
    const T p = decoupled ? decayed : param[i];
    const T m = lerp_toward(exp_avg[i], grad, s.one_minus_beta1);
    exp_avg[i] = m;
    const T v = average_of_squares(exp_avg_sq[i], grad, s.beta2, s.one_minus_beta2);
    exp_avg_sq[i] = v;
    T second_moment = v;
    if constexpr (kAmsgrad) {
      second_moment = maximum(max_exp_avg_sq[i], v);
      max_exp_avg_sq[i] = second_moment;
    }
    const T root = std::sqrt(second_moment);
    const T corrected = root / s.bias_correction2_sqrt;
    const T denom = corrected + s.eps;
    const T ratio = m / denom;
    const T update = ratio * s.step_size;
    param[i] = p - update;
  }
}

// inputs: param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq; outputs: the
// same tensors but grad.
template <class T>
void adam_update(const ember_kernel_call& call) {
  const bool amsgrad = sdk::attr_bool(call, "amsgrad");
  check_operands(call, "adam_update", amsgrad ? 5 : 4);
  const AdamScalars<T> s(call);
  T* param = operand<T>(call.outputs[0]);
  const T* grad = operand<T>(call.inputs[1]);
  T* exp_avg = operand<T>(call.outputs[1]);
  T* exp_avg_sq = operand<T>(call.outputs[2]);
  T* max_exp_avg_sq = operand<T>(call.outputs[3]);
  const auto run = amsgrad ? &adam_run<T, true> : &adam_run<T, false>;
  parallel_for(0, sdk::numel(call.inputs[0]), kAdaptiveGrain, [&](int64_t begin, int64_t end) {
    run(param + begin, grad + begin, exp_avg + begin, exp_avg_sq + begin,
        amsgrad ? max_exp_avg_sq + begin : max_exp_avg_sq, end - begin, s);
  });
}

template <class T>
struct SgdScalars {
  bool maximize, weight_decay, dampened, nesterov;
  T weight_decay_rate, momentum, dampening_factor, lr;

  explicit SgdScalars(const ember_kernel_call& call) {
    const double wd = sdk::attr_float(call, "weight_decay"), alpha = 1 - sdk::attr_float(call, "dampening");
    maximize = sdk::attr_bool(call, "maximize");
    weight_decay = wd != 0.0;
    dampened = alpha != 1.0;
    nesterov = sdk::attr_bool(call, "nesterov");
    weight_decay_rate = static_cast<T>(wd);
    momentum = static_cast<T>(sdk::attr_float(call, "momentum"));
    dampening_factor = static_cast<T>(alpha);
    lr = static_cast<T>(sdk::attr_float(call, "lr"));
  }
};

// What the momentum buffer does this step.
enum class Momentum { None, Init, Accumulate };

template <class T, Momentum kMomentum>
EMBER_CPU_ISA_CLONES void sgd_run(T* __restrict param, const T* __restrict grad_in, T* __restrict buffer, int64_t n,
                                  const SgdScalars<T> s) {
  for (int64_t i = 0; i < n; ++i) {
    const T p = param[i];
    T grad = effective_grad(grad_in[i], p, s.maximize, s.weight_decay, s.weight_decay_rate);
    if constexpr (kMomentum != Momentum::None) {
      T history = grad;
      if constexpr (kMomentum == Momentum::Accumulate) {
        const T decayed = buffer[i] * s.momentum;
        const T dampened = grad * s.dampening_factor;
        history = decayed + (s.dampened ? dampened : grad);
      }
      buffer[i] = history;
      const T lookahead = history * s.momentum;
      const T nesterov = grad + lookahead;
      grad = s.nesterov ? nesterov : history;
    }
    const T update = grad * s.lr;
    param[i] = p - update;
  }
}

// inputs: param, grad, momentum_buffer; outputs: param, momentum_buffer.
template <class T>
void sgd_update(const ember_kernel_call& call) {
  const bool momentum = sdk::attr_float(call, "momentum") != 0.0;
  check_operands(call, "sgd_update", momentum ? 3 : 2);
  const SgdScalars<T> s(call);
  const auto run = !momentum                                      ? &sgd_run<T, Momentum::None>
                   : sdk::attr_bool(call, "init_momentum_buffer") ? &sgd_run<T, Momentum::Init>
                                                                  : &sgd_run<T, Momentum::Accumulate>;
  T* param = operand<T>(call.outputs[0]);
  const T* grad = operand<T>(call.inputs[1]);
  T* buffer = operand<T>(call.outputs[1]);
  parallel_for(0, sdk::numel(call.inputs[0]), kSgdGrain, [&](int64_t begin, int64_t end) {
    run(param + begin, grad + begin, momentum ? buffer + begin : buffer, end - begin, s);
  });
}

template <class T>
struct RmspropScalars {
  bool maximize, weight_decay;
  T weight_decay_rate, alpha, one_minus_alpha, eps, momentum, lr;

  explicit RmspropScalars(const ember_kernel_call& call) {
    const double wd = sdk::attr_float(call, "weight_decay"), a = sdk::attr_float(call, "alpha");
    maximize = sdk::attr_bool(call, "maximize");
    weight_decay = wd != 0.0;
    weight_decay_rate = static_cast<T>(wd);
    alpha = static_cast<T>(a);
    one_minus_alpha = static_cast<T>(1 - a);
    eps = static_cast<T>(sdk::attr_float(call, "eps"));
    momentum = static_cast<T>(sdk::attr_float(call, "momentum"));
    lr = static_cast<T>(sdk::attr_float(call, "lr"));
  }
};

template <class T, bool kCentered, bool kMomentum>
EMBER_CPU_ISA_CLONES void rmsprop_run(T* __restrict param, const T* __restrict grad_in, T* __restrict square_avg,
                                      T* __restrict grad_avg, T* __restrict buffer, int64_t n,
                                      const RmspropScalars<T> s) {
  for (int64_t i = 0; i < n; ++i) {
    const T p = param[i];
    const T grad = effective_grad(grad_in[i], p, s.maximize, s.weight_decay, s.weight_decay_rate);
    const T v = average_of_squares(square_avg[i], grad, s.alpha, s.one_minus_alpha);
    square_avg[i] = v;
    T variance = v;
    if constexpr (kCentered) {
      const T mean = lerp_toward(grad_avg[i], grad, s.one_minus_alpha);
      grad_avg[i] = mean;
      const T mean_sq = mean * mean;
      variance = v - mean_sq;
    }
    const T root = std::sqrt(variance);
    const T avg = root + s.eps;
    const T ratio = grad / avg;
    T step = ratio;
    if constexpr (kMomentum) {
      const T decayed = buffer[i] * s.momentum;
      step = decayed + ratio;
      buffer[i] = step;
    }
    const T update = step * s.lr;
    param[i] = p - update;
  }
}

// inputs: param, grad, square_avg, grad_avg, momentum_buffer; outputs: the
// same tensors but grad.
template <class T>
void rmsprop_update(const ember_kernel_call& call) {
  const bool centered = sdk::attr_bool(call, "centered"), momentum = sdk::attr_float(call, "momentum") > 0;
  check_operands(call, "rmsprop_update", 3);
  if (centered) check_operand(call, "rmsprop_update", 3);
  if (momentum) check_operand(call, "rmsprop_update", 4);
  const RmspropScalars<T> s(call);
  const auto run = centered ? (momentum ? &rmsprop_run<T, true, true> : &rmsprop_run<T, true, false>)
                            : (momentum ? &rmsprop_run<T, false, true> : &rmsprop_run<T, false, false>);
  T* param = operand<T>(call.outputs[0]);
  const T* grad = operand<T>(call.inputs[1]);
  T* square_avg = operand<T>(call.outputs[1]);
  T* grad_avg = operand<T>(call.outputs[2]);
  T* buffer = operand<T>(call.outputs[3]);
  parallel_for(0, sdk::numel(call.inputs[0]), kAdaptiveGrain, [&](int64_t begin, int64_t end) {
    run(param + begin, grad + begin, square_avg + begin, centered ? grad_avg + begin : grad_avg,
        momentum ? buffer + begin : buffer, end - begin, s);
  });
}

using OptimizerTypes = sdk::TypeList<float, double>;

}  // namespace

void register_optimizer_kernels(const sdk::Registrar& r) {
  r.add_each("adam_update", OptimizerTypes{},
             [](auto tag) { return &sdk::kernel_entry<&adam_update<typename decltype(tag)::type>>; });
  r.add_each("sgd_update", OptimizerTypes{},
             [](auto tag) { return &sdk::kernel_entry<&sgd_update<typename decltype(tag)::type>>; });
  r.add_each("rmsprop_update", OptimizerTypes{},
             [](auto tag) { return &sdk::kernel_entry<&rmsprop_update<typename decltype(tag)::type>>; });
}

}  // namespace ember::cpu
