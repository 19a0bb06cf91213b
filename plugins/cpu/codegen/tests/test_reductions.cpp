// Kernels with reduce loops: row reductions with a prologue and an
// epilogue, a softmax as one kernel, NaN in max and min, empty extents and
// integer wrap-around, against float64 references (column blocks and split
// reductions across thread counts: test_pool_threads.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <tuple>

#include "codegen_harness.h"
#include "ekir_cases.h"

namespace ember::cpu_codegen::testing {
namespace {

// One kernel whose count and scalar are launch parameters (EKIR 1.2)
// serves two launches with other values.
TEST(CpuCodegenReduce, ConstantsThatAreLaunchParametersServeEveryValue) {
  const std::optional<Kernel> kernel = Codegen::get().build(kernel_ir::testing::kParameterConstants);
  ASSERT_TRUE(kernel.has_value());
  for (const auto& [rows, columns, shift] : {std::tuple<int64_t, int64_t, int64_t>{3, 5, -7}, {2, 8, 3}}) {
    HostBuffer in(EMBER_DTYPE_FLOAT32, rows * columns), means(EMBER_DTYPE_FLOAT32, rows),
        indices(EMBER_DTYPE_INT64, rows), scaled(EMBER_DTYPE_INT64, rows);
    for (int64_t i = 0; i < rows * columns; ++i) in.as<float>()[i] = static_cast<float>(i);
    for (int64_t r = 0; r < rows; ++r) indices.as<int64_t>()[r] = r;
    const StatusCopy status =
        kernel->launch({&in.tensor(), &means.tensor(), &indices.tensor(), &scaled.tensor()}, {rows, columns, shift});
    ASSERT_TRUE(status.ok) << status.message;
    const kernel_ir::testing::ShiftedMeans expected = kernel_ir::testing::shifted_means(rows, columns, shift);
    const std::vector<float> got = means.values<float>();
    for (size_t r = 0; r < got.size(); ++r) EXPECT_NEAR(got[r], expected.means[r], 1e-5f) << "row " << r;
    EXPECT_EQ(scaled.values<int64_t>(), expected.scaled);
  }
}

// mean(x * x) of each row of a [rows, cols] float32 matrix.
TEST(CpuCodegenReduce, RowMeanOfSquares) {
  const int64_t rows = 50, cols = 300;
  const std::string ir = R"({"ekir":"1.0","name":"row_mean_square","params":0,
 "buffers":[{"dtype":"float32","role":"input"},{"dtype":"float32","role":"output"}],
 "outer":[50],
 "loops":[{"extents":[300],"body":[
     {"id":0,"op":"load","dtype":"float32","buffer":0,"offset":0,"strides":[300,1]},
     {"id":1,"op":"mul","dtype":"float32","args":[0,0]},
     {"id":2,"op":"reduce","kind":"sum","dtype":"float32","args":[1]}]},
   {"extents":[],"body":[
     {"id":3,"op":"const","dtype":"float32","value":300},
     {"id":4,"op":"div","dtype":"float32","args":[2,3]},
     {"id":5,"op":"store","buffer":1,"offset":0,"strides":[1],"args":[4]}]}]})";
  HostBuffer x(EMBER_DTYPE_FLOAT32, rows * cols), out(EMBER_DTYPE_FLOAT32, rows);
  for (int64_t i = 0; i < rows * cols; ++i) x.as<float>()[i] = std::sin(0.37f * static_cast<float>(i));
  ASSERT_TRUE(run(ir, {&x.tensor(), &out.tensor()}).ok);
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += double(x.as<float>()[r * cols + c]) * x.as<float>()[r * cols + c];
    EXPECT_NEAR(out.as<float>()[r], sum / cols, 1e-6 * sum / cols) << r;
  }
}

