// Loss functions. Class-index losses pick log-probabilities with gather;
// every loss ends in the same "none" / "mean" / "sum" reduction.
#include <string>

#include "autograd/record.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_registry.h"
#include "ops/composite/common.h"

namespace ember {
namespace {

void check_reduction(std::string_view op, std::string_view reduction) {
  if (reduction != "none" && reduction != "mean" && reduction != "sum") {
    throw_error(ErrorKind::Value, std::string(op) + "(): reduction must be 'none', 'mean' or 'sum', got '" +
                                      std::string(reduction) + "'");
  }
}

Tensor reduce_loss(const Tensor& loss, std::string_view reduction) {
  if (reduction == "mean") return mean(loss);
  if (reduction == "sum") return sum(loss);
  return loss;
}

void check_same_shape(std::string_view op, const Tensor& input, const Tensor& target) {
  if (input.sizes() != target.sizes()) {
    throw_error(ErrorKind::Runtime, std::string(op) + "(): target shape " + shape_str(target.sizes()) +
                                        " must match input shape " + shape_str(input.sizes()));
  }
}

// Classes live on dim 1, or dim 0 for an unbatched [C] input.
int64_t class_dim(const Tensor& x) { return x.dim() == 1 ? 0 : 1; }

// Per-element terms of the negative log-likelihood for class-index targets:
// loss = -w[t] * lp[t] and the weight w[t] each element counts with, both 0
// where target == ignore_index. "mean" divides the sums of the two.
struct NllTerms {
  Tensor loss;
  Tensor weight;
};

NllTerms nll_terms(std::string_view op, const Tensor& lp, const Tensor& target, const std::optional<Tensor>& weight,
                   int64_t ignore_index) {
  if (target.dtype() != DType::Int64) {
    throw_error(ErrorKind::Runtime, std::string(op) + "(): expected class-index target of dtype int64, but got " +
                                        composite::dtype_str(target));
  }
  if (lp.dim() == 0) throw_error(ErrorKind::Runtime, std::string(op) + "(): input must have at least 1 dim");
  const int64_t c = class_dim(lp);
  DimVector expected = lp.sizes();
  expected.erase(static_cast<size_t>(c));
  if (target.sizes() != expected) {
    throw_error(ErrorKind::Value, std::string(op) + "(): expected target of shape " + shape_str(expected) +
                                      " for input " + shape_str(lp.sizes()) + ", but got " + shape_str(target.sizes()));
  }
  const int64_t classes = lp.size(c);
  if (weight && weight->sizes() != DimVector{classes}) {
    throw_error(ErrorKind::Runtime, std::string(op) + "(): expected weight of shape [" + std::to_string(classes) +
                                        "], got " + shape_str(weight->sizes()));
  }
  const Tensor valid = ne(target, ignore_index);
  const Tensor safe_target = where(valid, target, Scalar(int64_t{0}));
  const Tensor picked = gather(lp, c, safe_target.unsqueeze(c)).squeeze(c);
  Tensor w = valid.to(lp.dtype());
  if (weight) w = w * index_select(*weight, 0, safe_target.reshape({-1})).reshape(target.sizes());
  return {-picked * w, w};
}

Tensor reduce_nll(const NllTerms& t, std::string_view reduction) {
  if (reduction == "mean") return sum(t.loss) / sum(t.weight);
  return reduce_loss(t.loss, reduction);
}

}  // namespace

Tensor nll_loss(const Tensor& log_probs_given, const Tensor& target, const std::optional<Tensor>& weight_given,
                int64_t ignore_index, std::string_view reduction) {
  const auto [log_probs, weight] = composite::in_float32(log_probs_given, weight_given);
  check_reduction("nll_loss", reduction);
  return autograd::name_history(reduce_nll(nll_terms("nll_loss", log_probs, target, weight, ignore_index), reduction),
                                "NllLossBackward0");
}

namespace {

Tensor cross_entropy_loss(const Tensor& logits, const Tensor& target, const std::optional<Tensor>& weight,
                          int64_t ignore_index, std::string_view reduction, double label_smoothing) {
  check_reduction("cross_entropy", reduction);
  composite::check_floating("cross_entropy", logits);
  if (label_smoothing < 0 || label_smoothing > 1) {
    throw_error(ErrorKind::Runtime,
                "cross_entropy(): label_smoothing must be between 0.0 and 1.0, got " + std::to_string(label_smoothing));
  }
  if (logits.dim() == 0) throw_error(ErrorKind::Runtime, "cross_entropy(): input must have at least 1 dim");
  static const dispatch::Op& fused = dispatch::op(dispatch::OpId::CrossEntropy);
  // The fused kernel covers the common case: [N, C] logits, class indices,
  // no class weights.
  if (logits.dim() == 2 && !weight && target.dtype() == DType::Int64 && target.device() == logits.device() &&
      target.sizes() == DimVector{logits.size(0)} && dispatch::use_composite_kernel(fused, logits)) {
    const int64_t reduction_code = reduction == "none" ? 0 : reduction == "mean" ? 1 : 2;
    return dispatch::call_single(
        fused, {logits, target},
        {dispatch::attr_int("ignore_index", ignore_index), dispatch::attr_int("reduction", reduction_code),
         dispatch::attr_float("label_smoothing", label_smoothing)});
  }
  const int64_t c = class_dim(logits);
  const int64_t classes = logits.size(c);
  const Tensor lp = log_softmax(logits, c);
  const int64_t class_dims[] = {c};
  // Log-probabilities scaled by the class weights, for the smoothing and
  // probability terms (-sum over classes of w_c * lp_c * q_c).
  const Tensor weighted_lp = weight ? lp * weight->reshape(composite::channel_shape(classes, lp.dim(), c)) : lp;

  if (is_floating(target.dtype())) {
    check_same_shape("cross_entropy", logits, target);
    const Tensor q = label_smoothing > 0 ? target * (1 - label_smoothing) + label_smoothing / classes : target;
    const Tensor loss = -sum(weighted_lp * q, class_dims);
    // PyTorch averages probability targets over elements, not weights.
    return reduce_loss(loss, reduction);
  }
  NllTerms terms = nll_terms("cross_entropy", lp, target, weight, ignore_index);
  if (label_smoothing > 0) {
    const Tensor smooth = masked_fill(-sum(weighted_lp, class_dims), eq(target, ignore_index), 0);
    terms.loss = terms.loss * (1 - label_smoothing) + smooth * (label_smoothing / classes);
  }
  return reduce_nll(terms, reduction);
}

}  // namespace

// PyTorch's cross_entropy ends in nll_loss, whose node it shows.
Tensor cross_entropy(const Tensor& logits_given, const Tensor& target_given, const std::optional<Tensor>& weight_given,
                     int64_t ignore_index, std::string_view reduction, double label_smoothing) {
  const auto [logits, target, weight] = composite::in_float32(logits_given, target_given, weight_given);
  return autograd::name_history(cross_entropy_loss(logits, target, weight, ignore_index, reduction, label_smoothing),
                                "NllLossBackward0");
}

Tensor mse_loss(const Tensor& input_given, const Tensor& target_given, std::string_view reduction) {
  const auto [input, target] = composite::in_float32(input_given, target_given);
  check_reduction("mse_loss", reduction);
  check_same_shape("mse_loss", input, target);
  const Tensor d = input - target;
  return autograd::name_history(reduce_loss(d * d, reduction), "MseLossBackward0");
}

Tensor l1_loss(const Tensor& input_given, const Tensor& target_given, std::string_view reduction) {
  const auto [input, target] = composite::in_float32(input_given, target_given);
  check_reduction("l1_loss", reduction);
  check_same_shape("l1_loss", input, target);
  return reduce_loss(abs(input - target), reduction);
}

Tensor smooth_l1_loss(const Tensor& input_given, const Tensor& target_given, std::string_view reduction, double beta) {
  const auto [input, target] = composite::in_float32(input_given, target_given);
  check_reduction("smooth_l1_loss", reduction);
  check_same_shape("smooth_l1_loss", input, target);
  if (beta < 0)
    throw_error(ErrorKind::Runtime, "smooth_l1_loss(): beta must be non-negative, got " + std::to_string(beta));
  const Tensor d = abs(input - target);
  const Tensor loss = beta == 0 ? d : where(lt(d, beta), d * d * (0.5 / beta), d - 0.5 * beta);
  return autograd::name_history(reduce_loss(loss, reduction), "SmoothL1LossBackward0");
}

Tensor binary_cross_entropy(const Tensor& input_given, const Tensor& target_given,
                            const std::optional<Tensor>& weight_given, std::string_view reduction) {
  const auto [input, target, weight] = composite::in_float32(input_given, target_given, weight_given);
  check_reduction("binary_cross_entropy", reduction);
  check_same_shape("binary_cross_entropy", input, target);
  composite::check_floating("binary_cross_entropy", input);
  // PyTorch clamps each log at -100 so that p = 0 or 1 gives a finite loss.
  const Tensor log_p = clamp(log(input), Scalar(-100));
  const Tensor log_1mp = clamp(log(1.0 - input), Scalar(-100));
  Tensor loss = -(target * log_p + (1.0 - target) * log_1mp);
  if (weight) loss = loss * *weight;
  return autograd::name_history(reduce_loss(loss, reduction), "BinaryCrossEntropyBackward0");
}

// (1 - y) x + (1 + (pw - 1) y) (log1p(exp(-|x|)) + max(-x, 0)): exp never
// sees a positive argument, so large |x| neither overflows nor loses the
// loss to rounding. Without pos_weight it is max(x, 0) - x y + log1p(exp(-|x|)).
Tensor binary_cross_entropy_with_logits(const Tensor& input_given, const Tensor& target_given,
                                        const std::optional<Tensor>& weight_given, std::string_view reduction,
                                        const std::optional<Tensor>& pos_weight_given) {
  const auto [input, target, weight, pos_weight] =
      composite::in_float32(input_given, target_given, weight_given, pos_weight_given);
  check_reduction("binary_cross_entropy_with_logits", reduction);
  check_same_shape("binary_cross_entropy_with_logits", input, target);
  composite::check_floating("binary_cross_entropy_with_logits", input);
  const Tensor softplus_neg = log1p(exp(-abs(input))) + clamp(-input, Scalar(0));
  const Tensor log_weight = pos_weight ? (*pos_weight - 1.0) * target + 1.0 : Tensor();
  Tensor loss = (1.0 - target) * input + (pos_weight ? log_weight * softplus_neg : softplus_neg);
  if (weight) loss = loss * *weight;
  return autograd::name_history(reduce_loss(loss, reduction), "BinaryCrossEntropyWithLogitsBackward0");
}

}  // namespace ember
