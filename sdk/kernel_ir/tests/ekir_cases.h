// EKIR documents every generator's tests compile: every op on a dtype, and
// the shapes of the kernels fusion forms (softmax, layer_norm, column
// sums, kernels over launch parameters).
#pragma once

#include <ember/kernel_ir/ekir.h>
#include <ember/sdk/dtypes.hpp>

#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace ember::kernel_ir::testing {

// One kernel applying every unary and binary op that takes `dtype` to two
// loaded values, each result stored to an output of its own dtype, and a
// cast to each of `cast_to`: a pointwise kernel (the reductions are in
// reduction_kernels()).
inline std::string every_op_kernel(ember_dtype dtype, const std::vector<ember_dtype>& cast_to) {
  const std::string name = sdk::dtype_name(dtype);
  const bool floating = is_floating(dtype);
  const bool boolean = dtype == EMBER_DTYPE_BOOL;
  std::vector<std::pair<std::string, int>> ops;  // op, arity
  for (const char* op : {"neg", "abs", "sign"}) {
    if (!boolean) ops.emplace_back(op, 1);
  }
  for (const char* op : {"exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh", "sigmoid", "erf",
                         "erfc", "asin", "acos", "atan", "reciprocal", "floor", "ceil", "round", "trunc"}) {
    if (floating) ops.emplace_back(op, 1);
  }
  if (!floating) ops.emplace_back("bitwise_not", 1);
  ops.emplace_back("logical_not", 1);
  for (const char* op : {"add", "mul", "maximum", "minimum", "logical_and", "logical_or", "logical_xor", "eq", "ne",
                         "lt", "le", "gt", "ge"}) {
    ops.emplace_back(op, 2);
  }
  for (const char* op : {"sub", "div", "floor_divide", "remainder", "pow"}) {
    if (!boolean && (floating || std::string(op) != "div")) ops.emplace_back(op, 2);
  }
  if (floating) ops.emplace_back("atan2", 2);
  for (const char* op : {"bitwise_and", "bitwise_or", "bitwise_xor"}) {
    if (!floating) ops.emplace_back(op, 2);
  }
  const std::set<std::string> to_bool = {"logical_not", "logical_and", "logical_or", "logical_xor", "eq",
                                         "ne",          "lt",          "le",         "gt",          "ge"};
  std::ostringstream ir, body;
  ir << R"({"ekir":"1.0","name":"every_op_)" << name << R"(","params":0,"buffers":[)";
  ir << R"({"dtype":")" << name << R"(","role":"input"},{"dtype":")" << name << R"(","role":"input"})";
  body << R"({"id":0,"op":"load","dtype":")" << name << R"(","buffer":0,"offset":0,"strides":[1]},)";
  body << R"({"id":1,"op":"load","dtype":")" << name << R"(","buffer":1,"offset":0,"strides":[1]})";
  int id = 2;
  int buffer = 2;
  auto store = [&](const std::string& op, const std::string& result, const std::string& args) {
    ir << R"(,{"dtype":")" << result << R"(","role":"output"})";
    body << R"(,{"id":)" << id << R"(,"op":")" << op << R"(","dtype":")" << result << R"(","args":[)" << args << "]}";
    body << R"(,{"op":"store","buffer":)" << buffer << R"(,"offset":0,"strides":[1],"args":[)" << id << "]}";
    ++id;
    ++buffer;
  };
  for (const auto& [op, arity] : ops) store(op, to_bool.count(op) ? "bool" : name, arity == 2 ? "0,1" : "0");
  for (ember_dtype target : cast_to) store("cast", sdk::dtype_name(target), "0");
  ir << R"(],"outer":[4],"loops":[{"extents":[],"body":[)" << body.str() << R"(]}]})";
  return ir.str();
}