// softmax over the rows: max, sum of exponentials, then the quotients.
TEST(CpuCodegenReduce, SoftmaxAsOneKernelOfThreeLoops) {
  const int64_t rows = 20, cols = 1000;
  const std::string ir = R"({"ekir":"1.0","name":"softmax","params":0,
 "buffers":[{"dtype":"float32","role":"input"},{"dtype":"float32","role":"output"}],
 "outer":[20],
 "loops":[{"extents":[1000],"body":[
     {"id":0,"op":"load","dtype":"float32","buffer":0,"offset":0,"strides":[1000,1]},
     {"id":1,"op":"reduce","kind":"max","dtype":"float32","args":[0]}]},
   {"extents":[1000],"body":[
     {"id":2,"op":"load","dtype":"float32","buffer":0,"offset":0,"strides":[1000,1]},
     {"id":3,"op":"sub","dtype":"float32","args":[2,1]},
     {"id":4,"op":"exp","dtype":"float32","args":[3]},
     {"id":5,"op":"reduce","kind":"sum","dtype":"float32","args":[4]}]},
   {"extents":[1000],"body":[
     {"id":6,"op":"load","dtype":"float32","buffer":0,"offset":0,"strides":[1000,1]},
     {"id":7,"op":"sub","dtype":"float32","args":[6,1]},
     {"id":8,"op":"exp","dtype":"float32","args":[7]},
     {"id":9,"op":"div","dtype":"float32","args":[8,5]},
     {"id":10,"op":"store","buffer":1,"offset":0,"strides":[1000,1],"args":[9]}]}]})";
  // The quotients read the exponentials the sum computed from a row buffer
  // (Note [Row reuse]): exp is called in the sum's loop only, once in its
  // vector body and once in its tail, besides its declaration.
  const Compiled compiled = Codegen::get().compile(ir);
  ASSERT_TRUE(compiled.status.ok) << compiled.status.message;
  size_t calls = 0;
  for (size_t at = compiled.source.find("expf("); at != std::string::npos; at = compiled.source.find("expf(", at + 1)) {
    ++calls;
  }
  EXPECT_EQ(calls, 3u) << compiled.source;
  EXPECT_NE(compiled.source.find("ek_row_v1_2["), std::string::npos);
  HostBuffer x(EMBER_DTYPE_FLOAT32, rows * cols), out(EMBER_DTYPE_FLOAT32, rows * cols);
  for (int64_t i = 0; i < rows * cols; ++i) x.as<float>()[i] = 10.0f * std::cos(0.11f * static_cast<float>(i));
  ASSERT_TRUE(run(ir, {&x.tensor(), &out.tensor()}).ok);
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x.as<float>() + r * cols;
    double max = row[0], sum = 0;
    for (int64_t c = 0; c < cols; ++c) max = std::max<double>(max, row[c]);
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(row[c] - max);
    for (int64_t c = 0; c < cols; ++c) {
      const double expected = std::exp(row[c] - max) / sum;
      ASSERT_NEAR(out.as<float>()[r * cols + c], expected, 1e-6 * expected + 1e-9) << r << ", " << c;
    }
  }
}

// Columns of a [100, 4] matrix: a NaN anywhere makes max and min NaN.
TEST(CpuCodegenReduce, MaxAndMinPropagateNaN) {
  const std::string ir = R"({"ekir":"1.0","name":"column_extremes","params":0,
 "buffers":[{"dtype":"float32","role":"input"},{"dtype":"float32","role":"output"},{"dtype":"float32","role":"output"}],
 "outer":[4],
 "loops":[{"extents":[100],"body":[
     {"id":0,"op":"load","dtype":"float32","buffer":0,"offset":0,"strides":[1,4]},
     {"id":1,"op":"reduce","kind":"max","dtype":"float32","args":[0]},
     {"id":2,"op":"reduce","kind":"min","dtype":"float32","args":[0]}]},
   {"extents":[],"body":[
     {"id":3,"op":"store","buffer":1,"offset":0,"strides":[1],"args":[1]},
     {"id":4,"op":"store","buffer":2,"offset":0,"strides":[1],"args":[2]}]}]})";
  HostBuffer x(EMBER_DTYPE_FLOAT32, 400), max(EMBER_DTYPE_FLOAT32, 4), min(EMBER_DTYPE_FLOAT32, 4);
  for (int64_t i = 0; i < 400; ++i) x.as<float>()[i] = static_cast<float>((i * 37) % 101) - 50.0f;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  x.as<float>()[37 * 4 + 1] = nan;  // column 1, in the lanes
  x.as<float>()[99 * 4 + 3] = nan;  // column 3, in the tail
  ASSERT_TRUE(run(ir, {&x.tensor(), &max.tensor(), &min.tensor()}).ok);
  for (int c = 0; c < 4; ++c) {
    if (c == 1 || c == 3) {
      EXPECT_TRUE(std::isnan(max.as<float>()[c])) << c;
      EXPECT_TRUE(std::isnan(min.as<float>()[c])) << c;
      continue;
    }
    float expected_max = -INFINITY, expected_min = INFINITY;
    for (int r = 0; r < 100; ++r) {
      expected_max = std::max(expected_max, x.as<float>()[r * 4 + c]);
      expected_min = std::min(expected_min, x.as<float>()[r * 4 + c]);
    }
    EXPECT_EQ(max.as<float>()[c], expected_max) << c;
    EXPECT_EQ(min.as<float>()[c], expected_min) << c;
  }
}

