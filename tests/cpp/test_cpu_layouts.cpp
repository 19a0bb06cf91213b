// The CPU plugin's layout-specific paths against element-by-element
// references: transposing copies (Note [Blocked transpose]) for every
// element size, with partial tiles and blocks and planes around them,
// elementwise ops on permuted and crossed operands (Note [Elementwise output
// layout], Note [Crossed layouts]) and on broadcast ones (Note [Runs in row
// blocks]), and reductions of short rows, columns
// and everything else, in several dtypes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include <ember/ember.h>

namespace {

using ember::DType;
using ember::Tensor;
using Shape = std::vector<int64_t>;

Shape strides_of(const Shape& shape) {
  Shape strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

int64_t numel_of(const Shape& shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
}

// x.permute(order).contiguous(), element by element from x's row-major values.
std::vector<double> permuted(const std::vector<double>& values, const Shape& shape, const Shape& order) {
  const Shape in_strides = strides_of(shape);
  Shape out_shape;
  for (const int64_t d : order) out_shape.push_back(shape[d]);
  std::vector<double> out(values.size());
  Shape index(shape.size(), 0);
  for (size_t flat = 0; flat < out.size(); ++flat) {
    int64_t source = 0;
    for (size_t d = 0; d < order.size(); ++d) source += index[d] * in_strides[order[d]];
    out[flat] = values[source];
    for (size_t d = out_shape.size(); d-- > 0;) {
      if (++index[d] < out_shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

TEST(CpuLayouts, TransposingCopiesMatchElementwise) {
  struct Case {
    Shape shape;
    Shape order;
  };
  const std::vector<Case> cases = {
      {{37, 300}, {1, 0}},           {{300, 1029}, {1, 0}}, {{3, 130, 260}, {0, 2, 1}}, {{20, 30, 140}, {2, 0, 1}},
      {{5, 7, 9, 11}, {3, 1, 0, 2}}, {{8, 8}, {1, 0}},      {{1, 129}, {1, 0}}};
  for (const Case& c : cases) {
    std::vector<double> values(static_cast<size_t>(numel_of(c.shape)));
    // Small integers, exact in every dtype below.
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i * 7 % 101) - 50;
    for (const DType dtype : {DType::Int8, DType::BFloat16, DType::Float32, DType::Float64, DType::Int64}) {
      SCOPED_TRACE(std::to_string(c.shape.size()) + "-d shape starting " + std::to_string(c.shape[0]) + ", " +
                   std::string(ember::dtype_name(dtype)));
      const Tensor x = ember::tensor<double>(values, c.shape).to(dtype);
      const Tensor y = x.permute(c.order).contiguous();
      EXPECT_EQ(y.tolist<double>(), permuted(values, c.shape, c.order));
    }
  }
}

TEST(CpuLayouts, ElementwiseOpsOnPermutedAndCrossedOperands) {
  struct Case {
    Shape shape;
    Shape order;
  };
  const std::vector<Case> cases = {{{37, 300}, {1, 0}},
                                   {{130, 70}, {1, 0}},
                                   {{3, 67, 130}, {0, 2, 1}},
                                   {{20, 30, 140}, {2, 0, 1}},
                                   {{5, 7, 9, 11}, {3, 1, 0, 2}}};
  for (const Case& c : cases) {
    std::vector<double> a_values(static_cast<size_t>(numel_of(c.shape)));
    std::vector<double> b_values(a_values.size());
    for (size_t i = 0; i < a_values.size(); ++i) {
      a_values[i] = static_cast<double>(i * 7 % 101) - 50;
      b_values[i] = static_cast<double>(i * 13 % 31) - 15;
    }
    const std::vector<double> a_permuted = permuted(a_values, c.shape, c.order);
    Shape permuted_shape;
    for (const int64_t d : c.order) permuted_shape.push_back(c.shape[d]);
    std::vector<double> sums(a_permuted.size());
    for (size_t i = 0; i < sums.size(); ++i) sums[i] = a_permuted[i] + b_values[i];
    for (const DType dtype : {DType::Int8, DType::BFloat16, DType::Float32, DType::Float64, DType::Int64}) {
      SCOPED_TRACE(std::to_string(c.shape.size()) + "-d shape starting " + std::to_string(c.shape[0]) + ", " +
                   std::string(ember::dtype_name(dtype)));
      const Tensor a = ember::tensor<double>(a_values, c.shape).to(dtype).permute(c.order);
      // b is contiguous in a's logical shape: the two layouts cross.
      const Tensor b = ember::tensor<double>(b_values, permuted_shape).to(dtype);
      EXPECT_EQ(ember::add(a, b).tolist<double>(), sums);
      EXPECT_EQ(ember::add(b, a).tolist<double>(), sums);
      EXPECT_EQ(ember::add(a, a).strides(), a.strides());
      EXPECT_EQ(ember::add(a, a).tolist<double>(), ember::add(a.contiguous(), a.contiguous()).tolist<double>());
      Tensor into = b.clone();
      into += a;
      EXPECT_EQ(into.tolist<double>(), sums);
    }
  }
}

// Broadcast operands walk in blocks of rows (Note [Runs in row blocks]),
// with threads' chunks starting and ending inside rows; every element must
// be what the same op gives on contiguous copies, walked as one run. The
// shapes hold more elements than one thread's grain, so the rows are split.
TEST(CpuLayouts, BroadcastOperandsInRowBlocksMatchContiguousCopies) {
  struct Case {
    Shape shape;
    Shape other;  // broadcast against shape
  };
  const std::vector<Case> cases = {{{3, 347, 129}, {129}},         {{3, 347, 129}, {347, 1}},
                                   {{521, 257}, {1, 257}},          {{2, 5, 7919}, {5, 1}},
                                   {{130, 3, 301}, {130, 1, 301}}};
  for (const Case& c : cases) {
    // Multiples of 1/8 and 1/4 that every dtype below holds exactly.
    std::vector<double> a_list(static_cast<size_t>(numel_of(c.shape)));
    std::vector<double> b_list(static_cast<size_t>(numel_of(c.other)));
    for (size_t i = 0; i < a_list.size(); ++i) a_list[i] = (static_cast<double>(i % 97) - 48) / 8;
    for (size_t i = 0; i < b_list.size(); ++i) b_list[i] = static_cast<double>(i % 13 + 1) / 4;
    const Tensor a_values = ember::tensor<double>(a_list, c.shape);
    const Tensor b_values = ember::tensor<double>(b_list, c.other);
    for (const DType dtype : {DType::Float32, DType::BFloat16, DType::Float16, DType::Float64, DType::Int64}) {
      SCOPED_TRACE(std::to_string(c.shape.size()) + "-d shape starting " + std::to_string(c.shape[0]) + ", " +
                   std::string(ember::dtype_name(dtype)));
      const Tensor a = a_values.to(dtype);
      const Tensor b = b_values.to(dtype);
      const Tensor b_full = b.expand(c.shape).contiguous();
      EXPECT_EQ(ember::add(a, b).tolist<double>(), ember::add(a, b_full).tolist<double>());
      EXPECT_EQ(ember::mul(b, a).tolist<double>(), ember::mul(b_full, a).tolist<double>());
      if (ember::is_floating(dtype)) {
        EXPECT_EQ(ember::atan2(a, b).tolist<double>(), ember::atan2(a, b_full).tolist<double>());
      }
      Tensor into = a.clone();
      into += b;
      EXPECT_EQ(into.tolist<double>(), ember::add(a, b_full).tolist<double>());
    }
  }
}

// A row index (one entry per row, broadcast across the row, as embedding's
// backward makes it) takes the CPU plugin's threaded row path (Note [Scatter
// of broadcast rows]); the same index materialized takes the serial walk.
// Rows that land on one target add in the same order either way, so the bits
// agree, and a bad row index is the same error.
TEST(CpuLayouts, ScatterAddOfBroadcastRowsMatchesTheSerialWalk) {
  const int64_t rows = 700, columns = 301, targets = 37;
  std::vector<int64_t> row_targets(rows);
  for (int64_t j = 0; j < rows; ++j) row_targets[static_cast<size_t>(j)] = (j * 11) % targets;
  std::vector<double> values(static_cast<size_t>(rows * columns));
  for (size_t i = 0; i < values.size(); ++i) values[i] = std::sin(static_cast<double>(i)) * 1e3;
  for (const DType dtype : {DType::Float32, DType::BFloat16, DType::Int64}) {
    SCOPED_TRACE(std::string(ember::dtype_name(dtype)));
    const Tensor src = ember::tensor<double>(values, {rows, columns}).to(dtype);
    const Tensor base = ember::zeros({targets, columns}, dtype);
    const Tensor index = ember::tensor<int64_t>(row_targets, {rows, 1}).expand({rows, columns});
    const Tensor by_rows = ember::scatter_add(base, 0, index, src);
    const Tensor serial = ember::scatter_add(base, 0, index.contiguous(), src);
    EXPECT_EQ(by_rows.tolist<double>(), serial.tolist<double>());
    // Along dim 1, with a column index broadcast down the rows.
    const Tensor columns_index = ember::tensor<int64_t>({4, 0, 4}, {1, 3}).expand({rows, 3});
    EXPECT_EQ(ember::scatter_add(ember::zeros({rows, 5}, dtype), 1, columns_index, src).tolist<double>(),
              ember::scatter_add(ember::zeros({rows, 5}, dtype), 1, columns_index.contiguous(), src).tolist<double>());
  }
  const Tensor bad = ember::tensor<int64_t>({0, 40}, {2, 1}).expand({2, columns});
  try {
    (void)ember::scatter_add(ember::zeros({targets, columns}), 0, bad, ember::ones({2, columns}));
    ADD_FAILURE() << "an index past the rows was accepted";
  } catch (const ember::Error& e) {
    EXPECT_NE(std::string(e.what()).find("index 40 is out of range for dimension 0 with size 37"), std::string::npos)
        << e.what();
  }
}

// The reduction of x (row-major `values` of `shape`) over `dims`, in double.
std::vector<double> reference_reduce(const std::vector<double>& values, const Shape& shape, const Shape& dims,
                                     bool max) {
  Shape out_shape = shape;
  for (const int64_t d : dims) out_shape[d] = 1;
  const Shape out_strides = strides_of(out_shape);
  std::vector<double> out(static_cast<size_t>(numel_of(out_shape)),
                          max ? -std::numeric_limits<double>::infinity() : 0.0);
  Shape index(shape.size(), 0);
  for (const double v : values) {
    int64_t target = 0;
    for (size_t d = 0; d < shape.size(); ++d) target += (out_shape[d] == 1 ? 0 : index[d]) * out_strides[d];
    double& slot = out[static_cast<size_t>(target)];
    slot = max ? std::max(slot, v) : slot + v;
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

TEST(CpuLayouts, ReductionsOfEveryLayoutMatchElementwise) {
  struct Case {
    Shape shape;
    Shape dims;
  };
  // Short rows (one transposed group, several, a partial one, a kept dim
  // around them), columns, long rows, and mixed layouts.
  const std::vector<Case> cases = {{{200, 16}, {1}}, {{3, 70, 5}, {2}},      {{1000, 64}, {1}},
                                   {{64, 65}, {1}},  {{16, 3000}, {0}},      {{300, 17, 9}, {0, 2}},
                                   {{9, 4000}, {1}}, {{5, 6, 7, 8}, {1, 3}}, {{2, 300, 3}, {1}}};
  for (const Case& c : cases) {
    std::vector<double> values(static_cast<size_t>(numel_of(c.shape)));
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i * 13 % 97) - 48;
    for (const DType dtype : {DType::Float32, DType::Float64, DType::BFloat16, DType::Int32}) {
      SCOPED_TRACE(std::to_string(c.shape.size()) + "-d shape starting " + std::to_string(c.shape[0]) + ", " +
                   std::string(ember::dtype_name(dtype)));
      const Tensor x = ember::tensor<double>(values, c.shape).to(dtype);
      // Integer-valued sums below 2^24 are exact in float32; bfloat16 sums
      // accumulate in float32 and round once to bfloat16.
      const double tolerance = dtype == DType::BFloat16 ? 1e-2 : 0.0;
      const std::vector<double> sums = ember::sum(x, c.dims, true).tolist<double>();
      const std::vector<double> want_sums = reference_reduce(values, c.shape, c.dims, false);
      ASSERT_EQ(sums.size(), want_sums.size());
      for (size_t i = 0; i < sums.size(); ++i) {
        EXPECT_NEAR(sums[i], want_sums[i], tolerance * std::max(1.0, std::fabs(want_sums[i]))) << "sum " << i;
      }
      EXPECT_EQ(ember::amax(x, c.dims, true).tolist<double>(), reference_reduce(values, c.shape, c.dims, true));
    }
  }
}

// Short rows whose kept dims do not merge (every other row of a 3-d tensor).
TEST(CpuLayouts, ShortRowsOfAStridedTensor) {
  std::vector<double> values(3 * 70 * 5);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i % 89);
  const Tensor x = ember::tensor<double>(values, {3, 70, 5}).to(DType::Float32).slice(1, 0, std::nullopt, 2);
  ASSERT_FALSE(x.is_contiguous());
  const std::vector<double> rows = x.tolist<double>();
  EXPECT_EQ(ember::sum(x, {2}, true).tolist<double>(), reference_reduce(rows, {3, 35, 5}, {2}, false));
  EXPECT_EQ(ember::amax(x, {2}, true).tolist<double>(), reference_reduce(rows, {3, 35, 5}, {2}, true));
}

// A NaN in a short row makes its maximum NaN and leaves its neighbours'.
TEST(CpuLayouts, ShortRowMaximumPropagatesNaN) {
  std::vector<float> values(100 * 16);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 16);
  values[5 * 16 + 3] = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> got = ember::amax(ember::tensor<float>(values, {100, 16}), {1}).tolist<float>();
  for (size_t row = 0; row < got.size(); ++row) {
    if (row == 5) {
      EXPECT_TRUE(std::isnan(got[row]));
    } else {
      EXPECT_EQ(got[row], 15.0f) << row;
    }
  }
}

// argmax and argmin of contiguous rows run in lanes (arg_extremum_run):
// still the first extreme, the first NaN, for rows shorter than the lanes,
// rows ending inside a group, extremes among the last elements, ties across
// lanes, infinities and integers.
TEST(CpuLayouts, ArgExtremaOfRowsTakeTheFirst) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const int64_t n : {1, 5, 63, 64, 65, 130, 1000}) {
    SCOPED_TRACE("rows of " + std::to_string(n));
    std::vector<std::vector<float>> rows;
    std::vector<float> plain(n), ties(n, 3.0f), late(n), infinite(n, -inf), with_nan(n);
    for (int64_t i = 0; i < n; ++i) {
      plain[i] = std::sin(static_cast<float>(i) * 1.7f);
      late[i] = static_cast<float>(i % 7);
      with_nan[i] = static_cast<float>(i);
    }
    late[n - 1] = 100.0f;
    with_nan[n / 2] = nan;
    with_nan[n - 1] = nan;
    rows = {plain, ties, late, infinite, with_nan};
    std::vector<float> flat;
    for (const auto& row : rows) flat.insert(flat.end(), row.begin(), row.end());
    const Tensor x = ember::tensor<float>(flat, {static_cast<int64_t>(rows.size()), n});
    const std::vector<int64_t> maxima = ember::argmax(x, 1).tolist<int64_t>();
    const std::vector<int64_t> minima = ember::argmin(x, 1).tolist<int64_t>();
    // The finite rows as integers, with ties of their own after rounding.
    const Tensor integers = ember::round(x.slice(0, 0, 3) * 10).to(DType::Int32);
    const std::vector<int64_t> integer_maxima = ember::argmax(integers, 1).tolist<int64_t>();
    const std::vector<double> integer_values = integers.tolist<double>();
    const auto first = [n](const auto* row, bool max) {
      int64_t best = 0;
      for (int64_t i = 1; i < n; ++i) {
        if (std::isnan(row[best])) break;
        if (std::isnan(row[i]) || (max ? row[i] > row[best] : row[i] < row[best])) best = i;
      }
      return best;
    };
    for (size_t r = 0; r < rows.size(); ++r) {
      EXPECT_EQ(maxima[r], first(rows[r].data(), true)) << "argmax of row " << r;
      EXPECT_EQ(minima[r], first(rows[r].data(), false)) << "argmin of row " << r;
      if (r < 3) EXPECT_EQ(integer_maxima[r], first(integer_values.data() + r * n, true)) << "int32 row " << r;
    }
  }
}

// Philox4x32-10 as ops.md "Random numbers" specifies it: the words r0, r1
// for counter c under `seed`.
std::pair<uint32_t, uint32_t> philox(uint64_t seed, uint64_t c) {
  uint32_t x[4] = {static_cast<uint32_t>(c), static_cast<uint32_t>(c >> 32), 0, 0};
  uint32_t key0 = static_cast<uint32_t>(seed);
  uint32_t key1 = static_cast<uint32_t>(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t{0xD2511F53u} * x[0];
    const uint64_t p1 = uint64_t{0xCD9E8D57u} * x[2];
    const uint32_t next[4] = {static_cast<uint32_t>(p1 >> 32) ^ x[1] ^ key0, static_cast<uint32_t>(p1),
                              static_cast<uint32_t>(p0 >> 32) ^ x[3] ^ key1, static_cast<uint32_t>(p0)};
    std::copy(next, next + 4, x);
    key0 += 0x9E3779B9u;
    key1 += 0xBB67AE85u;
  }
  return {x[0], x[1]};
}

// The vectorised generator (Note [Vectorised Philox]) draws what the spec
// says for every element, in row-major order of any layout, with runs that
// end inside a block, and the same bits for any thread count.
TEST(CpuLayouts, RandomNumbersFollowTheSpecOnEveryLayout) {
  const int threads_before = ember::get_num_threads();
  constexpr uint64_t kSeed = 0x123456789ull;
  std::vector<std::vector<float>> uniform_runs, normal_runs;
  for (const int threads : {1, 2, 3}) {
    ember::set_num_threads(threads);
    ember::manual_seed(kSeed);
    uniform_runs.push_back(ember::rand({70001}).tolist<float>());
    // A transposed view: element i of its row-major order draws counter
    // 70001 + i, wherever it sits in memory.
    Tensor strided = ember::zeros({130, 77}).t();
    ember::uniform_(strided);
    const std::vector<float> transposed = strided.tolist<float>();
    normal_runs.push_back(ember::randn({70001}).tolist<float>());
    for (size_t i = 0; i < transposed.size(); i += 37) {
      const auto [r0, r1] = philox(kSeed, 70001 + i);
      EXPECT_EQ(transposed[i], static_cast<float>((r0 >> 8) * (1.0 / 16777216.0))) << "transposed element " << i;
    }
  }
  for (size_t i = 0; i < uniform_runs[0].size(); ++i) {
    const auto [r0, r1] = philox(kSeed, i);
    ASSERT_EQ(uniform_runs[0][i], static_cast<float>((r0 >> 8) * (1.0 / 16777216.0))) << i;
    const auto [n0, n1] = philox(kSeed, 70001 + 130 * 77 + i);
    const double z = std::sqrt(-2.0 * std::log(((n0 >> 8) + 1) * (1.0 / 16777216.0))) *
                     std::cos(2.0 * M_PI * (n1 >> 8) * (1.0 / 16777216.0));
    ASSERT_NEAR(normal_runs[0][i], z, 1e-6 * std::max(1.0, std::fabs(z))) << i;
  }
  // float64 takes both words.
  ember::manual_seed(kSeed);
  const std::vector<double> wide = ember::rand({1001}, DType::Float64).tolist<double>();
  for (size_t i = 0; i < wide.size(); ++i) {
    const auto [r0, r1] = philox(kSeed, i);
    ASSERT_EQ(wide[i], static_cast<double>(((uint64_t{r0} << 32) | r1) >> 11) * (1.0 / 9007199254740992.0)) << i;
  }
  for (size_t run = 1; run < uniform_runs.size(); ++run) {
    EXPECT_EQ(uniform_runs[run], uniform_runs[0]) << run + 1 << " threads";
    EXPECT_EQ(0, std::memcmp(normal_runs[run].data(), normal_runs[0].data(), normal_runs[0].size() * sizeof(float)))
        << run + 1 << " threads";
  }
  ember::set_num_threads(threads_before);
}

}  // namespace
