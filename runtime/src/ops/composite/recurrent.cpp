// lstm_layer: one direction of one LSTM layer over a padded sequence, with
// PyTorch's gates (input, forget, cell, output). A backend's kernel runs the
// whole recurrence (the CPU plugin hands it to oneDNN's LSTM primitive);
// the decomposition is the step-by-step recurrence it stands for.
#include <string>
#include <vector>

#include "dispatch/dispatcher.h"
#include "dispatch/op_registry.h"
#include "ember/autograd.h"
#include "ops/composite/common.h"

namespace ember {
namespace {

void check_operands(const Tensor& x, const Tensor& h0, const Tensor& c0, const Tensor& w_ih, const Tensor& w_hh,
                    const Tensor& b) {
  composite::check_floating("lstm_layer", x);
  const auto shapes = [&] {
    return "x " + shape_str(x.sizes()) + ", h0 " + shape_str(h0.sizes()) + ", c0 " + shape_str(c0.sizes()) +
           ", w_ih " + shape_str(w_ih.sizes()) + ", w_hh " + shape_str(w_hh.sizes()) + ", b " +
           shape_str(b.sizes());
  };
  for (const Tensor* t : {&h0, &c0, &w_ih, &w_hh, &b}) {
    if (t->dtype() != x.dtype()) {
      throw_error(ErrorKind::Runtime, "lstm_layer(): expected every operand to have x's dtype " +
                                          composite::dtype_str(x) + ", but got " + composite::dtype_str(*t) +
                                          " (" + shapes() + ")");
    }
    if (t->device() != x.device()) {
      throw_error(ErrorKind::Runtime, "lstm_layer(): expected every operand on x's device " + x.device().str() +
                                          ", but got " + t->device().str() + " (" + shapes() + ")");
    }
  }
  const bool ranks = x.dim() == 3 && h0.dim() == 2 && c0.dim() == 2 && w_ih.dim() == 2 && w_hh.dim() == 2 &&
                     b.dim() == 1;
  if (!ranks) {
    throw_error(ErrorKind::Runtime,
                "lstm_layer(): expected x [T, B, I], h0 and c0 [B, H], w_ih [4H, I], w_hh [4H, H] and b [4H], "
                "but got " +
                    shapes());
  }
  const int64_t batch = x.size(1);
  const int64_t hidden = h0.size(1);
  const bool fits = h0.size(0) == batch && c0.sizes() == h0.sizes() && w_ih.size(0) == 4 * hidden &&
                    w_ih.size(1) == x.size(2) && w_hh.size(0) == 4 * hidden && w_hh.size(1) == hidden &&
                    b.size(0) == 4 * hidden;
  if (!fits) {
    throw_error(ErrorKind::Runtime,
                "lstm_layer(): expected x [T, B, I], h0 and c0 [B, H], w_ih [4H, I], w_hh [4H, H] and b [4H], "
                "but got " +
                    shapes());
  }
}

// The recurrence op by op: also what the op's derivative differentiates
// when no backward kernel serves it (higher orders).
LstmLayerResult lstm_layer_decomposition(const Tensor& x, const Tensor& h0, const Tensor& c0, const Tensor& w_ih,
                                         const Tensor& w_hh, const Tensor& b, bool reverse) {
  const int64_t steps = x.size(0);
  const int64_t hidden = h0.size(1);
  const Tensor x_proj = matmul(x, w_ih.t()) + b;
  const Tensor w_t = w_hh.t();
  Tensor h = h0;
  Tensor c = c0;
  std::vector<Tensor> outputs(static_cast<size_t>(steps));
  for (int64_t k = 0; k < steps; ++k) {
    const int64_t t = reverse ? steps - 1 - k : k;
    const Tensor gates = x_proj.select(0, t) + mm(h, w_t);
    const auto gate = [&](int64_t index) { return gates.slice(1, index * hidden, (index + 1) * hidden, 1); };
    c = sigmoid(gate(1)) * c + sigmoid(gate(0)) * tanh(gate(2));
    h = sigmoid(gate(3)) * tanh(c);
    outputs[static_cast<size_t>(t)] = h;
  }
  if (steps == 0) return {x_proj.slice(2, 0, hidden, 1), h, c};
  return {stack(outputs, 0), h, c};
}

}  // namespace

bool lstm_layer_runs_kernel(const Tensor& x) {
  static const dispatch::Op& fused = dispatch::op(dispatch::OpId::LstmLayer);
  // An empty sequence, batch or input has no primitive: the decomposition
  // gives its empty results.
  return x.dim() == 3 && x.numel() > 0 && dispatch::use_composite_kernel(fused, x);
}

LstmLayerResult lstm_layer(const Tensor& x, const Tensor& h0, const Tensor& c0, const Tensor& w_ih,
                           const Tensor& w_hh, const Tensor& b, bool reverse) {
  check_operands(x, h0, c0, w_ih, w_hh, b);
  if (!lstm_layer_runs_kernel(x)) return lstm_layer_decomposition(x, h0, c0, w_ih, w_hh, b, reverse);
  // Note [LSTM layer workspace]: the forward kernel leaves the backward
  // kernel what it needs in a workspace whose size and contents are the
  // backend's own: lstm_layer_workspace_bytes tells the core how many bytes
  // to allocate. So a backend overrides lstm_layer, lstm_layer_workspace_bytes
  // and lstm_layer_backward together or none of them; the op's derivative
  // runs the backward kernel on the forward's workspace, and differentiates
  // the decomposition when a graph of the backward is wanted. Where no
  // gradient will be asked for, the workspace is empty and the kernel keeps
  // nothing (oneDNN's inference pass, as PyTorch runs under no_grad). A
  // trace asks for the size while it records (Note [Ops answered from
  // shapes in traces]), so a compiled graph holds the layer as one extern
  // call whose workspace is an output like any other.
  static const dispatch::Op& workspace_bytes = dispatch::op(dispatch::OpId::LstmLayerWorkspaceBytes);
  static const dispatch::Op& fused = dispatch::op(dispatch::OpId::LstmLayer);
  bool backward_follows = false;
  for (const Tensor* t : {&x, &h0, &c0, &w_ih, &w_hh, &b}) backward_follows |= t->requires_grad();
  int64_t bytes = 0;
  if (backward_follows && autograd::is_grad_enabled() && dispatch::use_composite_kernel(workspace_bytes, x)) {
    autograd::NoGradGuard no_grad;
    bytes = dispatch::call_single(workspace_bytes, {x.detach(), w_ih.detach(), w_hh.detach()},
                                  {dispatch::attr_bool("reverse", reverse)})
                .item<int64_t>();
  }
  const Tensor inputs[] = {x.contiguous(),    h0.contiguous(),   c0.contiguous(),
                           w_ih.contiguous(), w_hh.contiguous(), b.contiguous()};
  Tensor outputs[4];
  const ember_attr attrs[] = {dispatch::attr_bool("reverse", reverse), dispatch::attr_int("workspace_bytes", bytes)};
  dispatch::OpCall call;
  call.inputs = inputs;
  call.num_inputs = 6;
  call.outputs = outputs;
  call.num_outputs = 4;
  call.attrs = attrs;
  call.num_attrs = 2;
  dispatch::call(fused, call);
  return {outputs[0], outputs[1], outputs[2]};
}

}  // namespace ember
