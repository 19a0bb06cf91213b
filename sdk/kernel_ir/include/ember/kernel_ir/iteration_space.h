// The dimensions a generated loop nest walks: an EKIR iteration space (the
// outer extents, or a loop's) with extent-1 dimensions dropped and
// neighbours merged where every access walks them as one.
#ifndef EMBER_KERNEL_IR_ITERATION_SPACE_H_
#define EMBER_KERNEL_IR_ITERATION_SPACE_H_

#include <cstdint>
#include <string>
#include <vector>

#include <ember/kernel_ir/ekir.h>

namespace ember::kernel_ir {

struct IterationSpace {
  // C++ expressions over the launch parameters p0, p1, ..., outermost first.
  std::vector<std::string> extents;
  // strides[a][d]: access a's stride along dimension d, a C++ expression.
  std::vector<std::vector<std::string>> strides;
};

// `strides[a]` holds access a's terms for `extents`, one per dimension.
IterationSpace simplify_space(const std::vector<Term>& extents, const std::vector<std::vector<Term>>& strides);

// The C++ expression of a term: a literal, or the parameter's name "pK".
std::string term_code(const Term& term);

}  // namespace ember::kernel_ir

#endif  // EMBER_KERNEL_IR_ITERATION_SPACE_H_
