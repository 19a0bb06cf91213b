// What every device generator's kernels must do on its device, run on
// device 0 of a plugin through codegen_harness.h: reductions exact for
// integers, integers that wrap and divide as the catalogue says, the
// identity of an empty reduction, a division by zero raised as eager
// kernels raise it, reduced floats rounded at every instruction, and
// launches the kernel cannot serve refused before they run.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "codegen_harness.h"
#include "ekir_cases.h"

namespace ember::kernel_ir::testing {

// Column sums and products of a [7, 5] int64 matrix, and whether each
// column is all positive.
inline void expect_column_sums_exact(const CodegenPlugin& plugin, DLDeviceType type) {
  DeviceBuffer in(plugin, type, EMBER_DTYPE_INT64, 35), sums(plugin, type, EMBER_DTYPE_INT64, 5),
      positive(plugin, type, EMBER_DTYPE_BOOL, 5), products(plugin, type, EMBER_DTYPE_INT64, 5);
  std::vector<int64_t> values(35);
  for (int i = 0; i < 35; ++i) values[i] = i % 5 == 3 ? -i : i + 1;
  in.write(values);
  const StatusCopy status =
      plugin.run(kColumnSums, {&in.tensor(), &sums.tensor(), &positive.tensor(), &products.tensor()});
  ASSERT_TRUE(status.ok) << status.message;
  std::vector<int64_t> expected_sums(5, 0), expected_products(5, 1);
  for (int i = 0; i < 35; ++i) {
    expected_sums[i % 5] += values[i];
    expected_products[i % 5] *= values[i];
  }
  EXPECT_EQ(sums.read<int64_t>(), expected_sums);
  EXPECT_EQ(products.read<int64_t>(), expected_products);
  EXPECT_EQ(positive.read<uint8_t>(), (std::vector<uint8_t>{1, 1, 1, 0, 1}));
}

// int8: a + b wraps, floor_divide rounds towards negative infinity, and a
// row's max reduces across the group.
inline void expect_integer_rules(const CodegenPlugin& plugin, DLDeviceType type) {
  const std::string ir = R"({"ekir":"1.0","name":"int8_rules","params":0,
   "buffers":[{"dtype":"int8","role":"input"},{"dtype":"int8","role":"input"},
              {"dtype":"int8","role":"output"},{"dtype":"int8","role":"output"},{"dtype":"int8","role":"output"}],
   "outer":[2],
   "loops":[{"extents":[3],"body":[
     {"id":0,"op":"load","dtype":"int8","buffer":0,"offset":0,"strides":[3,1]},
     {"id":1,"op":"load","dtype":"int8","buffer":1,"offset":0,"strides":[3,1]},
     {"id":2,"op":"add","dtype":"int8","args":[0,1]},
     {"id":3,"op":"store","buffer":2,"offset":0,"strides":[3,1],"args":[2]},
     {"id":4,"op":"floor_divide","dtype":"int8","args":[0,1]},
     {"id":5,"op":"store","buffer":3,"offset":0,"strides":[3,1],"args":[4]},
     {"id":6,"op":"reduce","kind":"max","dtype":"int8","args":[0]}]},
    {"extents":[],"body":[{"id":7,"op":"store","buffer":4,"offset":0,"strides":[1],"args":[6]}]}]})";
  DeviceBuffer a(plugin, type, EMBER_DTYPE_INT8, 6), b(plugin, type, EMBER_DTYPE_INT8, 6),
      sum(plugin, type, EMBER_DTYPE_INT8, 6), quotient(plugin, type, EMBER_DTYPE_INT8, 6),
      max(plugin, type, EMBER_DTYPE_INT8, 2);
  a.write<int8_t>({127, -7, 7, -128, 5, 100});
  b.write<int8_t>({1, 2, -2, -1, 3, 100});
  const StatusCopy status =
      plugin.run(ir, {&a.tensor(), &b.tensor(), &sum.tensor(), &quotient.tensor(), &max.tensor()});
  ASSERT_TRUE(status.ok) << status.message;
  EXPECT_EQ(sum.read<int8_t>(), (std::vector<int8_t>{-128, -5, 5, 127, 8, -56}));
  EXPECT_EQ(quotient.read<int8_t>(), (std::vector<int8_t>{127, -4, -4, -128, 1, 1}));
  EXPECT_EQ(max.read<int8_t>(), (std::vector<int8_t>{127, 100}));
}

inline void expect_empty_reduction_identity_and_division_by_zero(const CodegenPlugin& plugin, DLDeviceType type) {
  const std::string ir = R"({"ekir":"1.0","name":"empty_max","params":1,
   "buffers":[{"dtype":"int32","role":"input"},{"dtype":"int32","role":"output"}],
   "outer":[2],
   "loops":[{"extents":["p0"],"body":[
     {"id":0,"op":"load","dtype":"int32","buffer":0,"offset":0,"strides":[0,1]},
     {"id":1,"op":"reduce","kind":"max","dtype":"int32","args":[0]}]},
    {"extents":[],"body":[{"id":2,"op":"store","buffer":1,"offset":0,"strides":[1],"args":[1]}]}]})";
  DeviceBuffer in(plugin, type, EMBER_DTYPE_INT32, 1), out(plugin, type, EMBER_DTYPE_INT32, 2);
  in.write<int32_t>({5});
  ASSERT_TRUE(plugin.run(ir, {&in.tensor(), &out.tensor()}, {0}).ok);
  EXPECT_EQ(out.read<int32_t>(), (std::vector<int32_t>{INT32_MIN, INT32_MIN}));

  const std::string divide = R"({"ekir":"1.0","name":"divide","params":0,
   "buffers":[{"dtype":"int32","role":"input"},{"dtype":"int32","role":"output"}],
   "outer":[1],
   "loops":[{"extents":[],"body":[
     {"id":0,"op":"load","dtype":"int32","buffer":0,"offset":0,"strides":[1]},
     {"id":1,"op":"const","dtype":"int32","value":0},
     {"id":2,"op":"remainder","dtype":"int32","args":[0,1]},
     {"id":3,"op":"store","buffer":1,"offset":0,"strides":[1],"args":[2]}]}]})";
  const StatusCopy status = plugin.run(divide, {&in.tensor(), &out.tensor()});
  EXPECT_EQ(status.code, EMBER_STATUS_INVALID_ARGUMENT) << status.message;
  EXPECT_NE(status.message.find("integer division by zero"), std::string::npos) << status.message;
}