// Row softmax of a [rows, cols] float32 matrix, as fusion writes it: max,
// then the sum of exponentials, then the normalised values.
inline const char* kSoftmaxRows = R"({"ekir":"1.0","name":"softmax","params":2,
 "buffers":[{"dtype":"float32","role":"input"},{"dtype":"float32","role":"output"}],
 "outer":["p0"],
 "loops":[
  {"extents":["p1"],"body":[
   {"id":0,"op":"load","dtype":"float32","buffer":0,"offset":0,"strides":["p1",1]},
   {"id":1,"op":"reduce","kind":"max","dtype":"float32","args":[0]}]},
  {"extents":["p1"],"body":[
   {"id":2,"op":"load","dtype":"float32","buffer":0,"offset":0,"strides":["p1",1]},
   {"id":3,"op":"sub","dtype":"float32","args":[2,1]},
   {"id":4,"op":"exp","dtype":"float32","args":[3]},
   {"id":5,"op":"reduce","kind":"sum","dtype":"float32","args":[4]}]},
  {"extents":["p1"],"body":[
   {"id":6,"op":"load","dtype":"float32","buffer":0,"offset":0,"strides":["p1",1]},
   {"id":7,"op":"sub","dtype":"float32","args":[6,1]},
   {"id":8,"op":"exp","dtype":"float32","args":[7]},
   {"id":9,"op":"div","dtype":"float32","args":[8,5]},
   {"id":10,"op":"store","buffer":1,"offset":0,"strides":["p1",1],"args":[9]}]}]})";

// layer_norm over rows of 48 bfloat16 values, accumulated in float32.
inline const char* kLayerNormRows = R"({"ekir":"1.0","name":"layer_norm","params":0,
 "buffers":[{"dtype":"bfloat16","role":"input"},{"dtype":"bfloat16","role":"output"}],
 "outer":[16],
 "loops":[
  {"extents":[48],"body":[
   {"id":0,"op":"load","dtype":"bfloat16","buffer":0,"offset":0,"strides":[48,1]},
   {"id":1,"op":"cast","dtype":"float32","args":[0]},
   {"id":2,"op":"reduce","kind":"sum","dtype":"float32","args":[1]}]},
  {"extents":[],"body":[
   {"id":3,"op":"const","dtype":"float32","value":0.020833333333333332},
   {"id":4,"op":"mul","dtype":"float32","args":[2,3]}]},
  {"extents":[48],"body":[
   {"id":5,"op":"load","dtype":"bfloat16","buffer":0,"offset":0,"strides":[48,1]},
   {"id":6,"op":"cast","dtype":"float32","args":[5]},
   {"id":7,"op":"sub","dtype":"float32","args":[6,4]},
   {"id":8,"op":"mul","dtype":"float32","args":[7,7]},
   {"id":9,"op":"reduce","kind":"sum","dtype":"float32","args":[8]}]},
  {"extents":[],"body":[
   {"id":10,"op":"mul","dtype":"float32","args":[9,3]},
   {"id":11,"op":"const","dtype":"float32","value":1e-05},
   {"id":12,"op":"add","dtype":"float32","args":[10,11]},
   {"id":13,"op":"rsqrt","dtype":"float32","args":[12]}]},
  {"extents":[48],"body":[
   {"id":14,"op":"load","dtype":"bfloat16","buffer":0,"offset":0,"strides":[48,1]},
   {"id":15,"op":"cast","dtype":"float32","args":[14]},
   {"id":16,"op":"sub","dtype":"float32","args":[15,4]},
   {"id":17,"op":"mul","dtype":"float32","args":[16,13]},
   {"id":18,"op":"cast","dtype":"bfloat16","args":[17]},
   {"id":19,"op":"store","buffer":1,"offset":0,"strides":[48,1],"args":[18]}]}]})";

