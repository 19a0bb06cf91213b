// lstm_layer, lstm_layer_workspace_bytes and lstm_layer_backward (ops.md
// "Composite ops a backend may override") through oneDNN's LSTM primitive,
// float32. PyTorch's [4H, I] and [4H, H] weights are oneDNN's ldgoi layout
// with the same gate order (input, forget, cell, output); the workspace is
// oneDNN's own (Note [LSTM layer workspace]).
#include <cstring>
#include <string>
#include <unordered_map>

#include "kernels.h"
#include "onednn.h"

namespace ember::cpu {
namespace {

using dnnl::memory;

// The forward pass keeps what the backward pass reads only when a
// workspace is given for it (Note [LSTM layer workspace]).
enum class LstmPass { kInference, kTraining, kBackward };

// Everything a plan depends on; the core passes contiguous operands.
struct LstmKey {
  LstmPass pass;
  bool reverse;
  int64_t steps, batch, input, hidden;
  bool operator==(const LstmKey&) const = default;
};

struct LstmKeyHash {
  size_t operator()(const LstmKey& k) const {
    size_t h = static_cast<size_t>(k.pass) * 2 + static_cast<size_t>(k.reverse);
    for (int64_t v : {k.steps, k.batch, k.input, k.hidden}) h = h * 1000003u ^ static_cast<size_t>(v);
    return h;
  }
};

// The primitive's weights (w_ih, w_hh) in its own layouts and, for the
// backward pass, their gradients, which oneDNN accumulates into.
struct LstmPlan {
  dnnl::primitive primitive;
  memory::desc workspace;
  ReorderedOperand weights[2];
  ReorderedOperand weight_grads[2];
  memory::desc scratchpad;
  size_t scratchpad_offset = 0;
  size_t scratch_bytes = 0;
};

struct LstmDescs {
  memory::desc sequence_in, state, w_ih_user, w_hh_user, w_ih_any, w_hh_any, bias, sequence_out;
};

LstmDescs descs_of(const LstmKey& k) {
  const auto f32 = memory::data_type::f32;
  using tag = memory::format_tag;
  return {{{k.steps, k.batch, k.input}, f32, tag::tnc},  {{1, 1, k.batch, k.hidden}, f32, tag::ldnc},
          {{1, 1, k.input, 4, k.hidden}, f32, tag::ldgoi}, {{1, 1, k.hidden, 4, k.hidden}, f32, tag::ldgoi},
          {{1, 1, k.input, 4, k.hidden}, f32, tag::any},   {{1, 1, k.hidden, 4, k.hidden}, f32, tag::any},
          {{1, 1, 4, k.hidden}, f32, tag::ldgo},           {{k.steps, k.batch, k.hidden}, f32, tag::tnc}};
}

dnnl::rnn_direction direction_of(const LstmKey& k) {
  return k.reverse ? dnnl::rnn_direction::unidirectional_right2left : dnnl::rnn_direction::unidirectional_left2right;
}

dnnl::lstm_forward::primitive_desc forward_desc(const LstmKey& k, const LstmDescs& d,
                                                const dnnl::primitive_attr& attr) {
  const auto prop = k.pass == LstmPass::kInference ? dnnl::prop_kind::forward_inference
                                                   : dnnl::prop_kind::forward_training;
  return {dnnl::lstm_forward::desc(prop, direction_of(k), d.sequence_in, d.state, d.state,
                                   d.w_ih_any, d.w_hh_any, d.bias, d.sequence_out, d.state, d.state),
          attr, cpu_engine()};
}

template <class PrimitiveDesc>
void finish_plan(LstmPlan& plan, const PrimitiveDesc& pd, const LstmDescs& d) {
  plan.workspace = pd.workspace_desc();
  plan.weights[0] = reordered_operand(d.w_ih_user, pd.weights_layer_desc(), true, plan.scratch_bytes);
  plan.weights[1] = reordered_operand(d.w_hh_user, pd.weights_iter_desc(), true, plan.scratch_bytes);
  plan.scratchpad = pd.scratchpad_desc();
  plan.scratchpad_offset = reserve_scratch(plan.scratch_bytes, plan.scratchpad.get_size());
}

LstmPlan make_plan(const LstmKey& k) {
  const LstmDescs d = descs_of(k);
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const auto forward = forward_desc(k, d, attr);
  LstmPlan plan;
  if (k.pass != LstmPass::kBackward) {
    plan.primitive = dnnl::lstm_forward(forward);
    finish_plan(plan, forward, d);
    return plan;
  }
  const dnnl::lstm_backward::primitive_desc backward(
      dnnl::lstm_backward::desc(dnnl::prop_kind::backward, direction_of(k), d.sequence_in, d.state, d.state, d.w_ih_any, d.w_hh_any, d.bias, d.sequence_out,
                                d.state, d.state, d.sequence_in, d.state, d.state, d.w_ih_any, d.w_hh_any, d.bias,
                                d.sequence_out, d.state, d.state),
      attr, cpu_engine(), forward);
  plan.primitive = dnnl::lstm_backward(backward);
  finish_plan(plan, backward, d);
  plan.weight_grads[0] = reordered_operand(d.w_ih_user, backward.diff_weights_layer_desc(), false, plan.scratch_bytes);
  plan.weight_grads[1] = reordered_operand(d.w_hh_user, backward.diff_weights_iter_desc(), false, plan.scratch_bytes);
  return plan;
}

// x [T, B, I] and w_hh [4H, H] size the layer.
LstmKey key_of(const ember_kernel_call& call, LstmPass pass, const DLTensor& x, const DLTensor& w_hh) {
  return {pass, sdk::attr_bool(call, "reverse"), x.shape[0], x.shape[1], x.shape[2], w_hh.shape[1]};
}

std::shared_ptr<const LstmPlan> plan_for(const ember_kernel_call& call, LstmPass pass, const DLTensor& x,
                                         const DLTensor& w_hh) {
  const LstmKey key = key_of(call, pass, x, w_hh);
  // Every step multiplies [B, I + H] by [I + H, 4H].
  use_onednn_threads(key.steps * key.batch * 4 * key.hidden * (key.input + key.hidden));
  static PrimitiveCache<LstmKey, LstmPlan, LstmKeyHash> cache;
  return cache.get(key, [&] { return make_plan(key); });
}

void require_contiguous(const ember_kernel_call& call) {
  for (int64_t i = 0; i < call.num_inputs; ++i) {
    if (!sdk::is_contiguous(call.inputs[i])) {
      sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, std::string(call.op_name) + ": input " + std::to_string(i) +
                                                   " is not contiguous (the core passes contiguous operands)");
    }
  }
}

memory bind(const memory::desc& desc, const DLTensor& t) { return {desc, cpu_engine(), sdk::data_ptr(t)}; }

// The tensors both passes give the primitive: the forward's operands and
// results and the workspace between them.
struct LstmTensors {
  const DLTensor *x, *h0, *c0, *w_ih, *w_hh, *b, *y, *h_last, *c_last, *workspace;
};

// Runs `plan` on `t` and `args` (the backward pass's other gradients, by
// oneDNN argument); the weights are reordered into the primitive's layouts
// first and, for the backward pass, its weight gradients out of them into
// `weight_grads` after.
void run_lstm(const ember_kernel_call& call, const LstmPlan& plan, const LstmDescs& d, const LstmTensors& t,
              std::unordered_map<int, memory> args, const DLTensor* weight_grads[2]) {
  char* scratch = scratch_block(call, plan.scratch_bytes);
  auto& stream = thread_stream();
  const DLTensor* weights[] = {t.w_ih, t.w_hh};
  BoundOperand bound_grads[2];
  for (int i = 0; i < 2; ++i) {
    BoundOperand w = bind_operand(plan.weights[i], *weights[i], scratch);
    if (plan.weights[i].reorder) plan.weights[i].reorder->execute(stream, w.user, w.inner);
    args.emplace(i == 0 ? DNNL_ARG_WEIGHTS_LAYER : DNNL_ARG_WEIGHTS_ITER, w.inner);
    if (weight_grads == nullptr) continue;
    bound_grads[i] = bind_operand(plan.weight_grads[i], *weight_grads[i], scratch);
    // oneDNN adds the weights' gradients to what it is given.
    std::memset(bound_grads[i].inner.get_data_handle(), 0, plan.weight_grads[i].inner.get_size());
    args.emplace(i == 0 ? DNNL_ARG_DIFF_WEIGHTS_LAYER : DNNL_ARG_DIFF_WEIGHTS_ITER, bound_grads[i].inner);
  }
  args.insert({{DNNL_ARG_SRC_LAYER, bind(d.sequence_in, *t.x)},
               {DNNL_ARG_SRC_ITER, bind(d.state, *t.h0)},
               {DNNL_ARG_SRC_ITER_C, bind(d.state, *t.c0)},
               {DNNL_ARG_BIAS, bind(d.bias, *t.b)},
               {DNNL_ARG_DST_LAYER, bind(d.sequence_out, *t.y)},
               {DNNL_ARG_DST_ITER, bind(d.state, *t.h_last)},
               {DNNL_ARG_DST_ITER_C, bind(d.state, *t.c_last)}});
  if (plan.workspace.get_size() > 0) args.emplace(DNNL_ARG_WORKSPACE, bind(plan.workspace, *t.workspace));
  if (plan.scratchpad.get_size() > 0) {
    args.emplace(DNNL_ARG_SCRATCHPAD, memory(plan.scratchpad, cpu_engine(), scratch + plan.scratchpad_offset));
  }
  plan.primitive.execute(stream, args);
  for (int i = 0; weight_grads != nullptr && i < 2; ++i) {
    if (plan.weight_grads[i].reorder) {
      plan.weight_grads[i].reorder->execute(stream, bound_grads[i].inner, bound_grads[i].user);
    }
  }
  stream.wait();
}

// Inputs (x, h0, c0, w_ih, w_hh, b); outputs (y, h_T, c_T, workspace).
void lstm_forward(const ember_kernel_call& call) {
  require_contiguous(call);
  const DLTensor* in = call.inputs;
  const DLTensor* out = call.outputs;
  const auto workspace_bytes = static_cast<size_t>(sdk::numel(out[3]));
  const LstmPass pass = workspace_bytes == 0 ? LstmPass::kInference : LstmPass::kTraining;
  const std::shared_ptr<const LstmPlan> plan = plan_for(call, pass, in[0], in[4]);
  if (workspace_bytes < plan->workspace.get_size()) {
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "lstm_layer: the workspace holds " + std::to_string(workspace_bytes) +
                                                 " bytes, oneDNN needs " +
                                                 std::to_string(plan->workspace.get_size()) +
                                                 " (lstm_layer_workspace_bytes)");
  }
  const LstmTensors t{&in[0], &in[1], &in[2], &in[3], &in[4], &in[5], &out[0], &out[1], &out[2], &out[3]};
  run_lstm(call, *plan, descs_of(key_of(call, pass, in[0], in[4])), t, {}, nullptr);
}

