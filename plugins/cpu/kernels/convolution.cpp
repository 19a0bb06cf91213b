// conv2d, conv2d_bias, conv3d and their backward convolutions (ops.md
// "Composite ops a backend may override") through oneDNN, float32. Operands
// keep their own strides; each primitive picks its preferred (blocked)
// layouts and reorders move data in and out of them.
#include <array>
#include <unordered_map>

#include "kernels.h"
#include "onednn.h"

namespace ember::cpu {
namespace {

using dnnl::memory;

enum class ConvPass { kForward, kBackwardInput, kBackwardWeight };

constexpr int kMaxRank = 5;

// Everything a plan depends on: the pass, the rank, the four attributes, and
// the shapes and strides of input, weight and output (for the backward
// passes, the gradients of input or weight take those roles), and the bias's
// stride when the forward pass adds one.
struct ConvKey {
  ConvPass pass;
  int64_t rank;
  std::array<int64_t, 10> attrs{};  // stride, padding, dilation (one per spatial dim), groups
  std::array<int64_t, 6 * kMaxRank> layout{};  // shape then strides of input, weight, output
  bool has_bias = false;
  int64_t bias_stride = 0;
  bool operator==(const ConvKey&) const = default;
};

struct ConvKeyHash {
  size_t operator()(const ConvKey& k) const {
    size_t h = static_cast<size_t>(k.pass) * 8 + static_cast<size_t>(k.rank);
    for (int64_t v : k.attrs) h = h * 1000003u ^ static_cast<size_t>(v);
    for (int64_t v : k.layout) h = h * 1000003u ^ static_cast<size_t>(v);
    h = h * 1000003u ^ static_cast<size_t>(k.has_bias);
    return h * 1000003u ^ static_cast<size_t>(k.bias_stride);
  }
};

struct ConvGeometry {
  memory::dims stride, dilation, padding_left, padding_right;
  int64_t groups;
};

// The tensors of a convolution, whichever pass computes which; a bias only
// in the forward pass, and only when the call has one.
struct ConvTensors {
  const DLTensor* input;
  const DLTensor* weight;
  const DLTensor* output;
  const DLTensor* bias = nullptr;
};

ConvGeometry geometry(const ember_kernel_call& call, const ConvTensors& t) {
  const sdk::IntList stride = sdk::attr_ints(call, "stride");
  const sdk::IntList padding = sdk::attr_ints(call, "padding");
  const sdk::IntList dilation = sdk::attr_ints(call, "dilation");
  ConvGeometry g{{}, {}, {}, {}, sdk::attr_int(call, "groups")};
  // The right/bottom padding makes the sweep end exactly at the output size
  // (floor division may leave part of the left padding's mirror unused).
  for (int i = 0; i + 2 < t.input->ndim; ++i) {
    g.stride.push_back(stride[i]);
    g.dilation.push_back(dilation[i] - 1);
    g.padding_left.push_back(padding[i]);
    const int64_t span = (t.output->shape[2 + i] - 1) * stride[i] + (t.weight->shape[2 + i] - 1) * dilation[i] + 1;
    g.padding_right.push_back(span - t.input->shape[2 + i] - padding[i]);
  }
  return g;
}

// A tensor as oneDNN sees it, with its own strides. A grouped weight
// [O, C/g, kernel...] is the [g, O/g, C/g, kernel...] oneDNN expects.
memory::desc user_desc(const DLTensor& t, int64_t groups = 1) {
  memory::dims dims(t.shape, t.shape + t.ndim);
  memory::dims strides(t.strides, t.strides + t.ndim);
  if (groups > 1) {
    dims[0] = t.shape[0] / groups;
    dims.insert(dims.begin(), groups);
    strides.insert(strides.begin(), t.strides[0] * (t.shape[0] / groups));
  }
  return {dims, memory::data_type::f32, strides};
}

memory::desc any_desc(const memory::desc& like) { return {like.dims(), memory::data_type::f32, memory::format_tag::any}; }

// Note [Convolution call overhead]: a plan holds everything a call needs
// besides the caller's tensors: the primitive, the reorders between the
// callers' layouts and the primitive's (blocked) ones, and the layout of one
// scratch block for the reordered copies and oneDNN's scratchpad (the
// primitives run in user scratchpad mode). A call takes that block from the
// host's caching allocator. A buffer allocated per copy would fault in fresh
// pages on every call (2 MiB for a 32x64x16x16 output), and a reorder built
// per call, even from oneDNN's primitive cache, costs more than a small
// reorder runs. The weight is reordered on every call, not cached in the
// blocked layout: a kernel sees a tensor's address, not its version counter,
// so an optimizer's in-place step (same address, new values) would go unseen
// by a cache keyed on what the ABI passes, and the reorder is small (about
// 7 us of a 0.9 ms forward, 32 -> 64 channels, 3x3, 32x32x16x16).

// The operands in the order input, weight, output (for the backward passes,
// the gradients of input or weight take those roles).
constexpr int kOperands = 3;

struct ConvPlan {
  dnnl::primitive primitive;
  std::array<ReorderedOperand, kOperands> operands;
  int result;             // the operand the pass writes
  ReorderedOperand bias;  // the forward pass with a bias only
  memory::desc scratchpad;
  size_t scratchpad_offset = 0;
  size_t scratch_bytes = 0;  // the whole block
};

// The oneDNN argument of each operand, by pass.
constexpr int kArguments[][kOperands] = {
    {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST},
    {DNNL_ARG_DIFF_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DIFF_DST},
    {DNNL_ARG_SRC, DNNL_ARG_DIFF_WEIGHTS, DNNL_ARG_DIFF_DST},
};

ConvKey make_key(ConvPass pass, const ConvGeometry& g, const ConvTensors& t) {
  const size_t spatial = g.stride.size();
  ConvKey key{pass, t.input->ndim};
  for (size_t i = 0; i < spatial; ++i) {
    key.attrs[i] = g.stride[i];
    key.attrs[spatial + i] = g.padding_left[i];
    key.attrs[2 * spatial + i] = g.dilation[i];
  }
  key.attrs[3 * spatial] = g.groups;
  const DLTensor* tensors[] = {t.input, t.weight, t.output};
  for (int i = 0; i < 3; ++i) {
    for (int d = 0; d < tensors[i]->ndim; ++d) {
      key.layout[i * 2 * kMaxRank + d] = tensors[i]->shape[d];
      key.layout[i * 2 * kMaxRank + kMaxRank + d] = tensors[i]->strides[d];
    }
  }
  if (t.bias != nullptr) {
    key.has_bias = true;
    key.bias_stride = t.bias->strides[0];
  }
  return key;
}

// The plan of the primitive of descriptor `pd`, whose operands run in
// `inner` layouts (input, weight, output) and whose pass writes operand
// `result`.
template <class Primitive, class PrimitiveDesc>
ConvPlan plan_of(const PrimitiveDesc& pd, const ConvTensors& t, const ConvGeometry& g,
                 const std::array<memory::desc, kOperands>& inner, int result) {
  ConvPlan plan;
  plan.primitive = Primitive(pd);
  const memory::desc user[] = {user_desc(*t.input), user_desc(*t.weight, g.groups), user_desc(*t.output)};
  for (int i = 0; i < kOperands; ++i) {
    plan.operands[i] = reordered_operand(user[i], inner[i], i != result, plan.scratch_bytes);
  }
  plan.result = result;
  plan.scratchpad = pd.scratchpad_desc();
  plan.scratchpad_offset = reserve_scratch(plan.scratch_bytes, plan.scratchpad.get_size());
  return plan;
}

ConvPlan make_plan(ConvPass pass, const ConvGeometry& g, const ConvTensors& t) {
  const auto input = any_desc(user_desc(*t.input));
  const auto weight = any_desc(user_desc(*t.weight, g.groups));
  const auto output = any_desc(user_desc(*t.output));
  const auto algorithm = dnnl::algorithm::convolution_direct;
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  using Forward = dnnl::convolution_forward;
  const auto forward_desc = [&]() -> Forward::desc {
    if (t.bias == nullptr) {
      return {dnnl::prop_kind::forward_training, algorithm, input, weight, output, g.stride, g.dilation,
              g.padding_left, g.padding_right};
    }
    return {dnnl::prop_kind::forward_training, algorithm, input, weight, any_desc(user_desc(*t.bias)), output,
            g.stride, g.dilation, g.padding_left, g.padding_right};
  };
  const Forward::primitive_desc forward(forward_desc(), attr, cpu_engine());
  switch (pass) {
    case ConvPass::kForward: {
      ConvPlan plan =
          plan_of<Forward>(forward, t, g, {forward.src_desc(), forward.weights_desc(), forward.dst_desc()}, 2);
      if (t.bias != nullptr) {
        plan.bias = reordered_operand(user_desc(*t.bias), forward.bias_desc(), true, plan.scratch_bytes);
      }
      return plan;
    }
    case ConvPass::kBackwardInput: {
      const dnnl::convolution_backward_data::primitive_desc pd(
          dnnl::convolution_backward_data::desc(algorithm, input, weight, output, g.stride, g.dilation,
                                                g.padding_left, g.padding_right),
          attr, cpu_engine(), forward);
      return plan_of<dnnl::convolution_backward_data>(pd, t, g,
                                                      {pd.diff_src_desc(), pd.weights_desc(), pd.diff_dst_desc()}, 0);
    }
    case ConvPass::kBackwardWeight: {
      const dnnl::convolution_backward_weights::primitive_desc pd(
          dnnl::convolution_backward_weights::desc(algorithm, input, weight, output, g.stride, g.dilation,
                                                   g.padding_left, g.padding_right),
          attr, cpu_engine(), forward);
      return plan_of<dnnl::convolution_backward_weights>(
          pd, t, g, {pd.src_desc(), pd.diff_weights_desc(), pd.diff_dst_desc()}, 1);
    }
  }
  sdk::fail(EMBER_STATUS_INTERNAL, "convolution: unknown pass");
}

void run_conv(const ember_kernel_call& call, ConvPass pass, const ConvTensors& t) {
  const ConvGeometry g = geometry(call, t);
  // Every output element sums over one weight's (C/groups, kernel...) window.
  use_onednn_threads(sdk::numel(*t.output) * (sdk::numel(*t.weight) / t.weight->shape[0]));
  static PrimitiveCache<ConvKey, ConvPlan, ConvKeyHash> cache;
  const std::shared_ptr<const ConvPlan> plan = cache.get(make_key(pass, g, t), [&] { return make_plan(pass, g, t); });
  char* scratch = scratch_block(call, plan->scratch_bytes);
  auto& stream = thread_stream();
  const DLTensor* tensors[] = {t.input, t.weight, t.output};
  std::array<BoundOperand, kOperands> bound;
  std::unordered_map<int, memory> args;
  for (int i = 0; i < kOperands; ++i) {
    const ReorderedOperand& o = plan->operands[i];
    bound[i] = bind_operand(o, *tensors[i], scratch);
    if (o.reorder && i != plan->result) o.reorder->execute(stream, bound[i].user, bound[i].inner);
    args.emplace(kArguments[static_cast<int>(pass)][i], bound[i].inner);
  }
  if (t.bias != nullptr) {
    BoundOperand bias = bind_operand(plan->bias, *t.bias, scratch);
    if (plan->bias.reorder) plan->bias.reorder->execute(stream, bias.user, bias.inner);
    args.emplace(DNNL_ARG_BIAS, bias.inner);
  }
  if (plan->scratchpad.get_size() > 0) {
    args.emplace(DNNL_ARG_SCRATCHPAD, memory(plan->scratchpad, cpu_engine(), scratch + plan->scratchpad_offset));
  }
  plan->primitive.execute(stream, args);
  const ReorderedOperand& result = plan->operands[plan->result];
  if (result.reorder) result.reorder->execute(stream, bound[plan->result].inner, bound[plan->result].user);
  stream.wait();
}

// conv2d, conv3d: inputs (x, w), output y; conv2d_bias: inputs (x, w, b).
void convolution_forward(const ember_kernel_call& call) {
  run_conv(call, ConvPass::kForward,
           {&call.inputs[0], &call.inputs[1], &call.outputs[0], call.num_inputs == 3 ? &call.inputs[2] : nullptr});
}

// conv*d_backward_input: inputs (dy, w), output dx.
void convolution_backward_input(const ember_kernel_call& call) {
  run_conv(call, ConvPass::kBackwardInput, {&call.outputs[0], &call.inputs[1], &call.inputs[0]});
}

// conv*d_backward_weight: inputs (dy, x), output dw.
void convolution_backward_weight(const ember_kernel_call& call) {
  run_conv(call, ConvPass::kBackwardWeight, {&call.inputs[1], &call.outputs[0], &call.inputs[0]});
}

}  // namespace

void register_convolution_kernels(const sdk::Registrar& r) {
  // One kernel each serves the 2-d and the 3-d op: oneDNN takes the rank
  // from the tensors.
  for (const char* conv : {"conv2d", "conv3d", "conv2d_bias"}) {
    r.add(conv, EMBER_DTYPE_FLOAT32, &sdk::kernel_entry<&convolution_forward>);
  }
  for (const char* conv : {"conv2d_backward_input", "conv3d_backward_input"}) {
    r.add(conv, EMBER_DTYPE_FLOAT32, &sdk::kernel_entry<&convolution_backward_input>);
  }
  for (const char* conv : {"conv2d_backward_weight", "conv3d_backward_weight"}) {
    r.add(conv, EMBER_DTYPE_FLOAT32, &sdk::kernel_entry<&convolution_backward_weight>);
  }
}

}  // namespace ember::cpu
