// conv2d, conv3d and their backward convolutions (ops.md "Composite ops a
// backend may override") through oneDNN, float32. Operands keep their own
// strides; each primitive picks its preferred (blocked) layouts and reorders
// move data in and out of them.
#include <array>
#include <cstring>

#include "kernels.h"
#include "onednn.h"

namespace ember::cpu {
namespace {

using dnnl::memory;

enum class ConvPass { kForward, kBackwardInput, kBackwardWeight };

constexpr int kMaxRank = 5;

// Everything a plan depends on: the pass, the rank, the four attributes, and
// the shapes and strides of input, weight and output (for the backward
// passes, the gradients of input or weight take those roles).
struct ConvKey {
  ConvPass pass;
  int64_t rank;
  std::array<int64_t, 10> attrs{};  // stride, padding, dilation (one per spatial dim), groups
  std::array<int64_t, 6 * kMaxRank> layout{};  // shape then strides of input, weight, output
  bool operator==(const ConvKey&) const = default;
};

struct ConvKeyHash {
  size_t operator()(const ConvKey& k) const {
    size_t h = static_cast<size_t>(k.pass) * 8 + static_cast<size_t>(k.rank);
    for (int64_t v : k.attrs) h = h * 1000003u ^ static_cast<size_t>(v);
    for (int64_t v : k.layout) h = h * 1000003u ^ static_cast<size_t>(v);
    return h;
  }
};

struct ConvGeometry {
  memory::dims stride, dilation, padding_left, padding_right;
  int64_t groups;
};

// The four tensors of a convolution, whichever pass computes which.
struct ConvTensors {
  const DLTensor* input;
  const DLTensor* weight;
  const DLTensor* output;
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

struct ConvPlan {
  dnnl::primitive primitive;
  memory::desc input, weight, output;              // the layouts the primitive runs in
  memory::desc user_input, user_weight, user_output;  // the callers' layouts
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
  return key;
}

ConvPlan make_plan(ConvPass pass, const ConvGeometry& g, const ConvTensors& t) {
  const memory::desc user_input = user_desc(*t.input);
  const memory::desc user_weight = user_desc(*t.weight, g.groups);
  const memory::desc user_output = user_desc(*t.output);
  const auto input = any_desc(user_input), weight = any_desc(user_weight), output = any_desc(user_output);
  const auto algorithm = dnnl::algorithm::convolution_direct;
  const dnnl::convolution_forward::primitive_desc forward(
      dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, algorithm, input, weight, output, g.stride,
                                      g.dilation, g.padding_left, g.padding_right),
      cpu_engine());
  switch (pass) {
    case ConvPass::kForward:
      return {dnnl::convolution_forward(forward), forward.src_desc(), forward.weights_desc(), forward.dst_desc(),
              user_input, user_weight, user_output};
    case ConvPass::kBackwardInput: {
      const dnnl::convolution_backward_data::primitive_desc pd(
          dnnl::convolution_backward_data::desc(algorithm, input, weight, output, g.stride, g.dilation,
                                                g.padding_left, g.padding_right),
          cpu_engine(), forward);
      return {dnnl::convolution_backward_data(pd), pd.diff_src_desc(), pd.weights_desc(), pd.diff_dst_desc(),
              user_input, user_weight, user_output};
    }
    case ConvPass::kBackwardWeight: {
      const dnnl::convolution_backward_weights::primitive_desc pd(
          dnnl::convolution_backward_weights::desc(algorithm, input, weight, output, g.stride, g.dilation,
                                                   g.padding_left, g.padding_right),
          cpu_engine(), forward);
      return {dnnl::convolution_backward_weights(pd), pd.src_desc(), pd.diff_weights_desc(), pd.diff_dst_desc(),
              user_input, user_weight, user_output};
    }
  }
  sdk::fail(EMBER_STATUS_INTERNAL, "convolution: unknown pass");
}

// The caller's memory in the primitive's layout: the memory itself when the
// layouts agree, else a scratch copy (filled by a reorder when `fill`).
memory in_layout(const memory::desc& wanted, memory user, bool fill) {
  if (wanted == user.get_desc()) return user;
  memory scratch(wanted, cpu_engine());
  if (fill) dnnl::reorder(user, scratch).execute(thread_stream(), user, scratch);
  return scratch;
}

void run_conv(const ember_kernel_call& call, ConvPass pass, const ConvTensors& t) {
  const ConvGeometry g = geometry(call, t);
  // Every output element sums over one weight's (C/groups, kernel...) window.
  use_onednn_threads(sdk::numel(*t.output) * (sdk::numel(*t.weight) / t.weight->shape[0]));
  static PrimitiveCache<ConvKey, ConvPlan, ConvKeyHash> cache;
  const std::shared_ptr<const ConvPlan> plan = cache.get(make_key(pass, g, t), [&] { return make_plan(pass, g, t); });
  auto& engine = cpu_engine();
  auto& stream = thread_stream();
  memory user_input(plan->user_input, engine, sdk::data_ptr(*t.input));
  memory user_weight(plan->user_weight, engine, sdk::data_ptr(*t.weight));
  memory user_output(plan->user_output, engine, sdk::data_ptr(*t.output));
  const bool input_is_result = pass == ConvPass::kBackwardInput;
  const bool weight_is_result = pass == ConvPass::kBackwardWeight;
  const bool output_is_result = pass == ConvPass::kForward;
  const memory input = in_layout(plan->input, user_input, !input_is_result);
  const memory weight = in_layout(plan->weight, user_weight, !weight_is_result);
  const memory output = in_layout(plan->output, user_output, !output_is_result);
  switch (pass) {
    case ConvPass::kForward:
      plan->primitive.execute(stream, {{DNNL_ARG_SRC, input}, {DNNL_ARG_WEIGHTS, weight}, {DNNL_ARG_DST, output}});
      break;
    case ConvPass::kBackwardInput:
      plan->primitive.execute(stream, {{DNNL_ARG_DIFF_SRC, input}, {DNNL_ARG_WEIGHTS, weight}, {DNNL_ARG_DIFF_DST, output}});
      break;
    case ConvPass::kBackwardWeight:
      plan->primitive.execute(stream, {{DNNL_ARG_SRC, input}, {DNNL_ARG_DIFF_WEIGHTS, weight}, {DNNL_ARG_DIFF_DST, output}});
      break;
  }
  memory result = input_is_result ? input : weight_is_result ? weight : output;
  memory user_result = input_is_result ? user_input : weight_is_result ? user_weight : user_output;
  if (result != user_result) dnnl::reorder(result, user_result).execute(stream, result, user_result);
  stream.wait();
}

// conv2d, conv3d: inputs (x, w), output y.
void convolution_forward(const ember_kernel_call& call) {
  run_conv(call, ConvPass::kForward, {&call.inputs[0], &call.inputs[1], &call.outputs[0]});
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
  for (const char* conv : {"conv2d", "conv3d"}) {
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
