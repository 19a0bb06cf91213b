// Op cases of the composite ops a backend may override with a fused kernel
// (Note [Op cases]). A case for an op the catalogue does not (yet) list is
// never run: the suite takes its op list from the core.
#include <ember/autograd.h>
#include <ember/functional.h>
#include <ember/optimizer_updates.h>

#include <cmath>

#include "op_case.h"

namespace ember::conformance {

namespace {

OpCase softmax_like_case(const std::string& op, Tensor (*fn)(const Tensor&, int64_t)) {
  auto along = [fn](int64_t dim) {
    return [fn, dim](const Tensors& in, DType, Device) { return Tensors{fn(in[0], dim)}; };
  };
  return {op, floating_dtypes(),
          {
              {"dim 1", {{.shape = {3, 5}}}, along(1), 1, true},
              {"dim 0", {{.shape = {4, 3}}}, along(0), 1, true},
              {"last dim of 3-d", {{.shape = {2, 3, 4}}}, along(-1)},
              {"0-d", {{.shape = {}}}, along(0)},
              {"empty", {{.shape = {0, 4}}}, along(1)},
              {"transposed", {{.shape = {5, 3}, .view = transposed}}, along(1)},
              {"special values", {{.shape = {2, 8}, .values = Values::Special}}, along(1)},
              {"large odd size", {{.shape = {33, 1031}}}, along(1), 10},
          }};
}

using Convolution = Tensor (*)(const Tensor&, const Tensor&, const std::optional<Tensor>&, IntArrayRef, IntArrayRef,
                               IntArrayRef, int64_t);

// Plain, strided and padded, and grouped; `spatial` sizes the inputs' and
// kernels' spatial dims (the first case's kernel is 3 wide in each). With
// `bias`, each case adds one ([out channels]); conv2d with a bias is
// conv2d_bias where a backend has that kernel, so conv2d's case has none.
OpCase convolution_case(const std::string& op, Convolution conv, const std::vector<int64_t>& spatial, bool bias) {
  auto run = [conv](int64_t stride, int64_t padding, int64_t groups) {
    return [=](const Tensors& in, DType, Device) {
      const std::optional<Tensor> b = in.size() == 3 ? std::optional<Tensor>(in[2]) : std::nullopt;
      return Tensors{conv(in[0], in[1], b, {stride}, {padding}, {1}, groups)};
    };
  };
  // [lead..., spatial + grow] for an input, [lead..., 3, 3, ...] for a kernel.
  auto shape = [&](DimVector lead, int64_t grow) {
    for (int64_t s : spatial) lead.push_back(s + grow);
    return lead;
  };
  auto kernel = [&](DimVector lead) {
    for (size_t i = 0; i < spatial.size(); ++i) lead.push_back(3);
    return lead;
  };
  auto inputs = [&](InputSpec x, InputSpec w) {
    std::vector<InputSpec> specs{x, w};
    if (bias) specs.push_back({.shape = {w.shape[0]}});
    return specs;
  };
  OpCase c{op, floating_dtypes(),
           {
               {"3x3", inputs({.shape = shape({2, 3}, 0)}, {.shape = kernel({4, 3})}), run(1, 0, 1), 3, true},
               {"stride 2, padding 1", inputs({.shape = shape({1, 2}, 1)}, {.shape = kernel({3, 2})}), run(2, 1, 1),
                3},
               {"groups", inputs({.shape = shape({2, 4}, -1)}, {.shape = kernel({6, 2})}), run(1, 1, 2), 3},
           }};
  if (bias) {
    // A bias that is every other element of a longer vector.
    const auto every_other = [](const Tensor& t) { return t.slice(0, std::nullopt, std::nullopt, 2); };
    c.variations.push_back(
        {"strided bias",
         {{.shape = shape({2, 3}, 0)}, {.shape = kernel({4, 3})}, {.shape = {8}, .view = every_other}},
         run(1, 1, 1),
         3});
  }
  return c;
}

// The backward ops are reached through autograd: the gradient of the forward
// op for a given output gradient (the last input), with respect to input `wrt`.
OpCase backward_case(const std::string& op, std::vector<InputSpec> inputs, size_t wrt,
                     Tensor (*forward)(const Tensors& inputs)) {
  const OpCall call = [wrt, forward](const Tensors& in, DType, Device) {
    Tensors leaves(in.begin(), in.end() - 1);
    leaves[wrt] = leaves[wrt].detach().requires_grad_();
    const Tensor y = forward(leaves);
    return autograd::grad({y}, {leaves[wrt]}, {in.back()});
  };
  return {op, floating_dtypes(), {{"gradient", std::move(inputs), call, 3}}};
}

Tensor conv2d_padded(const Tensors& in) { return conv2d(in[0], in[1], std::nullopt, {1}, {1}); }
Tensor conv3d_padded(const Tensors& in) { return conv3d(in[0], in[1], std::nullopt, {1}, {1}); }

Tensor max_pool2d_3x3(const Tensors& in) { return max_pool2d(in[0], {3}, {2}, {1}); }

Tensor avg_pool2d_3x3(const Tensors& in) { return avg_pool2d(in[0], {3}, {2}, {1}); }

OpCase pool_case(const std::string& op, Tensor (*pool)(const Tensor&, int64_t, int64_t, int64_t)) {
  auto run = [pool](int64_t kernel, int64_t stride, int64_t padding) {
    return [=](const Tensors& in, DType, Device) { return Tensors{pool(in[0], kernel, stride, padding)}; };
  };
  return {op, floating_dtypes(),
          {
              {"2x2", {{.shape = {2, 3, 6, 6}}}, run(2, 2, 0), 1, true},
              {"3x3 stride 2 padding 1", {{.shape = {1, 2, 7, 5}}}, run(3, 2, 1)},
              {"transposed", {{.shape = {1, 2, 6, 6}, .view = transposed}}, run(2, 1, 0)},
          }};
}

OpCase layer_norm_case() {
  const OpCall call = [](const Tensors& in, DType, Device) {
    return Tensors{layer_norm(in[0], {in[0].size(-1)}, in[1], in[2])};
  };
  return {"layer_norm", floating_dtypes(),
          {
              {"last dim", {{.shape = {3, 8}}, {.shape = {8}}, {.shape = {8}}}, call, 3, true},
              {"3-d", {{.shape = {2, 3, 5}}, {.shape = {5}}, {.shape = {5}}}, call, 3},
              {"transposed", {{.shape = {6, 4}, .view = transposed}, {.shape = {6}}, {.shape = {6}}}, call, 3},
          }};
}

OpCase cross_entropy_case() {
  const OpCall call = [](const Tensors& in, DType, Device) { return Tensors{cross_entropy(in[0], in[1])}; };
  return {"cross_entropy", floating_dtypes(),
          {
              {"class indices",
               {{.shape = {6, 5}},
                {.shape = {6}, .values = Values::Index, .dtype = DType::Int64, .index_limit = 5,
                 .nonnegative_index = true}},
               call, 3, true},
              {"class probabilities", {{.shape = {4, 3}}, {.shape = {4, 3}, .values = Values::Positive}}, call, 3},
          }};
}

Tensor attention_causal(const Tensors& in) {
  return scaled_dot_product_attention(in[0], in[1], in[2], std::nullopt, 0, /*is_causal=*/true);
}

OpCase attention_case() {
  const OpCall plain = [](const Tensors& in, DType, Device) {
    return Tensors{scaled_dot_product_attention(in[0], in[1], in[2])};
  };
  const OpCall masked = [](const Tensors& in, DType, Device) {
    return Tensors{scaled_dot_product_attention(in[0], in[1], in[2], in[3], 0, false, 0.5)};
  };
  const OpCall causal = [](const Tensors& in, DType, Device) { return Tensors{attention_causal(in)}; };
  return {"scaled_dot_product_attention", floating_dtypes(),
          {
              {"4-d", {{.shape = {2, 2, 5, 4}}, {.shape = {2, 2, 7, 4}}, {.shape = {2, 2, 7, 3}}}, plain, 3, true},
              {"float mask, scale",
               {{.shape = {1, 2, 4, 3}}, {.shape = {1, 2, 6, 3}}, {.shape = {1, 2, 6, 3}}, {.shape = {4, 6}}},
               masked, 3, true},
              {"causal", {{.shape = {3, 6, 4}}, {.shape = {3, 6, 4}}, {.shape = {3, 6, 4}}}, causal, 3, true},
              {"transposed query", {{.shape = {2, 5, 4}, .view = transposed}, {.shape = {2, 4, 4}},
                                    {.shape = {2, 4, 2}}}, plain, 3},
          }};
}

OpCase gelu_case() {
  auto form = [](const char* approximate) {
    return [approximate](const Tensors& in, DType, Device) { return Tensors{gelu(in[0], approximate)}; };
  };
  return {"gelu", floating_dtypes(),
          {
              {"exact", {{.shape = {3, 5}}}, form("none"), 1, true},
              {"tanh", {{.shape = {3, 5}}}, form("tanh"), 1, true},
              {"special values", {{.shape = {2, 8}, .values = Values::Special}}, form("none")},
              {"transposed", {{.shape = {5, 3}, .view = transposed}}, form("tanh")},
              {"empty", {{.shape = {0, 4}}}, form("none")},
              {"large odd size", {{.shape = {33, 1031}}}, form("none")},
          }};
}

// Reached through autograd, as backward_case does, for both forms.
OpCase gelu_backward_case() {
  auto form = [](const char* approximate) {
    return [approximate](const Tensors& in, DType, Device) {
      const Tensor x = in[0].detach().requires_grad_();
      return autograd::grad({gelu(x, approximate)}, {x}, {in[1]});
    };
  };
  return {"gelu_backward", floating_dtypes(),
          {
              {"exact", {{.shape = {4, 7}}, {.shape = {4, 7}}}, form("none"), 3},
              {"tanh", {{.shape = {4, 7}}, {.shape = {4, 7}}}, form("tanh"), 3},
              {"large odd size", {{.shape = {33, 1031}}, {.shape = {33, 1031}}}, form("none"), 3},
          }};
}

// The fused backward ops of softmax, log_softmax, layer_norm and
// cross_entropy, reached through autograd as gelu_backward_case does.
OpCase softmax_like_backward_case(const std::string& op, Tensor (*fn)(const Tensor&, int64_t)) {
  auto along = [fn](int64_t dim) {
    return [fn, dim](const Tensors& in, DType, Device) {
      const Tensor x = in[0].detach().requires_grad_();
      return autograd::grad({fn(x, dim)}, {x}, {in[1]});
    };
  };
  return {op, floating_dtypes(),
          {
              {"last dim", {{.shape = {4, 7}}, {.shape = {4, 7}}}, along(1), 3},
              {"dim 0", {{.shape = {5, 3}}, {.shape = {5, 3}}}, along(0), 3},
              {"middle dim of 3-d", {{.shape = {2, 6, 5}}, {.shape = {2, 6, 5}}}, along(1), 3},
              {"transposed", {{.shape = {5, 3}, .view = transposed}, {.shape = {3, 5}}}, along(1), 3},
              {"large odd size", {{.shape = {33, 1031}}, {.shape = {33, 1031}}}, along(1), 10},
          }};
}

OpCase layer_norm_backward_case() {
  const OpCall call = [](const Tensors& in, DType, Device) {
    const Tensor x = in[0].detach().requires_grad_();
    const Tensor w = in[1].detach().requires_grad_();
    const Tensor b = in[2].detach().requires_grad_();
    return autograd::grad({layer_norm(x, {x.size(-1)}, w, b)}, {x, w, b}, {in[3]});
  };
  return {"layer_norm_backward", floating_dtypes(),
          {
              {"last dim", {{.shape = {3, 8}}, {.shape = {8}}, {.shape = {8}}, {.shape = {3, 8}}}, call, 3},
              {"3-d", {{.shape = {2, 3, 5}}, {.shape = {5}}, {.shape = {5}}, {.shape = {2, 3, 5}}}, call, 3},
              {"many rows", {{.shape = {300, 40}}, {.shape = {40}}, {.shape = {40}}, {.shape = {300, 40}}}, call, 10},
          }};
}

OpCase cross_entropy_backward_case() {
  auto loss = [](const char* reduction, int64_t ignore_index, double smoothing) {
    return [=](const Tensors& in, DType, Device) {
      const Tensor x = in[0].detach().requires_grad_();
      return autograd::grad({cross_entropy(x, in[1], std::nullopt, ignore_index, reduction, smoothing)}, {x},
                            {in[2]});
    };
  };
  const InputSpec logits = {.shape = {6, 5}};
  const InputSpec target = {
      .shape = {6}, .values = Values::Index, .dtype = DType::Int64, .index_limit = 5, .nonnegative_index = true};
  return {"cross_entropy_backward", floating_dtypes(),
          {
              {"mean", {logits, target, {.shape = {}}}, loss("mean", -100, 0), 3},
              {"sum, smoothing", {logits, target, {.shape = {}}}, loss("sum", -100, 0.2), 3},
              {"none, ignore_index", {logits, target, {.shape = {6}}}, loss("none", 2, 0), 3},
          }};
}

// x [T, B, I], h0, c0 [B, H], w_ih [4H, I], w_hh [4H, H], b [4H].
std::vector<InputSpec> lstm_inputs(int64_t steps, int64_t batch, int64_t input, int64_t hidden) {
  return {{.shape = {steps, batch, input}}, {.shape = {batch, hidden}},        {.shape = {batch, hidden}},
          {.shape = {4 * hidden, input}},   {.shape = {4 * hidden, hidden}}, {.shape = {4 * hidden}}};
}

OpCase lstm_layer_case() {
  auto run = [](bool reverse) {
    return [reverse](const Tensors& in, DType, Device) {
      const LstmLayerResult r = lstm_layer(in[0], in[1], in[2], in[3], in[4], in[5], reverse);
      return Tensors{r.output, r.h, r.c};
    };
  };
  return {"lstm_layer", floating_dtypes(),
          {
              {"forward", lstm_inputs(5, 3, 4, 6), run(false), 3, true},
              {"reverse", lstm_inputs(4, 2, 7, 5), run(true), 3},
              {"one step, batch of one", lstm_inputs(1, 1, 3, 4), run(false)},
              {"longer, wider", lstm_inputs(20, 8, 33, 32), run(true), 10},
          }};
}

// Reached through autograd: the gradients of every input for given
// gradients of the output and the final state (the last three inputs).
OpCall lstm_layer_gradients(bool reverse) {
  return [reverse](const Tensors& in, DType, Device) {
    Tensors leaves;
    for (size_t i = 0; i < 6; ++i) leaves.push_back(in[i].detach().requires_grad_());
    const LstmLayerResult r = lstm_layer(leaves[0], leaves[1], leaves[2], leaves[3], leaves[4], leaves[5], reverse);
    return autograd::grad({r.output, r.h, r.c}, leaves, {in[6], in[7], in[8]});
  };
}

std::vector<InputSpec> lstm_backward_inputs(int64_t steps, int64_t batch, int64_t input, int64_t hidden) {
  std::vector<InputSpec> specs = lstm_inputs(steps, batch, input, hidden);
  specs.push_back({.shape = {steps, batch, hidden}});
  specs.push_back({.shape = {batch, hidden}});
  specs.push_back({.shape = {batch, hidden}});
  return specs;
}

OpCase lstm_layer_backward_case() {
  return {"lstm_layer_backward", floating_dtypes(),
          {
              {"forward", lstm_backward_inputs(5, 3, 4, 6), lstm_layer_gradients(false), 3},
              {"reverse", lstm_backward_inputs(4, 2, 7, 5), lstm_layer_gradients(true), 3},
              {"longer, wider", lstm_backward_inputs(20, 8, 33, 32), lstm_layer_gradients(false), 10},
          }};
}

// The workspace's size is the backend's own: what can be checked is that
// lstm_layer_backward finds in it what lstm_layer left, at shapes whose
// workspace is dominated by the input (wide) or by the steps (long).
OpCase lstm_layer_workspace_bytes_case() {
  return {"lstm_layer_workspace_bytes", floating_dtypes(),
          {
              {"wide input", lstm_backward_inputs(3, 2, 300, 8), lstm_layer_gradients(false), 3},
              {"many steps", lstm_backward_inputs(64, 3, 5, 7), lstm_layer_gradients(true), 10},
          }};
}

// The optimizer updates write their state in place: a call updates copies,
// so that the inputs stay as made for the other device's run, and returns
// every tensor it wrote. The bias corrections are those of step 3.
Tensors updated_copies(const Tensors& in) {
  Tensors copies;
  for (const Tensor& t : in) copies.push_back(t.clone());
  return copies;
}

OpCase adam_update_case() {
  auto run = [](AdamUpdateOptions o) {
    return [o](const Tensors& in, DType, Device) {
      Tensors s = updated_copies(in);
      const double step_size = o.lr / (1 - std::pow(o.beta1, 3)), correction2 = std::sqrt(1 - std::pow(o.beta2, 3));
      adam_update_(s[0], s[1], s[2], s[3], o.amsgrad ? s[4] : Tensor(), step_size, correction2, o);
      return Tensors{s[0], s[2], s[3], s[4]};
    };
  };
  // param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq.
  auto inputs = [](DimVector shape, std::function<Tensor(const Tensor&)> view = nullptr) {
    return std::vector<InputSpec>{{.shape = shape, .view = view},
                                  {.shape = shape, .view = view},
                                  {.shape = shape, .view = view},
                                  {.shape = shape, .values = Values::Positive, .view = view},
                                  {.shape = shape, .values = Values::Positive, .view = view}};
  };
  return {"adam_update", floating_dtypes(),
          {
              {"adam", inputs({3, 5}), run({.lr = 0.1})},
              {"adamw", inputs({3, 5}), run({.lr = 0.1, .weight_decay = 0.1, .decoupled_weight_decay = true})},
              {"l2 decay, amsgrad, maximize",
               inputs({4, 7}),
               run({.lr = 0.05, .beta1 = 0.8, .beta2 = 0.9, .eps = 1e-3, .weight_decay = 0.2, .amsgrad = true,
                    .maximize = true})},
              {"transposed", inputs({5, 3}, transposed), run({.lr = 0.1, .amsgrad = true})},
              {"large odd size", inputs({33, 1031}), run({.lr = 0.01, .weight_decay = 0.01,
                                                          .decoupled_weight_decay = true})},
          }};
}

OpCase sgd_update_case() {
  auto run = [](SgdUpdateOptions o, bool init_momentum_buffer) {
    return [o, init_momentum_buffer](const Tensors& in, DType, Device) {
      Tensors s = updated_copies(in);
      sgd_update_(s[0], s[1], o.momentum != 0.0 ? s[2] : Tensor(), init_momentum_buffer, o);
      return Tensors{s[0], s[2]};
    };
  };
  // param, grad, momentum_buffer.
  auto inputs = [](DimVector shape, std::function<Tensor(const Tensor&)> view = nullptr) {
    return std::vector<InputSpec>{{.shape = shape, .view = view}, {.shape = shape, .view = view},
                                  {.shape = shape, .view = view}};
  };
  return {"sgd_update", floating_dtypes(),
          {
              {"plain", inputs({3, 5}), run({.lr = 0.1}, false)},
              {"first momentum step", inputs({3, 5}), run({.lr = 0.1, .momentum = 0.9, .weight_decay = 0.1}, true)},
              {"momentum, dampening, maximize", inputs({4, 7}),
               run({.lr = 0.1, .momentum = 0.9, .dampening = 0.2, .maximize = true}, false)},
              {"nesterov, decay", inputs({4, 7}), run({.lr = 0.1, .momentum = 0.8, .weight_decay = 0.1,
                                                       .nesterov = true}, false)},
              {"transposed", inputs({5, 3}, transposed), run({.lr = 0.1, .momentum = 0.9}, false)},
              {"large odd size", inputs({33, 1031}), run({.lr = 0.01, .momentum = 0.9}, false)},
          }};
}

OpCase rmsprop_update_case() {
  auto run = [](RmspropUpdateOptions o) {
    return [o](const Tensors& in, DType, Device) {
      Tensors s = updated_copies(in);
      rmsprop_update_(s[0], s[1], s[2], o.centered ? s[3] : Tensor(), o.momentum > 0 ? s[4] : Tensor(), o);
      return Tensors{s[0], s[2], s[3], s[4]};
    };
  };
  // param, grad, square_avg, grad_avg, momentum_buffer; a centered variance
  // stays positive with square_avg above grad_avg's square.
  auto inputs = [](DimVector shape, std::function<Tensor(const Tensor&)> view = nullptr) {
    return std::vector<InputSpec>{{.shape = shape, .view = view},
                                  {.shape = shape, .view = view},
                                  {.shape = shape, .values = Values::Positive, .view = view},
                                  {.shape = shape, .values = Values::Unit, .view = view},
                                  {.shape = shape, .view = view}};
  };
  return {"rmsprop_update", floating_dtypes(),
          {
              {"plain", inputs({3, 5}), run({.lr = 0.01})},
              {"centered, momentum", inputs({4, 7}), run({.lr = 0.01, .alpha = 0.9, .momentum = 0.5, .centered = true})},
              {"decay, maximize", inputs({4, 7}), run({.lr = 0.01, .eps = 1e-3, .weight_decay = 0.1, .maximize = true})},
              {"transposed", inputs({5, 3}, transposed), run({.lr = 0.01, .momentum = 0.9})},
              {"large odd size", inputs({33, 1031}), run({.lr = 0.01, .centered = true})},
          }};
}

// linear with a bias over 2-d inputs, which is mm_bias where a backend has
// that kernel: shapes across the CPU plugin's 256-wide tiles, an empty
// inner dim, and a strided bias.
OpCase mm_bias_case() {
  const auto run = [](const Tensors& in, DType, Device) { return Tensors{linear(in[0], in[1], in[2])}; };
  const auto every_other = [](const Tensor& t) { return t.slice(0, std::nullopt, std::nullopt, 2); };
  return {"mm_bias",
          numeric_dtypes(),
          {
              {"5x3 by 4x3", {{.shape = {5, 3}}, {.shape = {4, 3}}, {.shape = {4}}}, run, 1, true},
              {"across tiles", {{.shape = {300, 7}}, {.shape = {260, 7}}, {.shape = {260}}}, run, 4},
              {"empty inner dim", {{.shape = {3, 0}}, {.shape = {2, 0}}, {.shape = {2}}}, run},
              {"strided bias", {{.shape = {4, 3}}, {.shape = {5, 3}}, {.shape = {10}, .view = every_other}}, run},
          }};
}

}  // namespace

std::vector<OpCase> composite_cases() {
  return {
      softmax_like_case("softmax", &softmax),
      softmax_like_case("log_softmax", &log_softmax),
      convolution_case("conv2d", &conv2d, {6, 5}, false),
      convolution_case("conv3d", &conv3d, {4, 6, 5}, true),
      convolution_case("conv2d_bias", &conv2d, {6, 5}, true),
      mm_bias_case(),
      lstm_layer_case(),
      lstm_layer_backward_case(),
      lstm_layer_workspace_bytes_case(),
      pool_case("max_pool2d",
                [](const Tensor& x, int64_t k, int64_t s, int64_t p) { return max_pool2d(x, {k}, {s}, {p}); }),
      pool_case("avg_pool2d",
                [](const Tensor& x, int64_t k, int64_t s, int64_t p) { return avg_pool2d(x, {k}, {s}, {p}); }),
      backward_case("conv2d_backward_input",
                    {{.shape = {2, 3, 6, 5}}, {.shape = {4, 3, 3, 3}}, {.shape = {2, 4, 6, 5}}}, 0, conv2d_padded),
      backward_case("conv2d_backward_weight",
                    {{.shape = {2, 3, 6, 5}}, {.shape = {4, 3, 3, 3}}, {.shape = {2, 4, 6, 5}}}, 1, conv2d_padded),
      backward_case("conv3d_backward_input",
                    {{.shape = {2, 3, 4, 6, 5}}, {.shape = {4, 3, 3, 3, 3}}, {.shape = {2, 4, 4, 6, 5}}}, 0,
                    conv3d_padded),
      backward_case("conv3d_backward_weight",
                    {{.shape = {2, 3, 4, 6, 5}}, {.shape = {4, 3, 3, 3, 3}}, {.shape = {2, 4, 4, 6, 5}}}, 1,
                    conv3d_padded),
      backward_case("max_pool2d_backward", {{.shape = {1, 2, 7, 5}}, {.shape = {1, 2, 4, 3}}}, 0, max_pool2d_3x3),
      backward_case("avg_pool2d_backward", {{.shape = {1, 2, 7, 5}}, {.shape = {1, 2, 4, 3}}}, 0, avg_pool2d_3x3),
      layer_norm_case(),
      cross_entropy_case(),
      attention_case(),
      backward_case("scaled_dot_product_attention_backward",
                    {{.shape = {2, 6, 4}}, {.shape = {2, 6, 4}}, {.shape = {2, 6, 4}}, {.shape = {2, 6, 4}}}, 0,
                    attention_causal),
      gelu_case(),
      gelu_backward_case(),
      softmax_like_backward_case("softmax_backward", &softmax),
      softmax_like_backward_case("log_softmax_backward", &log_softmax),
      layer_norm_backward_case(),
      cross_entropy_backward_case(),
      adam_update_case(),
      sgd_update_case(),
      rmsprop_update_case(),
  };
}

}  // namespace ember::conformance