// Inputs (x, w_ih, w_hh); output: the bytes of lstm_forward's workspace.
void lstm_workspace_bytes(const ember_kernel_call& call) {
  const std::shared_ptr<const LstmPlan> plan = plan_for(call, LstmPass::kTraining, call.inputs[0], call.inputs[2]);
  *reinterpret_cast<int64_t*>(sdk::data_ptr(call.outputs[0])) = static_cast<int64_t>(plan->workspace.get_size());
}

// Inputs (dy, dh_T, dc_T, x, h0, c0, w_ih, w_hh, b, y, h_T, c_T, workspace);
// outputs the gradients of x, h0, c0, w_ih, w_hh and b.
void lstm_backward(const ember_kernel_call& call) {
  require_contiguous(call);
  const DLTensor* in = call.inputs;
  const DLTensor* out = call.outputs;
  const std::shared_ptr<const LstmPlan> plan = plan_for(call, LstmPass::kBackward, in[3], in[7]);
  if (static_cast<size_t>(sdk::numel(in[12])) < plan->workspace.get_size()) {
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT,
              "lstm_layer_backward: the workspace is not one this plugin's lstm_layer wrote for these shapes");
  }
  const LstmDescs d = descs_of(key_of(call, LstmPass::kBackward, in[3], in[7]));
  // oneDNN adds the bias's gradient to what it is given.
  std::memset(sdk::data_ptr(out[5]), 0, d.bias.get_size());
  std::unordered_map<int, memory> grads{
      {DNNL_ARG_DIFF_DST_LAYER, bind(d.sequence_out, in[0])}, {DNNL_ARG_DIFF_DST_ITER, bind(d.state, in[1])},
      {DNNL_ARG_DIFF_DST_ITER_C, bind(d.state, in[2])},       {DNNL_ARG_DIFF_SRC_LAYER, bind(d.sequence_in, out[0])},
      {DNNL_ARG_DIFF_SRC_ITER, bind(d.state, out[1])},        {DNNL_ARG_DIFF_SRC_ITER_C, bind(d.state, out[2])},
      {DNNL_ARG_DIFF_BIAS, bind(d.bias, out[5])},
  };
  const LstmTensors t{&in[3], &in[4], &in[5], &in[6], &in[7], &in[8], &in[9], &in[10], &in[11], &in[12]};
  const DLTensor* weight_grads[] = {&out[3], &out[4]};
  run_lstm(call, *plan, d, t, std::move(grads), weight_grads);
}

}  // namespace

void register_lstm_kernels(const sdk::Registrar& r) {
  r.add("lstm_layer", EMBER_DTYPE_FLOAT32, &sdk::kernel_entry<&lstm_forward>);
  r.add("lstm_layer_workspace_bytes", EMBER_DTYPE_FLOAT32, &sdk::kernel_entry<&lstm_workspace_bytes>);
  r.add("lstm_layer_backward", EMBER_DTYPE_FLOAT32, &sdk::kernel_entry<&lstm_backward>);
}

}  // namespace ember::cpu
