#pragma once

// One optimizer step on one parameter, in place: the catalogue's
// adam_update, sgd_update and rmsprop_update (Note [Fused optimizer
// updates]). ember.optim's foreach
// updates call these once per parameter, with grad mode off.
#include "ember/tensor.h"

namespace ember {

struct AdamUpdateOptions {
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0;
  bool amsgrad = false, maximize = false, decoupled_weight_decay = false;
};

// Adam, or AdamW with decoupled_weight_decay, at step t: updates param,
// exp_avg, exp_avg_sq and, with amsgrad, max_exp_avg_sq (undefined without
// it) from grad, with the host's bias corrections step_size =
// lr / (1 - beta1^t) and bias_correction2_sqrt = sqrt(1 - beta2^t).
void adam_update_(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                  const Tensor& max_exp_avg_sq, double step_size, double bias_correction2_sqrt,
                  const AdamUpdateOptions& options);
// The same with the bias corrections as float64 0-d tensors, as a traced
// step computes them (Note [Traced bias corrections]): always the
// decomposition, which the compiler fuses.
void adam_update_(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                  const Tensor& max_exp_avg_sq, const Tensor& step_size, const Tensor& bias_correction2_sqrt,
                  const AdamUpdateOptions& options);

struct SgdUpdateOptions {
  double lr = 1e-3, momentum = 0, dampening = 0, weight_decay = 0;
  bool nesterov = false, maximize = false;
};

// SGD: updates param and, with momentum, momentum_buffer (undefined without
// it) from grad. init_momentum_buffer says the buffer holds no history yet
// (the first step): it is set to the gradient rather than decayed into.
void sgd_update_(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer, bool init_momentum_buffer,
                 const SgdUpdateOptions& options);

struct RmspropUpdateOptions {
  double lr = 1e-2, alpha = 0.99, eps = 1e-8, weight_decay = 0, momentum = 0;
  bool centered = false, maximize = false;
};

// RMSprop: updates param, square_avg and, when centered, grad_avg and, with
// momentum > 0, momentum_buffer (each undefined without its option) from
// grad.
void rmsprop_update_(const Tensor& param, const Tensor& grad, const Tensor& square_avg, const Tensor& grad_avg,
                     const Tensor& momentum_buffer, const RmspropUpdateOptions& options);

}  // namespace ember