// Sums and products of the columns of a [7, 5] int64 matrix, and whether
// each column is all positive (a bool min): an outer stride of 1, an inner
// one of a row.
inline const char* kColumnSums = R"({"ekir":"1.0","name":"column_sums","params":0,
 "buffers":[{"dtype":"int64","role":"input"},{"dtype":"int64","role":"output"},{"dtype":"bool","role":"output"},
  {"dtype":"int64","role":"output"}],
 "outer":[5],
 "loops":[
  {"extents":[7],"body":[
   {"id":0,"op":"load","dtype":"int64","buffer":0,"offset":0,"strides":[1,5]},
   {"id":1,"op":"reduce","kind":"sum","dtype":"int64","args":[0]},
   {"id":2,"op":"const","dtype":"int64","value":0},
   {"id":3,"op":"gt","dtype":"bool","args":[0,2]},
   {"id":4,"op":"reduce","kind":"min","dtype":"bool","args":[3]},
   {"id":7,"op":"reduce","kind":"prod","dtype":"int64","args":[0]}]},
  {"extents":[],"body":[
   {"id":5,"op":"store","buffer":1,"offset":0,"strides":[1],"args":[1]},
   {"id":6,"op":"store","buffer":2,"offset":0,"strides":[1],"args":[4]},
   {"id":8,"op":"store","buffer":3,"offset":0,"strides":[1],"args":[7]}]}]})";

// EKIR 1.2, as a dynamic plan writes a mean with a scalar from an integer
// argument: the means of p0 rows of p1 float32 elements plus p2, and int64
// elements times p2, with the count and the scalar launch parameters.
inline const char* kParameterConstants = R"({"ekir":"1.2","name":"shifted_means","params":3,
 "buffers":[{"dtype":"float32","role":"input"},{"dtype":"float32","role":"output"},
  {"dtype":"int64","role":"input"},{"dtype":"int64","role":"output"}],
 "outer":["p0"],
 "loops":[
  {"extents":["p1"],"body":[
   {"id":0,"op":"load","dtype":"float32","buffer":0,"offset":0,"strides":["p1",1]},
   {"id":1,"op":"reduce","kind":"sum","dtype":"float32","args":[0]}]},
  {"extents":[],"body":[
   {"id":2,"op":"const","dtype":"float32","value":1},
   {"id":3,"op":"const","dtype":"float32","value":"p1"},
   {"id":4,"op":"div","dtype":"float32","args":[2,3]},
   {"id":5,"op":"mul","dtype":"float32","args":[1,4]},
   {"id":6,"op":"const","dtype":"float32","value":"p2"},
   {"id":7,"op":"add","dtype":"float32","args":[5,6]},
   {"id":8,"op":"store","buffer":1,"offset":0,"strides":[1],"args":[7]},
   {"id":9,"op":"load","dtype":"int64","buffer":2,"offset":0,"strides":[1]},
   {"id":10,"op":"const","dtype":"int64","value":"p2"},
   {"id":11,"op":"mul","dtype":"int64","args":[9,10]},
   {"id":12,"op":"store","buffer":3,"offset":0,"strides":[1],"args":[11]}]}]})";

// What kParameterConstants stores for `rows` rows of `columns` values
// 0, 1, ...: per row, the mean plus `shift`, and the row's index times it.
struct ShiftedMeans {
  std::vector<float> means;
  std::vector<int64_t> scaled;
};

inline ShiftedMeans shifted_means(int64_t rows, int64_t columns, int64_t shift) {
  ShiftedMeans expected;
  for (int64_t r = 0; r < rows; ++r) {
    float sum = 0.0f;
    for (int64_t c = 0; c < columns; ++c) sum += static_cast<float>(r * columns + c);
    expected.means.push_back(sum * (1.0f / static_cast<float>(columns)) + static_cast<float>(shift));
    expected.scaled.push_back(r * shift);
  }
  return expected;
}

// The reduction-shaped kernels above, by name.
inline std::vector<std::pair<const char*, const char*>> reduction_kernels() {
  return {{"softmax", kSoftmaxRows},
          {"layer_norm", kLayerNormRows},
          {"column_sums", kColumnSums},
          {"shifted_means", kParameterConstants}};
}

}  // namespace ember::kernel_ir::testing
