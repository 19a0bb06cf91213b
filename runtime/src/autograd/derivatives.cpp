// Derivatives of the primitives (sdk/docs/ops.md), written with public ops
// so that a backward pass run with create_graph is itself differentiable.
// Elementwise primitives see same-shape operands (broadcasting is an
// expand view before them, with its own backward), so no formula here
// reduces over broadcast dims.
#include <cmath>
#include <string>

#include "autograd/derivatives.h"
#include "autograd/record.h"
#include "autograd/through_decomposition.h"
#include "core/shape.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_registry.h"
#include "ember/error.h"
#include "ember/functional.h"
#include "ember/ops.h"

namespace ember::autograd {

using dispatch::OpCall;
using Grads = std::vector<Tensor>;

// Saves the call's inputs and returns a backward over (g, inputs...).
template <typename F>
static BackwardFn over_inputs(const OpCall& c, std::vector<Tensor>& saved, F f) {
  for (int64_t i = 0; i < c.num_inputs; ++i) saved.push_back(c.inputs[i]);
  return [f](const Grads& grads, const Grads& in) -> Grads { return f(grads[0], in); };
}

// lhs @ rhs in the layout of `operand`, whose gradient it is. For a
// transposed operand (linear's weight, w.t()) the transposed product is
// computed instead, so the gradient reaches w contiguous, with no copy.
static Tensor mm_shaped_like(const Tensor& operand, const Tensor& lhs, const Tensor& rhs) {
  const bool transposed = operand.stride(0) == 1 && operand.stride(1) == operand.size(0) && operand.size(1) > 1;
  return transposed ? mm(rhs.t(), lhs.t()).t() : mm(lhs, rhs);
}

// Note [Trigamma as a composite]: digamma's derivative, polygamma(1, x), is
// no primitive of its own. It is composed of public ops, so that a plugin
// with digamma needs no further kernel and the second derivative of
// lgamma follows through create_graph: the reflection
// psi1(x) = pi^2 / sin^2(pi x) - psi1(1 - x) brings x below 1/2 above it,
// the recurrence psi1(z) = psi1(z + 1) + 1 / z^2 moves z past 10, and the
// asymptotic series there, 1/z + 1/(2 z^2) + sum B_2k / z^(2k+1) to B_10,
// has a relative error under 1e-12. At the poles (0, -1, ...) the result is
// inf or a huge finite value, where PyTorch gives inf.
static Tensor trigamma(const Tensor& x) {
  constexpr int kShift = 10;
  const Tensor reflected = lt(x, 0.5);
  Tensor z = where(reflected, 1.0 - x, x);
  Tensor sum = zeros_like(z);
  for (int k = 0; k < kShift; ++k) sum = sum + reciprocal(pow(z + static_cast<double>(k), 2.0));
  z = z + static_cast<double>(kShift);
  const Tensor inverse = reciprocal(z);
  const Tensor w = inverse * inverse;
  const Tensor tail = w * (-1.0 / 30.0 + w * (1.0 / 42.0 + w * (-1.0 / 30.0 + w * (5.0 / 66.0))));
  const Tensor series = inverse + w * 0.5 + inverse * w * (tail + 1.0 / 6.0);
  const Tensor direct = sum + series;
  const Tensor sine = sin(x * M_PI);
  return where(reflected, (M_PI * M_PI) / (sine * sine) - direct, direct);
}

#define EMBER_UNARY_DERIVATIVE(name, expr)                              \
  BackwardFn name(const OpCall& c, std::vector<Tensor>& saved) {        \
    return over_inputs(c, saved, [](const Tensor& g, const Grads& in) { \
      const Tensor& x = in[0];                                          \
      (void)x;                                                          \
      return Grads{expr};                                               \
    });                                                                 \
  }

EMBER_UNARY_DERIVATIVE(d_neg, neg(g))
EMBER_UNARY_DERIVATIVE(d_abs, g* sign(x))
EMBER_UNARY_DERIVATIVE(d_zero, zeros_like(g))
EMBER_UNARY_DERIVATIVE(d_exp, g* exp(x))
EMBER_UNARY_DERIVATIVE(d_log, g / x)
EMBER_UNARY_DERIVATIVE(d_log1p, g / (x + 1.0))
EMBER_UNARY_DERIVATIVE(d_sqrt, g / (sqrt(x) * 2.0))
EMBER_UNARY_DERIVATIVE(d_rsqrt, g* pow(rsqrt(x), 3.0) * -0.5)
EMBER_UNARY_DERIVATIVE(d_sin, g* cos(x))
EMBER_UNARY_DERIVATIVE(d_cos, neg(g* sin(x)))
EMBER_UNARY_DERIVATIVE(d_tan, g*(pow(tan(x), 2.0) + 1.0))
EMBER_UNARY_DERIVATIVE(d_tanh, g*(1.0 - pow(tanh(x), 2.0)))
EMBER_UNARY_DERIVATIVE(d_sigmoid, [&] {
  const Tensor s = sigmoid(x);
  return g * s * (1.0 - s);
}())
EMBER_UNARY_DERIVATIVE(d_erf, g* exp(neg(x* x)) * (2.0 / std::sqrt(M_PI)))
EMBER_UNARY_DERIVATIVE(d_reciprocal, neg(g / (x * x)))
EMBER_UNARY_DERIVATIVE(d_erfc, g* exp(neg(x* x)) * (-2.0 / std::sqrt(M_PI)))
EMBER_UNARY_DERIVATIVE(d_erfinv, g* exp(pow(erfinv(x), 2.0)) * (std::sqrt(M_PI) / 2.0))
EMBER_UNARY_DERIVATIVE(d_asin, g* rsqrt(1.0 - x * x))
EMBER_UNARY_DERIVATIVE(d_acos, neg(g* rsqrt(1.0 - x * x)))
EMBER_UNARY_DERIVATIVE(d_atan, g / (x * x + 1.0))
EMBER_UNARY_DERIVATIVE(d_lgamma, g* digamma(x))
EMBER_UNARY_DERIVATIVE(d_digamma, g* trigamma(x))
#undef EMBER_UNARY_DERIVATIVE

// Only the gradients of inputs that required grad when the op ran are
// computed: the others have no edge to receive them (PyTorch's
// needs_input_grad), which for a first layer's mm saves a whole product.
#define EMBER_BINARY_DERIVATIVE(name, expr_a, expr_b)                                       \
  BackwardFn name(const OpCall& c, std::vector<Tensor>& saved) {                            \
    const bool need_a = c.inputs[0].requires_grad(), need_b = c.inputs[1].requires_grad();  \
    return over_inputs(c, saved, [need_a, need_b](const Tensor& g, const Grads& in) {       \
      const Tensor& a = in[0];                                                              \
      const Tensor& b = in[1];                                                              \
      (void)a;                                                                              \
      (void)b;                                                                              \
      return Grads{need_a ? Tensor(expr_a) : Tensor(), need_b ? Tensor(expr_b) : Tensor()}; \
    });                                                                                     \
  }

EMBER_BINARY_DERIVATIVE(d_add, g, g)
EMBER_BINARY_DERIVATIVE(d_sub, g, neg(g))
EMBER_BINARY_DERIVATIVE(d_mul, g* b, g* a)
EMBER_BINARY_DERIVATIVE(d_div, g / b, neg(g* a / (b * b)))
// PyTorch's conventions: d/da is 0 where b == 0 (x ** 0 is constant, even at
// x = 0, where pow(a, -1) is inf), and where a == 0 and b >= 0, d/db is 0
// rather than NaN.
EMBER_BINARY_DERIVATIVE(d_pow, where(eq(b, 0.0), zeros_like(g), g* b* pow(a, b - 1.0)),
                        where(logical_and(eq(a, 0.0), ge(b, 0.0)), zeros_like(g), g* pow(a, b) * log(a)))
// Ties split the gradient evenly, as PyTorch does.
EMBER_BINARY_DERIVATIVE(d_maximum, g*(gt(a, b).to(g.dtype()) + eq(a, b).to(g.dtype()) * 0.5),
                        g*(lt(a, b).to(g.dtype()) + eq(a, b).to(g.dtype()) * 0.5))
EMBER_BINARY_DERIVATIVE(d_minimum, g*(lt(a, b).to(g.dtype()) + eq(a, b).to(g.dtype()) * 0.5),
                        g*(gt(a, b).to(g.dtype()) + eq(a, b).to(g.dtype()) * 0.5))
EMBER_BINARY_DERIVATIVE(d_atan2, g* b / (a * a + b * b), neg(g * a / (a * a + b * b)))
EMBER_BINARY_DERIVATIVE(d_floor_divide, zeros_like(g), zeros_like(g))
EMBER_BINARY_DERIVATIVE(d_remainder, g, neg(g* floor_divide(a, b)))
EMBER_BINARY_DERIVATIVE(d_mm, mm_shaped_like(a, g, b.t()), mm_shaped_like(b, a.t(), g))
EMBER_BINARY_DERIVATIVE(d_bmm, bmm(g, b.transpose(1, 2)), bmm(a.transpose(1, 2), g))
#undef EMBER_BINARY_DERIVATIVE

// Inputs (a, b, bias): mm's gradients for a and b, and for the bias the sum
// of dy over the rows (Note [mm_bias]).
BackwardFn d_mm_bias(const OpCall& c, std::vector<Tensor>& saved) {
  const bool need_a = c.inputs[0].requires_grad(), need_b = c.inputs[1].requires_grad();
  const bool need_bias = c.inputs[2].requires_grad();
  return over_inputs(c, saved, [need_a, need_b, need_bias](const Tensor& g, const Grads& in) {
    const int64_t rows[] = {0};
    return Grads{need_a ? mm_shaped_like(in[0], g, in[1].t()) : Tensor(),
                 need_b ? mm_shaped_like(in[1], in[0].t(), g) : Tensor(), need_bias ? sum(g, rows) : Tensor()};
  });
}

// Only the condition is saved, so the branches may change in place later
// (index_put_ writes its result over one of them).
BackwardFn d_where(const OpCall& c, std::vector<Tensor>& saved) {
  saved.push_back(c.inputs[0]);
  const bool need_a = c.inputs[1].requires_grad(), need_b = c.inputs[2].requires_grad();
  return [need_a, need_b](const Grads& grads, const Grads& in) {
    const Tensor& g = grads[0];
    const Tensor zero = zeros({}, TensorOptions(g.dtype(), g.device()));
    return Grads{Tensor(), need_a ? where(in[0], g, zero) : Tensor(), need_b ? where(in[0], zero, g) : Tensor()};
  };
}

BackwardFn d_copy(const OpCall& c, std::vector<Tensor>&) {
  const DType source = c.inputs[0].dtype();
  return [source](const Grads& grads, const Grads&) { return Grads{grads[0].to(source)}; };
}

// Reductions write keepdim-shaped outputs, so expanding the gradient back to
// the input's shape is all a sum needs.
static DimVector reduced_sizes(const OpCall& c) { return c.inputs[0].sizes(); }

static int64_t reduced_count(const OpCall& c) {
  const IntArrayRef dims = c.attr_ints("reduction", "dims");
  const Tensor& x = c.inputs[0];
  if (dims.empty()) return x.numel();
  int64_t n = 1;
  for (int64_t d : dims) n *= x.sizes()[d];
  return n;
}

BackwardFn d_sum(const OpCall& c, std::vector<Tensor>&) {
  const DimVector sizes = reduced_sizes(c);
  const DType dtype = c.inputs[0].dtype();
  return [sizes, dtype](const Grads& grads, const Grads&) { return Grads{grads[0].expand(sizes).to(dtype)}; };
}

BackwardFn d_mean(const OpCall& c, std::vector<Tensor>&) {
  const DimVector sizes = reduced_sizes(c);
  const double n = static_cast<double>(reduced_count(c));
  return [sizes, n](const Grads& grads, const Grads&) { return Grads{grads[0].expand(sizes) / n}; };
}

static std::vector<int64_t> dims_of(const OpCall& c) { return c.attr_ints("reduction", "dims").vec(); }

BackwardFn d_prod(const OpCall& c, std::vector<Tensor>& saved) {
  saved.push_back(c.inputs[0]);
  const std::vector<int64_t> dims = dims_of(c);
  return [dims](const Grads& grads, const Grads& in) {
    const Tensor& x = in[0];
    return Grads{grads[0].expand(x.sizes()) * prod(x, dims, true).expand(x.sizes()) / x};
  };
}

// The gradient goes to every element equal to the extreme, split evenly.
template <bool kMax>
static BackwardFn d_extreme(const OpCall& c, std::vector<Tensor>& saved) {
  saved.push_back(c.inputs[0]);
  const std::vector<int64_t> dims = dims_of(c);
  return [dims](const Grads& grads, const Grads& in) {
    const Tensor& x = in[0];
    const Tensor extreme = kMax ? amax(x, dims, true) : amin(x, dims, true);
    const Tensor mask = eq(x, extreme.expand(x.sizes())).to(x.dtype());
    const Tensor count = sum(mask, dims, true);
    return Grads{grads[0].expand(x.sizes()) * mask / count.expand(x.sizes())};
  };
}

BackwardFn d_index_select(const OpCall& c, std::vector<Tensor>& saved) {
  saved.push_back(c.inputs[1]);
  const DimVector sizes = c.inputs[0].sizes();
  const int64_t dim = c.attr_int("index_select", "dim");
  const DType dtype = c.inputs[0].dtype();
  return [sizes, dim, dtype](const Grads& grads, const Grads& in) {
    const Tensor& g = grads[0];
    if (sizes.empty()) return Grads{g.reshape(IntArrayRef{}), Tensor()};
    return Grads{place_along(g, sizes, dtype, dim, in[0]), Tensor()};
  };
}

BackwardFn d_gather(const OpCall& c, std::vector<Tensor>& saved) {
  saved.push_back(c.inputs[1]);
  const DimVector sizes = c.inputs[0].sizes();
  const int64_t dim = c.attr_int("gather", "dim");
  const DType dtype = c.inputs[0].dtype();
  return [sizes, dim, dtype](const Grads& grads, const Grads& in) {
    const Tensor& g = grads[0];
    return Grads{scatter_add(zeros(sizes, TensorOptions(dtype, g.device())), dim, in[0], g), Tensor()};
  };
}

BackwardFn d_scatter_add(const OpCall& c, std::vector<Tensor>& saved) {
  saved.push_back(c.inputs[1]);
  const int64_t dim = c.attr_int("scatter_add", "dim");
  const DimVector src_sizes = c.inputs[2].sizes();
  return [dim, src_sizes](const Grads& grads, const Grads& in) {
    const Tensor& index = in[0];
    Tensor g_src = gather(grads[0], dim, index);
    if (!(index.sizes() == src_sizes)) {
      // src elements past index's extent were never read.
      Tensor full = zeros(src_sizes, TensorOptions(g_src.dtype(), g_src.device()));
      Tensor window = full;
      for (int64_t d = 0; d < index.dim(); ++d) window = window.narrow(d, 0, index.sizes()[d]);
      window.copy_(g_src);
      g_src = full;
    }
    return Grads{grads[0], Tensor(), g_src};
  };
}

BackwardFn d_cat(const OpCall& c, std::vector<Tensor>&) {
  const int64_t dim = c.attr_int("cat", "dim");
  std::vector<int64_t> lengths;
  for (int64_t i = 0; i < c.num_inputs; ++i) lengths.push_back(c.inputs[i].dim() == 0 ? 0 : c.inputs[i].size(dim));
  return [dim, lengths](const Grads& grads, const Grads&) {
    Grads out;
    int64_t offset = 0;
    for (int64_t len : lengths) {
      out.push_back(grads[0].narrow(dim, offset, len));
      offset += len;
    }
    return out;
  };
}

// d/dx_i of sum_j g_j * cumsum(x)_j is the sum of g over j >= i.
BackwardFn d_cumsum(const OpCall& c, std::vector<Tensor>&) {
  const int64_t dim = c.attr_int("cumsum", "dim");
  const DType dtype = c.inputs[0].dtype();
  return [dim, dtype](const Grads& grads, const Grads&) {
    const Tensor& g = grads[0];
    const int64_t dims[] = {dim};
    return Grads{(sum(g, dims, true).expand(g.sizes()) - cumsum(g, dim) + g).to(dtype)};
  };
}

// Values go back to where they came from; the permutation is recomputed
// rather than saved, so the node keeps no reference to its own outputs.
BackwardFn d_sort(const OpCall& c, std::vector<Tensor>& saved) {
  saved.push_back(c.inputs[0]);
  const int64_t dim = c.attr_int("sort", "dim");
  const ember_attr* descending = c.find_attr("descending");
  const bool desc = descending != nullptr && descending->int_value != 0;
  return [dim, desc](const Grads& grads, const Grads& in) {
    const Tensor& x = in[0];
    if (!grads[0].defined()) return Grads{Tensor()};
    const Tensor order = sort(x, dim, desc, true).indices;
    return Grads{scatter_add(zeros_like(x), dim, order, grads[0])};
  };
}

namespace {

// Note [Fused backward kernels]: a backend's one-pass backward kernel runs
// when it has one for the dtype, the gradient matches the input's device and
// dtype, and no graph of the backward is recorded; otherwise the formula
// below it, whose ops autograd can differentiate again.
bool use_fused_backward(const dispatch::Op& backward, const Tensor& g, const Tensor& x) {
  return !is_grad_enabled() && g.device() == x.device() && g.dtype() == x.dtype() &&
         dispatch::use_composite_kernel(backward, g);
}

// Fused composite kernels (Note [Composite kernels]) need their own
// derivatives. Softmax and log_softmax save their input and read their
// output (Note [Derivatives that read outputs]): the backend's backward
// kernel takes the output, as PyTorch's does, and the formula, which must
// be differentiable again, recomputes it from the input.
template <dispatch::OpId kBackward>
BackwardFn d_softmax_like(const OpCall& c, std::vector<Tensor>& saved, std::string_view op_name) {
  saved.push_back(c.inputs[0]);
  const int64_t dim = c.attr_int(op_name, "dim");
  return [dim](const Grads& grads, const Grads& in) {
    const Tensor& g = grads[0];
    const Tensor& x = in[0];
    static const dispatch::Op& backward = dispatch::op(kBackward);
    if (use_fused_backward(backward, g, x)) {
      return Grads{dispatch::call_single(backward, {g.contiguous(), in[1]}, {dispatch::attr_int("dim", dim)})};
    }
    const int64_t dims[] = {dim};
    if constexpr (kBackward == dispatch::OpId::LogSoftmaxBackward) {
      return Grads{g - exp(log_softmax(x, dim)) * sum(g, dims, true)};
    } else {
      const Tensor s = softmax(x, dim);
      return Grads{s * (g - sum(g * s, dims, true))};
    }
  };
}

}  // namespace

BackwardFn d_softmax(const OpCall& c, std::vector<Tensor>& saved) {
  return d_softmax_like<dispatch::OpId::SoftmaxBackward>(c, saved, "softmax");
}

BackwardFn d_log_softmax(const OpCall& c, std::vector<Tensor>& saved) {
  return d_softmax_like<dispatch::OpId::LogSoftmaxBackward>(c, saved, "log_softmax");
}

namespace {

// A convolution's geometry, as it and its backward ops take it.
struct ConvGeometry {
  DimVector stride, padding, dilation;
  int64_t groups = 1;
};

ConvGeometry conv_geometry(const OpCall& c, std::string_view op) {
  return {c.attr_ints(op, "stride"), c.attr_ints(op, "padding"), c.attr_ints(op, "dilation"), c.attr_int(op, "groups")};
}

// conv2d or conv3d, by x's rank.
Tensor convolution_of(const Tensor& x, const Tensor& w, const ConvGeometry& geo) {
  return x.dim() == 5 ? conv3d(x, w, std::nullopt, geo.stride, geo.padding, geo.dilation, geo.groups)
                      : conv2d(x, w, std::nullopt, geo.stride, geo.padding, geo.dilation, geo.groups);
}

// A backend's backward convolution: conv*d_backward_input (dy, w) or
// conv*d_backward_weight (dy, x), told the sizes of what it computes; dy is
// contiguous, as both kernels take it.
Tensor run_conv_backward(const dispatch::Op& op, const Tensor& dy, const Tensor& other, const ConvGeometry& geo,
                         const char* sizes_name, IntArrayRef sizes) {
  return dispatch::call_single(op, {dy, other},
                               {dispatch::attr_ints("stride", geo.stride), dispatch::attr_ints("padding", geo.padding),
                                dispatch::attr_ints("dilation", geo.dilation), dispatch::attr_int("groups", geo.groups),
                                dispatch::attr_ints(sizes_name, sizes)});
}

// A convolution's weight gradient for output gradient dy and input x, as a
// convolution itself, so it is differentiable to any order: per group, x
// with batch and channels swapped is convolved with dy (likewise swapped) as
// the kernel, stride and dilation trading places, and the first kernel-sized
// corner of the output is the weight's.
Tensor convolution_weight_gradient(const Tensor& dy, const Tensor& x, IntArrayRef weight_sizes,
                                   const ConvGeometry& geo) {
  const int64_t inputs_per_group = x.size(1) / geo.groups;
  const int64_t outputs_per_group = dy.size(1) / geo.groups;
  const ConvGeometry swapped{geo.dilation, geo.padding, geo.stride, 1};
  std::vector<Tensor> parts;
  for (int64_t k = 0; k < geo.groups; ++k) {
    const Tensor inputs = x.narrow(1, k * inputs_per_group, inputs_per_group).transpose(0, 1);
    const Tensor kernel = dy.narrow(1, k * outputs_per_group, outputs_per_group).transpose(0, 1);
    Tensor part = convolution_of(inputs, kernel, swapped);
    for (int64_t d = 2; d < part.dim(); ++d) part = part.narrow(d, 0, weight_sizes[d]);
    parts.push_back(part.transpose(0, 1));
  }
  return geo.groups == 1 ? parts[0] : cat(parts, 0);
}

// The backend's backward convolutions when it has both and no graph of the
// backward is wanted; otherwise the convolution's decomposition,
// differentiated (which also gives higher orders).
template <dispatch::OpId kBackwardInput, dispatch::OpId kBackwardWeight>
BackwardFn d_convolution(const OpCall& c, std::vector<Tensor>& saved, std::string_view op_name) {
  saved.push_back(c.inputs[0]);
  saved.push_back(c.inputs[1]);
  const ConvGeometry geo = conv_geometry(c, op_name);
  return [=](const Grads& grads, const Grads& in) {
    const Tensor& g = grads[0];
    const Tensor& x = in[0];
    const Tensor& w = in[1];
    static const dispatch::Op& backward_input = dispatch::op(kBackwardInput);
    static const dispatch::Op& backward_weight = dispatch::op(kBackwardWeight);
    if (!is_grad_enabled() && dispatch::use_composite_kernel(backward_input, g) &&
        dispatch::use_composite_kernel(backward_weight, g)) {
      const Tensor gc = g.contiguous();
      return Grads{x.requires_grad() ? run_conv_backward(backward_input, gc, w, geo, "input_sizes", x.sizes()) : Tensor(),
                   w.requires_grad() ? run_conv_backward(backward_weight, gc, x, geo, "weight_sizes", w.sizes())
                                     : Tensor()};
    }
    return differentiate_decomposition([&](const Grads& args) { return convolution_of(args[0], args[1], geo); },
                                       {x, w}, g);
  };
}

// Inputs (dy, w) -> dx: the convolution's input gradient, which is also the
// transposed convolution of dy (conv_transpose runs on it). Since
// <g, dx> = <conv(g, w), dy>, dy's gradient is the convolution of g, and
// w's is the convolution's weight gradient with g as the input: the
// backend's kernel when it has one and no graph of the backward is wanted,
// otherwise convolution_weight_gradient.
template <dispatch::OpId kBackwardWeight>
BackwardFn d_convolution_backward_input(const OpCall& c, std::vector<Tensor>& saved, std::string_view op_name) {
  saved.push_back(c.inputs[0]);
  saved.push_back(c.inputs[1]);
  const ConvGeometry geo = conv_geometry(c, op_name);
  return [=](const Grads& grads, const Grads& in) {
    const Tensor& g = grads[0];
    const Tensor& dy = in[0];
    const Tensor& w = in[1];
    const Tensor grad_dy = dy.requires_grad() ? convolution_of(g, w, geo) : Tensor();
    if (!w.requires_grad()) return Grads{grad_dy, Tensor()};
    static const dispatch::Op& backward_weight = dispatch::op(kBackwardWeight);
    if (use_fused_backward(backward_weight, g, w)) {
      return Grads{grad_dy,
                   run_conv_backward(backward_weight, dy.contiguous(), g.contiguous(), geo, "weight_sizes", w.sizes())};
    }
    return Grads{grad_dy, convolution_weight_gradient(dy, g, w.sizes(), geo)};
  };
}

}  // namespace

BackwardFn d_conv2d(const OpCall& c, std::vector<Tensor>& saved) {
  return d_convolution<dispatch::OpId::Conv2dBackwardInput, dispatch::OpId::Conv2dBackwardWeight>(c, saved, "conv2d");
}

// Inputs (x, w, b): conv2d's gradients for x and w, and for the bias the
// sum of dy over every dim but the channels (Note [conv2d_bias]).
BackwardFn d_conv2d_bias(const OpCall& c, std::vector<Tensor>& saved) {
  BackwardFn conv =
      d_convolution<dispatch::OpId::Conv2dBackwardInput, dispatch::OpId::Conv2dBackwardWeight>(c, saved, "conv2d_bias");
  const bool bias_needs_grad = c.inputs[2].requires_grad();
  return [conv = std::move(conv), bias_needs_grad](const Grads& grads, const Grads& in) {
    Grads out = conv(grads, in);
    const int64_t dims[] = {0, 2, 3};
    out.push_back(bias_needs_grad ? sum(grads[0], dims) : Tensor());
    return out;
  };
}

BackwardFn d_conv3d(const OpCall& c, std::vector<Tensor>& saved) {
  return d_convolution<dispatch::OpId::Conv3dBackwardInput, dispatch::OpId::Conv3dBackwardWeight>(c, saved, "conv3d");
}

BackwardFn d_conv2d_backward_input(const OpCall& c, std::vector<Tensor>& saved) {
  return d_convolution_backward_input<dispatch::OpId::Conv2dBackwardWeight>(c, saved, "conv2d_backward_input");
}

BackwardFn d_conv3d_backward_input(const OpCall& c, std::vector<Tensor>& saved) {
  return d_convolution_backward_input<dispatch::OpId::Conv3dBackwardWeight>(c, saved, "conv3d_backward_input");
}

// The gradient goes to the argmax of each window, found again from the
// saved input: in one pass by the backend's max_pool2d_backward when it has
// one and no graph of the backward is recorded, else as a scatter_add
// through the indices.
BackwardFn d_max_pool2d(const OpCall& c, std::vector<Tensor>& saved) {
  saved.push_back(c.inputs[0]);
  const DimVector kernel = c.attr_ints("max_pool2d", "kernel_size");
  const DimVector stride = c.attr_ints("max_pool2d", "stride");
  const DimVector padding = c.attr_ints("max_pool2d", "padding");
  const DimVector dilation = c.attr_ints("max_pool2d", "dilation");
  return [=](const Grads& grads, const Grads& in) {
    const Tensor& g = grads[0];
    if (!g.defined()) return Grads{Tensor()};
    static const dispatch::Op& backward = dispatch::op(dispatch::OpId::MaxPool2dBackward);
    if (!is_grad_enabled() && g.device() == in[0].device() && dispatch::use_composite_kernel(backward, g)) {
      return Grads{
          dispatch::call_single(backward, {g, in[0]},
                                {dispatch::attr_ints("kernel_size", kernel), dispatch::attr_ints("stride", stride),
                                 dispatch::attr_ints("padding", padding), dispatch::attr_ints("dilation", dilation)})};
    }
    Tensor argmax;
    {
      NoGradGuard no_grad;
      argmax = max_pool2d_with_indices(in[0], kernel, stride, padding, dilation).indices;
    }
    const DimVector& sizes = in[0].sizes();
    const int64_t n = sizes[0], channels = sizes[1];
    const Tensor plane_grads = zeros({n, channels, sizes[2] * sizes[3]}, TensorOptions(g.dtype(), g.device()));
    return Grads{
        scatter_add(plane_grads, 2, argmax.reshape({n, channels, -1}), g.reshape({n, channels, -1})).reshape(sizes)};
  };
}

BackwardFn d_avg_pool2d(const OpCall& c, std::vector<Tensor>& saved) {
  saved.push_back(c.inputs[0]);
  const DimVector kernel = c.attr_ints("avg_pool2d", "kernel_size");
  const DimVector stride = c.attr_ints("avg_pool2d", "stride");
  const DimVector padding = c.attr_ints("avg_pool2d", "padding");
  const bool count_include_pad = c.attr_int("avg_pool2d", "count_include_pad") != 0;
  return [=](const Grads& grads, const Grads& in) {
    const Tensor& g = grads[0];
    static const dispatch::Op& backward = dispatch::op(dispatch::OpId::AvgPool2dBackward);
    if (!is_grad_enabled() && dispatch::use_composite_kernel(backward, g)) {
      return Grads{dispatch::call_single(
          backward, {g},
          {dispatch::attr_ints("kernel_size", kernel), dispatch::attr_ints("stride", stride),
           dispatch::attr_ints("padding", padding), dispatch::attr_bool("count_include_pad", count_include_pad),
           dispatch::attr_ints("input_sizes", in[0].sizes())})};
    }
    return differentiate_decomposition(
        [&](const Grads& args) { return avg_pool2d(args[0], kernel, stride, padding, count_include_pad); }, {in[0]}, g);
  };
}

// In one pass by the backend's gelu_backward when it has one and no graph
// of the backward is recorded, else through the decomposition.
BackwardFn d_gelu(const OpCall& c, std::vector<Tensor>& saved) {
  saved.push_back(c.inputs[0]);
  const int64_t approximate = c.attr_int("gelu", "approximate");
  return [=](const Grads& grads, const Grads& in) {
    const Tensor& g = grads[0];
    static const dispatch::Op& backward = dispatch::op(dispatch::OpId::GeluBackward);
    if (use_fused_backward(backward, g, in[0])) {
      return Grads{dispatch::call_single(backward, {g.contiguous(), in[0]},
                                         {dispatch::attr_int("approximate", approximate)})};
    }
    return differentiate_decomposition(
        [&](const Grads& args) { return gelu(args[0], approximate != 0 ? "tanh" : "none"); }, {in[0]}, g);
  };
}

// Inputs (x, weight, bias); x_hat = (x - mean) * rstd over the last
// normalized_ndim dims, y = x_hat * weight + bias.
BackwardFn d_layer_norm(const OpCall& c, std::vector<Tensor>& saved) {
  saved.push_back(c.inputs[0]);
  saved.push_back(c.inputs[1]);
  const int64_t k = c.attr_int("layer_norm", "normalized_ndim");
  const double eps = c.find_attr("eps")->float_value;
  return [k, eps](const Grads& grads, const Grads& in) {
    const Tensor& g = grads[0];
    const Tensor& x = in[0];
    const Tensor& w = in[1];
    static const dispatch::Op& backward = dispatch::op(dispatch::OpId::LayerNormBackward);
    if (use_fused_backward(backward, g, x)) {
      return dispatch::call_outputs(backward, {g.contiguous(), x, w}, 3,
                                    {dispatch::attr_int("normalized_ndim", k), dispatch::attr_float("eps", eps)});
    }
    DimVector dims, rows;
    for (int64_t d = 0; d < x.dim(); ++d) (d >= x.dim() - k ? dims : rows).push_back(d);
    const Tensor centered = x - mean(x, dims, true);
    const Tensor rstd = rsqrt(mean(centered * centered, dims, true) + eps);
    const Tensor x_hat = centered * rstd;
    const Tensor g_hat = g * w;
    const Tensor gx = rstd * (g_hat - mean(g_hat, dims, true) - x_hat * mean(g_hat * x_hat, dims, true));
    const bool lead = !rows.empty();
    const Tensor gw = lead ? sum(g * x_hat, rows) : g * x_hat;
    const Tensor gb = lead ? sum(g, rows) : g;
    return Grads{gx, gw, gb};
  };
}

// Inputs (logits [N, C], int64 target [N]): softmax minus the smoothed
// one-hot target, on rows that are not ignored, scaled by the reduction.
BackwardFn d_cross_entropy(const OpCall& c, std::vector<Tensor>& saved) {
  saved.push_back(c.inputs[0]);
  saved.push_back(c.inputs[1]);
  const int64_t ignore_index = c.attr_int("cross_entropy", "ignore_index");
  const int64_t reduction = c.attr_int("cross_entropy", "reduction");
  const double smoothing = c.find_attr("label_smoothing")->float_value;
  return [=](const Grads& grads, const Grads& in) {
    const Tensor& logits = in[0];
    const Tensor& target = in[1];
    static const dispatch::Op& backward = dispatch::op(dispatch::OpId::CrossEntropyBackward);
    if (use_fused_backward(backward, grads[0], logits)) {
      return Grads{dispatch::call_single(backward, {grads[0].contiguous(), logits.contiguous(), target},
                                         {dispatch::attr_int("ignore_index", ignore_index),
                                          dispatch::attr_int("reduction", reduction),
                                          dispatch::attr_float("label_smoothing", smoothing)}),
                   Tensor()};
    }
    const int64_t classes = logits.size(1);
    const Tensor valid = ne(target, ignore_index);
    const Tensor safe_target = where(valid, target, Scalar(int64_t{0}));
    const Tensor wanted = one_hot(safe_target, classes).to(logits.dtype()) * (1 - smoothing) + smoothing / classes;
    Tensor row_scale = valid.to(logits.dtype());
    if (reduction == 1) row_scale = row_scale / sum(row_scale);
    row_scale = row_scale * grads[0];
    return Grads{(softmax(logits, 1) - wanted) * row_scale.unsqueeze(1), Tensor()};
  };
}

// Inputs (q, k, v[, mask]) and, after them, the outputs (out, lse): the
// backend's backward kernel recomputes the weights from the log-sum-exp when
// it has one and no graph of the backward is wanted; otherwise the
// decomposition is differentiated (higher orders, and a mask's gradient).
BackwardFn d_scaled_dot_product_attention(const OpCall& c, std::vector<Tensor>& saved) {
  for (int64_t i = 0; i < c.num_inputs; ++i) saved.push_back(c.inputs[i]);
  const bool is_causal = c.attr_int("scaled_dot_product_attention", "is_causal") != 0;
  const double scale = c.find_attr("scale")->float_value;
  const auto num_inputs = static_cast<size_t>(c.num_inputs);
  return [=](const Grads& grads, const Grads& in) {
    const Tensor& g = grads[0];
    const Grads inputs(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(num_inputs));
    if (!g.defined()) return Grads(num_inputs);
    const bool mask_needs_grad = num_inputs == 4 && inputs[3].requires_grad();
    static const dispatch::Op& backward = dispatch::op(dispatch::OpId::ScaledDotProductAttentionBackward);
    if (!is_grad_enabled() && !mask_needs_grad && g.device() == inputs[0].device() &&
        dispatch::use_composite_kernel(backward, g)) {
      std::vector<Tensor> args = {g.contiguous(), inputs[0], inputs[1], inputs[2], in[num_inputs], in[num_inputs + 1]};
      if (num_inputs == 4) args.push_back(inputs[3]);
      Tensor outputs[3];
      const ember_attr attrs[] = {dispatch::attr_bool("is_causal", is_causal), dispatch::attr_float("scale", scale)};
      dispatch::OpCall call;
      call.inputs = args.data();
      call.num_inputs = static_cast<int64_t>(args.size());
      call.outputs = outputs;
      call.num_outputs = 3;
      call.attrs = attrs;
      call.num_attrs = 2;
      dispatch::call(backward, call);
      Grads out(outputs, outputs + 3);
      if (num_inputs == 4) out.emplace_back();
      return out;
    }
    // Under differentiate_decomposition's guard the public function runs its
    // decomposition; the op's mask is already additive.
    return differentiate_decomposition(
        [&](const Grads& args) {
          const std::optional<Tensor> mask = num_inputs == 4 ? std::optional<Tensor>(args[3]) : std::nullopt;
          return scaled_dot_product_attention(args[0], args[1], args[2], mask, 0, is_causal, scale);
        },
        inputs, g);
  };
}

// Inputs (x, h0, c0, w_ih, w_hh, b) and, after them, the outputs (y, h_T,
// c_T, workspace): the backend's backward kernel reads the workspace its
// forward kernel left (Note [LSTM layer workspace]) when no graph of the
// backward is wanted; otherwise the decomposition is differentiated, its
// three outputs flattened into one.
BackwardFn d_lstm_layer(const OpCall& c, std::vector<Tensor>& saved) {
  for (int64_t i = 0; i < c.num_inputs; ++i) saved.push_back(c.inputs[i]);
  const bool reverse = c.attr_int("lstm_layer", "reverse") != 0;
  return [reverse](const Grads& grads, const Grads& in) {
    constexpr size_t kInputs = 6;
    const Grads inputs(in.begin(), in.begin() + kInputs);
    Grads output_grads(3);
    for (size_t i = 0; i < 3; ++i) {
      output_grads[i] = grads[i].defined() ? grads[i].contiguous() : zeros_like(in[kInputs + i]);
    }
    static const dispatch::Op& backward = dispatch::op(dispatch::OpId::LstmLayerBackward);
    if (!is_grad_enabled() && dispatch::use_composite_kernel(backward, output_grads[0])) {
      std::vector<Tensor> args(output_grads);
      args.insert(args.end(), in.begin(), in.end());
      Tensor outputs[kInputs];
      const ember_attr attrs[] = {dispatch::attr_bool("reverse", reverse)};
      dispatch::OpCall call;
      call.inputs = args.data();
      call.num_inputs = static_cast<int64_t>(args.size());
      call.outputs = outputs;
      call.num_outputs = kInputs;
      call.attrs = attrs;
      call.num_attrs = 1;
      dispatch::call(backward, call);
      return Grads(outputs, outputs + kInputs);
    }
    const auto flat = [](const Tensor& y, const Tensor& h, const Tensor& c) {
      return cat({y.reshape({-1}), h.reshape({-1}), c.reshape({-1})});
    };
    return differentiate_decomposition(
        [&](const Grads& args) {
          const LstmLayerResult r = lstm_layer(args[0], args[1], args[2], args[3], args[4], args[5], reverse);
          return flat(r.output, r.h, r.c);
        },
        inputs, flat(output_grads[0], output_grads[1], output_grads[2]));
  };
}

BackwardFn d_amax(const OpCall& c, std::vector<Tensor>& saved) { return d_extreme<true>(c, saved); }
BackwardFn d_amin(const OpCall& c, std::vector<Tensor>& saved) { return d_extreme<false>(c, saved); }

}  // namespace ember::autograd