// 1 + 2^-9 is not a bfloat16 (whose spacing at 1 is 2^-7): the sum rounds
// to 1 before it is stored, as eager kernels round it.
inline void expect_reduced_floats_round_at_every_instruction(const CodegenPlugin& plugin, DLDeviceType type) {
  const std::string ir = R"({"ekir":"1.0","name":"bf16_add","params":0,
   "buffers":[{"dtype":"bfloat16","role":"input"},{"dtype":"bfloat16","role":"output"}],
   "outer":[1],
   "loops":[{"extents":[],"body":[
     {"id":0,"op":"load","dtype":"bfloat16","buffer":0,"offset":0,"strides":[1]},
     {"id":1,"op":"const","dtype":"bfloat16","value":0.001953125},
     {"id":2,"op":"add","dtype":"bfloat16","args":[0,1]},
     {"id":3,"op":"store","buffer":1,"offset":0,"strides":[1],"args":[2]}]}]})";
  DeviceBuffer in(plugin, type, EMBER_DTYPE_BFLOAT16, 1), out(plugin, type, EMBER_DTYPE_BFLOAT16, 1);
  in.write<uint16_t>({0x3f80});  // 1.0
  ASSERT_TRUE(plugin.run(ir, {&in.tensor(), &out.tensor()}).ok);
  EXPECT_EQ(out.read<uint16_t>(), std::vector<uint16_t>{0x3f80});
}

// One kernel of kParameterConstants serves two launches whose counts and
// scalars differ.
inline void expect_parameter_constants(const CodegenPlugin& plugin, DLDeviceType type) {
  for (const auto& [rows, columns, shift] : {std::tuple<int64_t, int64_t, int64_t>{3, 5, -7}, {2, 8, 3}}) {
    DeviceBuffer in(plugin, type, EMBER_DTYPE_FLOAT32, rows * columns), means(plugin, type, EMBER_DTYPE_FLOAT32, rows),
        indices(plugin, type, EMBER_DTYPE_INT64, rows), scaled(plugin, type, EMBER_DTYPE_INT64, rows);
    std::vector<float> values(static_cast<size_t>(rows * columns));
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
    std::vector<int64_t> row_indices(static_cast<size_t>(rows));
    for (size_t r = 0; r < row_indices.size(); ++r) row_indices[r] = static_cast<int64_t>(r);
    in.write(values);
    indices.write(row_indices);
    const StatusCopy status = plugin.run(kParameterConstants,
                                         {&in.tensor(), &means.tensor(), &indices.tensor(), &scaled.tensor()},
                                         {rows, columns, shift});
    ASSERT_TRUE(status.ok) << status.message;
    const ShiftedMeans expected = shifted_means(rows, columns, shift);
    const std::vector<float> got = means.read<float>();
    for (size_t r = 0; r < got.size(); ++r) EXPECT_NEAR(got[r], expected.means[r], 1e-5f) << "row " << r;
    EXPECT_EQ(scaled.read<int64_t>(), expected.scaled);
  }
}

inline const char* kCopyEight = R"({"ekir":"1.0","name":"copy","params":0,
 "buffers":[{"dtype":"float32","role":"input"},{"dtype":"float32","role":"output"}],"outer":[8],
 "loops":[{"extents":[],"body":[
   {"id":0,"op":"load","dtype":"float32","buffer":0,"offset":0,"strides":[1]},
   {"id":1,"op":"store","buffer":1,"offset":0,"strides":[1],"args":[0]}]}]})";

// A buffer too small for the kernel's reach, and one on the CPU, are
// refused naming the buffer; `device_phrase` is how the generator names
// its device ("an xpu (OpenCL) device").
inline void expect_bad_launches_refused(const CodegenPlugin& plugin, DLDeviceType type,
                                        const std::string& device_phrase) {
  DeviceBuffer small(plugin, type, EMBER_DTYPE_FLOAT32, 4), out(plugin, type, EMBER_DTYPE_FLOAT32, 8);
  StatusCopy status = plugin.run(kCopyEight, {&small.tensor(), &out.tensor()});
  EXPECT_EQ(status.code, EMBER_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(status.message.find("reaches elements [0, 7] of buffer 0"), std::string::npos) << status.message;
  DeviceBuffer in(plugin, type, EMBER_DTYPE_FLOAT32, 8);
  DLTensor on_cpu = in.tensor();
  on_cpu.device = {kDLCPU, 0};
  status = plugin.run(kCopyEight, {&on_cpu, &out.tensor()});
  EXPECT_NE(status.message.find("not " + device_phrase), std::string::npos) << status.message;
}

}  // namespace ember::kernel_ir::testing