// An empty reduction yields each kind's identity (kernel-ir.md).
TEST(CpuCodegenReduce, EmptyExtentsYieldTheIdentities) {
  const std::string ir = R"({"ekir":"1.0","name":"empty_reduce","params":1,
 "buffers":[{"dtype":"float32","role":"input"},{"dtype":"int32","role":"input"},
            {"dtype":"float32","role":"output"},{"dtype":"int32","role":"output"}],
 "outer":[],
 "loops":[{"extents":["p0"],"body":[
     {"id":0,"op":"load","dtype":"float32","buffer":0,"offset":0,"strides":[1]},
     {"id":1,"op":"reduce","kind":"sum","dtype":"float32","args":[0]},
     {"id":2,"op":"reduce","kind":"prod","dtype":"float32","args":[0]},
     {"id":3,"op":"reduce","kind":"max","dtype":"float32","args":[0]},
     {"id":4,"op":"reduce","kind":"min","dtype":"float32","args":[0]},
     {"id":5,"op":"load","dtype":"int32","buffer":1,"offset":0,"strides":[1]},
     {"id":6,"op":"reduce","kind":"max","dtype":"int32","args":[5]},
     {"id":7,"op":"reduce","kind":"min","dtype":"int32","args":[5]}]},
   {"extents":[],"body":[
     {"id":8,"op":"store","buffer":2,"offset":0,"strides":[],"args":[1]},
     {"id":9,"op":"store","buffer":2,"offset":1,"strides":[],"args":[2]},
     {"id":10,"op":"store","buffer":2,"offset":2,"strides":[],"args":[3]},
     {"id":11,"op":"store","buffer":2,"offset":3,"strides":[],"args":[4]},
     {"id":12,"op":"store","buffer":3,"offset":0,"strides":[],"args":[6]},
     {"id":13,"op":"store","buffer":3,"offset":1,"strides":[],"args":[7]}]}]})";
  HostBuffer x(EMBER_DTYPE_FLOAT32, 0), n(EMBER_DTYPE_INT32, 0), floats(EMBER_DTYPE_FLOAT32, 4),
      ints(EMBER_DTYPE_INT32, 2);
  const StatusCopy status = run(ir, {&x.tensor(), &n.tensor(), &floats.tensor(), &ints.tensor()}, {0});
  ASSERT_TRUE(status.ok) << status.message;
  EXPECT_EQ(floats.values<float>(), (std::vector<float>{0.0f, 1.0f, -INFINITY, INFINITY}));
  EXPECT_EQ(ints.values<int32_t>(),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::lowest(), std::numeric_limits<int32_t>::max()}));
}

// int32 sums wrap around.
TEST(CpuCodegenReduce, IntegerSumWraps) {
  const std::string ir = R"({"ekir":"1.0","name":"int_sum","params":0,
 "buffers":[{"dtype":"int32","role":"input"},{"dtype":"int32","role":"output"}],
 "outer":[],
 "loops":[{"extents":[1000],"body":[
     {"id":0,"op":"load","dtype":"int32","buffer":0,"offset":0,"strides":[1]},
     {"id":1,"op":"reduce","kind":"sum","dtype":"int32","args":[0]}]},
   {"extents":[],"body":[{"id":2,"op":"store","buffer":1,"offset":0,"strides":[],"args":[1]}]}]})";
  HostBuffer x(EMBER_DTYPE_INT32, 1000), out(EMBER_DTYPE_INT32, 1);
  uint32_t expected = 0;
  for (int i = 0; i < 1000; ++i) {
    x.as<int32_t>()[i] = std::numeric_limits<int32_t>::max() - i * 7919;
    expected += static_cast<uint32_t>(x.as<int32_t>()[i]);
  }
  ASSERT_TRUE(run(ir, {&x.tensor(), &out.tensor()}).ok);
  EXPECT_EQ(out.as<int32_t>()[0], static_cast<int32_t>(expected));
}

}  // namespace
}  // namespace ember::cpu_codegen::testing
