#include <ember/kernel_ir/iteration_space.h>

#include <limits>

namespace ember::kernel_ir {
namespace {

// A dimension being built: its extent as a product of a number and
// parameters, and each access's stride along its innermost original dim.
struct Dim {
  int64_t factor = 1;
  std::vector<int64_t> params;
  std::vector<Term> strides;  // per access

  bool is_static() const { return params.empty(); }
};

bool multiply(int64_t a, int64_t b, int64_t* product) { return !__builtin_mul_overflow(a, b, product); }

// Whether `outer` and the following `inner` walk every access as one
// dimension: each access's outer stride is its inner stride times the inner
// extent (so a broadcast pair, 0 and 0, merges too).
bool mergeable(const Dim& outer, const Dim& inner) {
  if (!inner.is_static()) return false;
  for (size_t a = 0; a < outer.strides.size(); ++a) {
    const Term& so = outer.strides[a];
    const Term& si = inner.strides[a];
    int64_t expected = 0;
    if (so.is_param || si.is_param || !multiply(si.value, inner.factor, &expected) || expected != so.value) {
      return false;
    }
  }
  return true;
}

std::string extent_code(const Dim& dim) {
  std::string code = std::to_string(dim.factor);
  for (int64_t k : dim.params) code = "(" + code + " * p" + std::to_string(k) + ")";
  return code;
}

}  // namespace

std::string term_code(const Term& term) {
  if (term.is_param) return "p" + std::to_string(term.value);
  if (term.value == std::numeric_limits<int64_t>::min()) return "(-9223372036854775807LL - 1)";
  return std::to_string(term.value) + "LL";
}

IterationSpace simplify_space(const std::vector<Term>& extents, const std::vector<std::vector<Term>>& strides) {
  std::vector<Dim> dims;
  for (size_t d = 0; d < extents.size(); ++d) {
    const Term& extent = extents[d];
    if (!extent.is_param && extent.value == 1) continue;
    Dim dim;
    if (extent.is_param) {
      dim.params.push_back(extent.value);
    } else {
      dim.factor = extent.value;
    }
    for (const std::vector<Term>& access : strides) dim.strides.push_back(access[d]);
    if (!dims.empty() && mergeable(dims.back(), dim)) {
      Dim& merged = dims.back();
      int64_t factor = 0;
      if (multiply(merged.factor, dim.factor, &factor)) {
        merged.factor = factor;
        merged.strides = dim.strides;
        continue;
      }
    }
    dims.push_back(std::move(dim));
  }
  IterationSpace space;
  space.strides.resize(strides.size());
  for (const Dim& dim : dims) {
    space.extents.push_back(extent_code(dim));
    for (size_t a = 0; a < strides.size(); ++a) space.strides[a].push_back(term_code(dim.strides[a]));
  }
  return space;
}

}  // namespace ember::kernel_ir
