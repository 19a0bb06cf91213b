// ember._C._foreach: the optimizers' update rules over every parameter of a
// group in one call, GIL released (PyTorch's "foreach" implementations).
//
// Note [Foreach updates]: the arithmetic of an update is a dozen small ops per
// parameter; run from Python, each op also pays an interpreter round trip,
// which is most of a step's cost for small models. Here the same ops run in
// the same order as python/ember/optim would run them (the same core ops with
// the same scalars), so results are identical bit for bit and every device
// that has the elementwise primitives is served. Adam, SGD and RMSprop are
// one catalogue op per parameter (Note [Fused optimizer updates]), which a
// backend may run as one kernel. The Python side keeps the
// state dicts and creates state on the first step.
#include <pybind11/stl.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "casters.h"
#include "dispatch/trace_hooks.h"
#include "ember/ops.h"
#include "ember/optimizer_updates.h"

namespace py = pybind11;

namespace ember::python {
namespace {

using Tensors = std::vector<Tensor>;

void check_lengths(const char* op, const Tensors& params, std::initializer_list<const Tensors*> others) {
  for (const Tensors* list : others) {
    if (list->size() != params.size()) {
      throw py::value_error(std::string(op) + "(): got " + std::to_string(params.size()) + " parameters but a list of " +
                            std::to_string(list->size()) + " tensors beside them");
    }
  }
}

// Note [Traced bias corrections]: eager Adam reads the step count to the
// host and computes its bias corrections in double, as PyTorch does without
// `capturable`. A traced step must not read values (that would break the
// graph once per parameter), so there the corrections are float64 0-d
// tensor ops on the step count, the same double arithmetic: they round to
// float32 where they meet the moments exactly as eager's double scalars do.
// `update(step_size, bias_correction2_sqrt)` gets doubles or 0-d tensors.
template <class Update>
void with_bias_corrections(const Tensor& step_count, const AdamUpdateOptions& o, const Update& update) {
  if (dispatch::tracing_on_this_thread()) {
    const Tensor step = step_count.to(DType::Float64);
    update(o.lr / (1 - pow(full_like(step, o.beta1), step)), sqrt(1 - pow(full_like(step, o.beta2), step)));
  } else {
    const double step = static_cast<double>(step_count.item().to_int());
    update(o.lr / (1 - std::pow(o.beta1, step)), std::sqrt(1 - std::pow(o.beta2, step)));
  }
}

// Adam and AdamW: one adam_update per parameter (Note [Fused optimizer
// updates] in runtime/src/ops/composite/optimizer.cpp).
void adam_step(const Tensors& params, const Tensors& grads, const Tensors& exp_avgs, const Tensors& exp_avg_sqs,
               const Tensors& max_exp_avg_sqs, const Tensors& steps, const AdamUpdateOptions& o) {
  check_lengths("_adam_step", params, {&grads, &exp_avgs, &exp_avg_sqs, &steps});
  if (o.amsgrad) check_lengths("_adam_step", params, {&max_exp_avg_sqs});
  for (size_t i = 0; i < params.size(); ++i) {
    Tensor step_count = steps[i];
    step_count += Scalar(int64_t{1});
    const Tensor max_exp_avg_sq = o.amsgrad ? max_exp_avg_sqs[i] : Tensor();
    with_bias_corrections(step_count, o, [&](const auto& step_size, const auto& bias_correction2_sqrt) {
      adam_update_(params[i], grads[i], exp_avgs[i], exp_avg_sqs[i], max_exp_avg_sq, step_size,
                   bias_correction2_sqrt, o);
    });
  }
}

// SGD with momentum, dampening, Nesterov and weight decay: one sgd_update
// per parameter. Returns the momentum buffers: a parameter without one
// (None) gets its first here, which its first update fills.
std::vector<std::optional<Tensor>> sgd_step(const Tensors& params, const Tensors& grads,
                                            std::vector<std::optional<Tensor>> momentum_buffers,
                                            const SgdUpdateOptions& o) {
  check_lengths("_sgd_step", params, {&grads});
  if (momentum_buffers.size() != params.size()) {
    throw py::value_error("_sgd_step(): got " + std::to_string(params.size()) + " parameters but " +
                          std::to_string(momentum_buffers.size()) + " momentum buffers");
  }
  for (size_t i = 0; i < params.size(); ++i) {
    std::optional<Tensor>& buffer = momentum_buffers[i];
    const bool first = o.momentum != 0.0 && !buffer;
    if (first) buffer = empty_like(params[i]);
    sgd_update_(params[i], grads[i], buffer.value_or(Tensor()), first, o);
  }
  return momentum_buffers;
}

// RMSprop, centered or not, with momentum: one rmsprop_update per parameter.
void rmsprop_step(const Tensors& params, const Tensors& grads, const Tensors& square_avgs, const Tensors& grad_avgs,
                  const Tensors& momentum_buffers, const Tensors& steps, const RmspropUpdateOptions& o) {
  check_lengths("_rmsprop_step", params, {&grads, &square_avgs, &steps});
  if (o.centered) check_lengths("_rmsprop_step", params, {&grad_avgs});
  if (o.momentum > 0) check_lengths("_rmsprop_step", params, {&momentum_buffers});
  for (size_t i = 0; i < params.size(); ++i) {
    Tensor step_count = steps[i];
    step_count += Scalar(int64_t{1});
    rmsprop_update_(params[i], grads[i], square_avgs[i], o.centered ? grad_avgs[i] : Tensor(),
                    o.momentum > 0 ? momentum_buffers[i] : Tensor(), o);
  }
}

}  // namespace

void bind_foreach(py::module_& parent) {
  py::module_ m = parent.def_submodule("_foreach", "ember.optim's updates over a parameter group in one call");
  const auto no_gil = py::call_guard<py::gil_scoped_release>();
  m.def("adam_step",
        [](const Tensors& params, const Tensors& grads, const Tensors& exp_avgs, const Tensors& exp_avg_sqs,
           const Tensors& max_exp_avg_sqs, const Tensors& steps, double lr, double beta1, double beta2, double eps,
           double weight_decay, bool amsgrad, bool maximize, bool decoupled_weight_decay) {
          adam_step(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps,
                    {lr, beta1, beta2, eps, weight_decay, amsgrad, maximize, decoupled_weight_decay});
        },
        py::arg("params"), py::arg("grads"), py::arg("exp_avgs"), py::arg("exp_avg_sqs"),
        py::arg("max_exp_avg_sqs"), py::arg("steps"), py::kw_only(), py::arg("lr"), py::arg("beta1"),
        py::arg("beta2"), py::arg("eps"), py::arg("weight_decay"), py::arg("amsgrad"), py::arg("maximize"),
        py::arg("decoupled_weight_decay"), no_gil);
  m.def("sgd_step",
        [](const Tensors& params, const Tensors& grads, std::vector<std::optional<Tensor>> momentum_buffers,
           double lr, double momentum, double dampening, double weight_decay, bool nesterov, bool maximize) {
          return sgd_step(params, grads, std::move(momentum_buffers),
                          {lr, momentum, dampening, weight_decay, nesterov, maximize});
        },
        py::arg("params"), py::arg("grads"), py::arg("momentum_buffers"), py::kw_only(), py::arg("lr"),
        py::arg("momentum"), py::arg("dampening"), py::arg("weight_decay"), py::arg("nesterov"),
        py::arg("maximize"), no_gil);
  m.def("rmsprop_step",
        [](const Tensors& params, const Tensors& grads, const Tensors& square_avgs, const Tensors& grad_avgs,
           const Tensors& momentum_buffers, const Tensors& steps, double lr, double alpha, double eps,
           double weight_decay, double momentum, bool centered, bool maximize) {
          rmsprop_step(params, grads, square_avgs, grad_avgs, momentum_buffers, steps,
                       {lr, alpha, eps, weight_decay, momentum, centered, maximize});
        },
        py::arg("params"), py::arg("grads"), py::arg("square_avgs"), py::arg("grad_avgs"),
        py::arg("momentum_buffers"), py::arg("steps"), py::kw_only(), py::arg("lr"), py::arg("alpha"),
        py::arg("eps"), py::arg("weight_decay"), py::arg("momentum"), py::arg("centered"), py::arg("maximize"),
        no_gil);
}

}  // namespace ember::python
