// Note [Op cases]: one small description per op of the catalogue (the
// pattern of ggml's test-backend-ops): the dtypes the catalogue allows, and
// variations, each a set of inputs made on the host plus the public call
// that runs the op. The op suite makes every input once, moves it to the
// device under test and to the CPU reference, applies the same view to both
// (so non-contiguous and expanded layouts reach the device's kernels), runs
// the call on both and compares every output.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <ember/tensor.h>

namespace ember::conformance {

using Tensors = std::vector<Tensor>;

// How an input's values are drawn (deterministically, from the case's name).
enum class Values {
  Normal,       // floating: N(0, 1); integers: [-20, 20] (unsigned: [0, 40]); bool: 0 or 1
  Positive,     // floating: (0.1, 3); integers: [1, 20]
  NearOne,      // floating: [0.5, 1.5]; integers: [-2, 2]
  Unit,         // floating: [-0.9, 0.9] (asin, erfinv); integers: [-1, 1]
  NonZero,      // like Normal without 0 (divisors)
  SmallNonNegative,  // integers [0, 3] (exponents)
  Special,      // NaN, +-inf, -0, huge, tiny for floating; min, max, -1, 0, 1 for integers
  Index,        // int64 in [-limit, limit) (or [0, limit) with nonnegative_index)
  Bool,         // 0 or 1
};

struct InputSpec {
  DimVector shape;
  Values values = Values::Normal;
  std::optional<DType> dtype;  // fixed dtype (indices, masks); else the case's dtype
  int64_t index_limit = 0;     // for Values::Index
  bool nonnegative_index = false;
  // Applied to the tensor on each device: transposes, slices, expands.
  std::function<Tensor(const Tensor&)> view;
};

// Runs the op under test through the public API. `dtype` is the dtype under
// test and `device` where to put tensors the call creates (factories).
using OpCall = std::function<Tensors(const Tensors& inputs, DType dtype, Device device)>;

struct Variation {
  std::string name;
  std::vector<InputSpec> inputs;
  OpCall call;
  double tolerance_scale = 1;  // widens the dtype's tolerance (long sums)
  bool check_gradient = false; // finite differences on this variation
};

struct OpCase {
  std::string op;                // catalogue name
  std::vector<DType> dtypes;     // where the catalogue defines the op
  std::vector<Variation> variations;
};

// The dtype groups of sdk/docs/ops.md.
std::vector<DType> all_dtypes();
std::vector<DType> numeric_dtypes();
std::vector<DType> integral_dtypes();
std::vector<DType> floating_dtypes();

// Every case this kit knows, keyed by catalogue op name.
std::vector<OpCase> elementwise_cases();
std::vector<OpCase> structured_cases();   // factories, reductions, products, indexing, scans
std::vector<OpCase> composite_cases();
std::vector<OpCase> linalg_cases();      // the factorizations
std::vector<OpCase> all_op_cases();

// Common views.
Tensor transposed(const Tensor& t);   // last two dims swapped
Tensor every_other(const Tensor& t);  // step 2 along dim 0

}  // namespace ember::conformance
