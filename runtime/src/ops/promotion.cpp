// Note [Type promotion]
// PyTorch's rule, in three tiers of priority: tensors with dimensions, then
// 0-d tensors, then Python-like scalars. A lower tier can raise the result's
// category (bool < integer < floating) but not its width within a category
// the higher tier already has: int8[3] + int64 0-d -> int8, int8[3] + 2.5 ->
// float32 (the default float dtype), float16[3] + float64 0-d -> float16.
#include "ember/ops.h"

namespace ember {
namespace {

struct PromotionState {
  std::optional<DType> dimensioned;
  std::optional<DType> zero_dim;
  std::optional<DType> scalar;

  static void merge(std::optional<DType>& slot, DType d) { slot = slot ? promote_types(*slot, d) : d; }
  void add(const Tensor& t) { merge(t.dim() > 0 ? dimensioned : zero_dim, t.dtype()); }
  void add(const Scalar& s) { merge(scalar, s.natural_dtype()); }
};

std::optional<DType> combine(std::optional<DType> higher, std::optional<DType> lower) {
  if (!higher) return lower;
  if (!lower) return higher;
  if (is_floating(*higher)) return higher;
  if (*higher == DType::Bool || is_floating(*lower)) return promote_types(*higher, *lower);
  return higher;
}

DType finish(const PromotionState& s) { return *combine(s.dimensioned, combine(s.zero_dim, s.scalar)); }

}  // namespace

DType result_type(const Tensor& a, const Tensor& b) {
  PromotionState s;
  s.add(a);
  s.add(b);
  return finish(s);
}

DType result_type(const Tensor& a, const Scalar& b) {
  PromotionState s;
  s.add(a);
  s.add(b);
  return finish(s);
}

}  // namespace ember
