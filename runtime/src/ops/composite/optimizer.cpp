// The optimizers' update rules on one parameter: adam_update, sgd_update and
// rmsprop_update, composites a backend may run as one kernel
// (ember/optimizer_updates.h).
//
// Note [Fused optimizer updates]: an Adam step is about fourteen elementwise
// ops per parameter, each a pass over memory and a temporary; one kernel
// reads each operand once and writes param and the state once. The
// decomposition is the op sequence ember.optim ran before the composites
// existed (PyTorch's update order, the scalars rounded to the parameter's
// dtype as a Python number is), and a backend's kernel must give the bits the
// decomposition gives: every step rounded to the dtype as the separate op
// rounds it, with no fused multiply-add. So a backend with the kernel and
// one without train alike. The state tensors are outputs written in place;
// state an option leaves unused (max_exp_avg_sq without amsgrad, a momentum
// buffer without momentum, grad_avg of an RMSprop that is not centered) is
// passed as an empty tensor the kernel
// does not touch. The kernel runs when every operand is contiguous and of
// the parameter's dtype and device, and the decomposition otherwise. Every
// scalar meets the tensors in their own dtype (the in-place multiplications
// included, see in_dtype_of), so the contract a kernel meets is one rule:
// round each scalar to the parameter's dtype.
#include <array>
#include <string>

#include "core/shape.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_registry.h"
#include "dispatch/trace_hooks.h"
#include "ember/error.h"
#include "ember/optimizer_updates.h"
#include "ops/composite/common.h"

namespace ember {

namespace {

// Every operand of an update has the parameter's shape, and a floating dtype.
void check_operand(const char* op, const Tensor& param, const Tensor& t, const char* name) {
  if (!(t.sizes() == param.sizes())) {
    throw_error(ErrorKind::Runtime, std::string(op) + "(): expected " + name + " of the parameter's shape " +
                                        shape_str(param.sizes()) + ", but got shape " + shape_str(t.sizes()));
  }
  composite::check_floating(op, t);
}

// The state an option leaves unused, for the kernel call (Note [Fused
// optimizer updates]).
Tensor unused_state(const Tensor& param) { return empty({0}, TensorOptions(param.dtype(), param.device())); }

// The state tensor an option uses, checked; else the unused one.
Tensor optional_state(const char* op, const Tensor& param, const Tensor& state, bool used, const char* name,
                      const char* option) {
  if (!used) return unused_state(param);
  if (!state.defined()) {
    throw_error(ErrorKind::Runtime, std::string(op) + "(): " + option + " needs " + name + ", but got none");
  }
  check_operand(op, param, state, name);
  return state;
}

// Whether the backend's kernel takes this call (Note [Fused optimizer
// updates]); `operands` are the defined ones. A traced step records the
// decomposition, which the compiler fuses into the step's other kernels.
bool runs_kernel(const dispatch::Op& op, const Tensor& param, std::initializer_list<Tensor> operands) {
  if (dispatch::tracing_on_this_thread() || !dispatch::use_composite_kernel(op, param) || !param.is_contiguous()) {
    return false;
  }
  for (const Tensor& t : operands) {
    if (t.dtype() != param.dtype() || t.device() != param.device() || !t.is_contiguous()) return false;
  }
  return true;
}

// The scalar of an in-place multiplication, in t's dtype as `t * value`
// holds it: `t *= Scalar(value)` would hold it in the default float dtype,
// rounding a float64 parameter's factor to float32.
Tensor in_dtype_of(const Tensor& t, double value) { return composite::scalar_like(t, value); }

// grad + weight_decay * param, or grad itself without decay.
Tensor with_weight_decay(const Tensor& grad, const Tensor& param, double weight_decay) {
  return weight_decay != 0.0 ? grad + param * weight_decay : grad;
}

// `Scale` is double on the host, a float64 0-d tensor while tracing (Note
// [Traced bias corrections] in python/src/foreach.cpp): either rounds to the
// parameter's dtype where it meets it.
template <class Scale>
void adam_decomposition(Tensor param, const Tensor& raw_grad, Tensor exp_avg, Tensor exp_avg_sq, Tensor max_exp_avg_sq,
                        const Scale& step_size, const Scale& bias_correction2_sqrt, const AdamUpdateOptions& o) {
  Tensor grad = o.maximize ? -raw_grad : raw_grad;
  if (o.weight_decay != 0.0) {
    if (o.decoupled_weight_decay) {
      mul_(param, in_dtype_of(param, 1 - o.lr * o.weight_decay));
    } else {
      grad = with_weight_decay(grad, param, o.weight_decay);
    }
  }
  exp_avg += (grad - exp_avg) * (1 - o.beta1);  // lerp toward grad
  mul_(exp_avg_sq, in_dtype_of(exp_avg_sq, o.beta2)) += grad * grad * (1 - o.beta2);
  Tensor second_moment = exp_avg_sq;
  if (o.amsgrad) {
    max_exp_avg_sq.copy_(maximum(max_exp_avg_sq, exp_avg_sq));
    second_moment = max_exp_avg_sq;
  }
  const Tensor denom = sqrt(second_moment) / bias_correction2_sqrt + o.eps;
  param -= exp_avg / denom * step_size;
}

void check_adam_operands(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                         const Tensor& max_exp_avg_sq, bool amsgrad) {
  composite::check_floating("adam_update", param);
  check_operand("adam_update", param, grad, "grad");
  check_operand("adam_update", param, exp_avg, "exp_avg");
  check_operand("adam_update", param, exp_avg_sq, "exp_avg_sq");
  if (amsgrad) {
    if (!max_exp_avg_sq.defined()) {
      throw_error(ErrorKind::Runtime, "adam_update(): amsgrad needs max_exp_avg_sq, but got none");
    }
    check_operand("adam_update", param, max_exp_avg_sq, "max_exp_avg_sq");
  }
}

}  // namespace

void adam_update_(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                  const Tensor& max_exp_avg_sq, double step_size, double bias_correction2_sqrt,
                  const AdamUpdateOptions& o) {
  check_adam_operands(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, o.amsgrad);
  static const dispatch::Op& op = dispatch::op(dispatch::OpId::AdamUpdate);
  const Tensor max_state = o.amsgrad ? max_exp_avg_sq : unused_state(param);
  if (!runs_kernel(op, param, {grad, exp_avg, exp_avg_sq, max_state})) {
    adam_decomposition(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step_size, bias_correction2_sqrt, o);
    return;
  }
  std::array<Tensor, 4> outputs{param, exp_avg, exp_avg_sq, max_state};
  dispatch::call_into(
      op, {param, grad, exp_avg, exp_avg_sq, max_state}, outputs,
      {dispatch::attr_float("lr", o.lr), dispatch::attr_float("beta1", o.beta1), dispatch::attr_float("beta2", o.beta2),
       dispatch::attr_float("eps", o.eps), dispatch::attr_float("weight_decay", o.weight_decay),
       dispatch::attr_bool("amsgrad", o.amsgrad), dispatch::attr_bool("maximize", o.maximize),
       dispatch::attr_bool("decoupled_weight_decay", o.decoupled_weight_decay),
       dispatch::attr_float("step_size", step_size),
       dispatch::attr_float("bias_correction2_sqrt", bias_correction2_sqrt)});
}

void adam_update_(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                  const Tensor& max_exp_avg_sq, const Tensor& step_size, const Tensor& bias_correction2_sqrt,
                  const AdamUpdateOptions& o) {
  check_adam_operands(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, o.amsgrad);
  adam_decomposition(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step_size, bias_correction2_sqrt, o);
}

void sgd_update_(const Tensor& param, const Tensor& raw_grad, const Tensor& momentum_buffer, bool init_momentum_buffer,
                 const SgdUpdateOptions& o) {
  composite::check_floating("sgd_update", param);
  check_operand("sgd_update", param, raw_grad, "grad");
  const bool has_momentum = o.momentum != 0.0;
  const Tensor buffer =
      optional_state("sgd_update", param, momentum_buffer, has_momentum, "momentum_buffer", "momentum");
  static const dispatch::Op& op = dispatch::op(dispatch::OpId::SgdUpdate);
  if (runs_kernel(op, param, {raw_grad, buffer})) {
    std::array<Tensor, 2> outputs{param, buffer};
    dispatch::call_into(
        op, {param, raw_grad, buffer}, outputs,
        {dispatch::attr_float("lr", o.lr), dispatch::attr_float("momentum", o.momentum),
         dispatch::attr_float("dampening", o.dampening), dispatch::attr_float("weight_decay", o.weight_decay),
         dispatch::attr_bool("nesterov", o.nesterov), dispatch::attr_bool("maximize", o.maximize),
         dispatch::attr_bool("init_momentum_buffer", init_momentum_buffer)});
    return;
  }
  Tensor grad = with_weight_decay(o.maximize ? -raw_grad : raw_grad, param, o.weight_decay);
  if (has_momentum) {
    Tensor history = momentum_buffer;
    if (init_momentum_buffer) {
      history.copy_(grad);
    } else {
      const double alpha = 1 - o.dampening;
      mul_(history, in_dtype_of(history, o.momentum)) += alpha == 1.0 ? grad : grad * alpha;
    }
    grad = o.nesterov ? grad + history * o.momentum : history;
  }
  Tensor updated = param;
  updated -= grad * o.lr;
}

void rmsprop_update_(const Tensor& param, const Tensor& raw_grad, const Tensor& square_avg, const Tensor& grad_avg,
                     const Tensor& momentum_buffer, const RmspropUpdateOptions& o) {
  composite::check_floating("rmsprop_update", param);
  check_operand("rmsprop_update", param, raw_grad, "grad");
  check_operand("rmsprop_update", param, square_avg, "square_avg");
  const bool has_momentum = o.momentum > 0;
  const Tensor centered_state = optional_state("rmsprop_update", param, grad_avg, o.centered, "grad_avg", "centered");
  const Tensor buffer =
      optional_state("rmsprop_update", param, momentum_buffer, has_momentum, "momentum_buffer", "momentum");
  static const dispatch::Op& op = dispatch::op(dispatch::OpId::RmspropUpdate);
  if (runs_kernel(op, param, {raw_grad, square_avg, centered_state, buffer})) {
    std::array<Tensor, 4> outputs{param, square_avg, centered_state, buffer};
    dispatch::call_into(
        op, {param, raw_grad, square_avg, centered_state, buffer}, outputs,
        {dispatch::attr_float("lr", o.lr), dispatch::attr_float("alpha", o.alpha), dispatch::attr_float("eps", o.eps),
         dispatch::attr_float("weight_decay", o.weight_decay), dispatch::attr_float("momentum", o.momentum),
         dispatch::attr_bool("centered", o.centered), dispatch::attr_bool("maximize", o.maximize)});
    return;
  }
  const Tensor grad = with_weight_decay(o.maximize ? -raw_grad : raw_grad, param, o.weight_decay);
  Tensor second_moment = square_avg;
  mul_(second_moment, in_dtype_of(second_moment, o.alpha)) += grad * grad * (1 - o.alpha);
  Tensor avg;
  if (o.centered) {
    Tensor first_moment = grad_avg;
    first_moment += (grad - first_moment) * (1 - o.alpha);
    avg = sqrt(second_moment - first_moment * first_moment) + o.eps;
  } else {
    avg = sqrt(second_moment) + o.eps;
  }
  Tensor updated = param;
  if (has_momentum) {
    Tensor history = momentum_buffer;
    mul_(history, in_dtype_of(history, o.momentum)) += grad / avg;
    updated -= history * o.lr;
  } else {
    updated -= grad / avg * o.lr;
  }
}

}  // namespace ember
