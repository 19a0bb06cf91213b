// Pointwise kernels (every loop's extents []): results against the same
// computation in plain C++ with the catalogue's rules (scalar_rules.hpp).
#include <gtest/gtest.h>

#include <ember/sdk/scalar_rules.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <thread>

#include "codegen_harness.h"

namespace ember::cpu_codegen::testing {
namespace {

// The example of kernel-ir.md, at a size with a vector tail.
const char* kSinCos =
    R"({"ekir":"1.0","name":"fused_cos_sin","params":0,
 "buffers":[{"dtype":"float32","role":"input"},{"dtype":"float32","role":"output"}],
 "outer":[100003],
 "loops":[{"extents":[],"body":[
   {"id":0,"op":"load","dtype":"float32","buffer":0,"offset":0,"strides":[1]},
   {"id":1,"op":"cos","dtype":"float32","args":[0]},
   {"id":2,"op":"sin","dtype":"float32","args":[1]},
   {"id":3,"op":"store","buffer":1,"offset":0,"strides":[1],"args":[2]}]}],
 "hints":{"deterministic":false}})";

TEST(CpuCodegenPointwise, SinOfCosIsWithinAFewUlpOfLibm) {
  const int64_t n = 100003;
  HostBuffer x(EMBER_DTYPE_FLOAT32, n), out(EMBER_DTYPE_FLOAT32, n);
  for (int64_t i = 0; i < n; ++i) x.as<float>()[i] = static_cast<float>(i - n / 2) * 0.013f;
  x.as<float>()[7] = std::numeric_limits<float>::infinity();
  x.as<float>()[8] = std::numeric_limits<float>::quiet_NaN();
  ASSERT_TRUE(run(kSinCos, {&x.tensor(), &out.tensor()}).ok);
  for (int64_t i = 0; i < n; ++i) {
    const double expected = std::sin(std::cos(static_cast<double>(x.as<float>()[i])));
    const float got = out.as<float>()[i];
    if (std::isnan(expected)) {
      EXPECT_TRUE(std::isnan(got)) << "element " << i;
    } else {
      ASSERT_NEAR(got, expected, 1e-6 * std::fabs(expected) + 1e-7) << "element " << i;
    }
  }
}

TEST(CpuCodegenPointwise, GeneratedSourceDeclaresWhatItCalls) {
  const Compiled compiled = Codegen::get().compile(kSinCos);
  ASSERT_TRUE(compiled.status.ok) << compiled.status.message;
  EXPECT_NE(compiled.source.find("float cosf(float) noexcept"), std::string::npos) << compiled.source;
  EXPECT_NE(compiled.source.find("ember_kernel_fused_cos_sin"), std::string::npos);
  // Pure float arithmetic needs none of the SDK's scalar rules.
  EXPECT_EQ(compiled.source.find("scalar_rules.hpp"), std::string::npos);
}

// Every floating unary op and pow, in one kernel of one output per op.
struct FloatOp {
  const char* name;
  double (*reference)(double);
};

const FloatOp kFloatOps[] = {
    {"exp", [](double x) { return std::exp(x); }},
    {"log", [](double x) { return std::log(x); }},
    {"log1p", [](double x) { return std::log1p(x); }},
    {"expm1", [](double x) { return std::expm1(x); }},
    {"sqrt", [](double x) { return std::sqrt(x); }},
    {"rsqrt", [](double x) { return 1.0 / std::sqrt(x); }},
    {"sin", [](double x) { return std::sin(x); }},
    {"cos", [](double x) { return std::cos(x); }},
    {"tan", [](double x) { return std::tan(x); }},
    {"tanh", [](double x) { return std::tanh(x); }},
    {"sigmoid", [](double x) { return 1.0 / (1.0 + std::exp(-x)); }},
    {"erf", [](double x) { return std::erf(x); }},
    {"reciprocal", [](double x) { return 1.0 / x; }},
    {"floor", [](double x) { return std::floor(x); }},
    {"ceil", [](double x) { return std::ceil(x); }},
    {"trunc", [](double x) { return std::trunc(x); }},
    {"round", [](double x) { return std::nearbyint(x); }},
    {"neg", [](double x) { return -x; }},
    {"abs", [](double x) { return std::fabs(x); }},
    {"sign", [](double x) { return std::isnan(x) ? x : double((x > 0) - (x < 0)); }},
};

// A kernel applying every op of kFloatOps to buffer 0, and pow(buffer 0,
// buffer 1), each into an output of its own.
std::string float_ops_kernel(const std::string& dtype, int64_t n) {
  const std::string t = "\"" + dtype + "\"";
  std::string buffers = "{\"dtype\":" + t + ",\"role\":\"input\"},{\"dtype\":" + t + ",\"role\":\"input\"}";
  std::string body = "{\"id\":0,\"op\":\"load\",\"dtype\":" + t + ",\"buffer\":0,\"offset\":0,\"strides\":[1]},";
  body += "{\"id\":1,\"op\":\"load\",\"dtype\":" + t + ",\"buffer\":1,\"offset\":0,\"strides\":[1]}";
  int id = 2, buffer = 2;
  auto add = [&](const std::string& op, const std::string& args) {
    buffers += ",{\"dtype\":" + t + ",\"role\":\"output\"}";
    body += ",{\"id\":" + std::to_string(id) + ",\"op\":\"" + op + "\",\"dtype\":" + t + ",\"args\":[" + args + "]}";
    body += ",{\"id\":" + std::to_string(id + 1) + ",\"op\":\"store\",\"buffer\":" + std::to_string(buffer) +
            ",\"offset\":0,\"strides\":[1],\"args\":[" + std::to_string(id) + "]}";
    id += 2;
    ++buffer;
  };
  for (const FloatOp& op : kFloatOps) add(op.name, "0");
  add("pow", "0,1");
  return "{\"ekir\":\"1.0\",\"name\":\"float_ops\",\"params\":0,\"buffers\":[" + buffers + "],\"outer\":[" +
         std::to_string(n) + "],\"loops\":[{\"extents\":[],\"body\":[" + body + "]}]}";
}

template <class T>
void check_float_ops(const std::string& dtype, ember_dtype code, double tolerance) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> xs = {0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, inf, -inf, nan, 1e-30, -7.25, 88.0};
  std::vector<double> ys = {0.0, 3.0, nan, 2.0, -1.5, 0.5, 2.0, -1.0, 0.0, 0.0, 2.0, 1.0 / 3, 0.5};
  for (int i = 0; i < 1000; ++i) {  // a vectorised stretch
    xs.push_back(0.0137 * (i - 500));
    ys.push_back(0.01 * (i % 300) - 1.0);
  }
  const int64_t n = static_cast<int64_t>(xs.size());
  HostBuffer x(code, n), y(code, n);
  for (int64_t i = 0; i < n; ++i) {
    x.as<T>()[i] = static_cast<T>(xs[i]);
    y.as<T>()[i] = static_cast<T>(ys[i]);
  }
  std::vector<std::unique_ptr<HostBuffer>> outputs;
  std::vector<DLTensor*> buffers = {&x.tensor(), &y.tensor()};
  for (size_t o = 0; o <= std::size(kFloatOps); ++o) {
    outputs.push_back(std::make_unique<HostBuffer>(code, n));
    buffers.push_back(&outputs.back()->tensor());
  }
  ASSERT_TRUE(run(float_ops_kernel(dtype, n), buffers).ok);
  const auto check = [&](const char* name, int64_t i, double expected, T got) {
    if (std::isnan(expected)) {
      EXPECT_TRUE(std::isnan(got)) << dtype << " " << name << "(" << xs[i] << ")";
    } else if (std::isinf(expected) || expected == 0) {
      EXPECT_EQ(got, static_cast<T>(expected)) << dtype << " " << name << "(" << xs[i] << ")";
    } else {
      EXPECT_NEAR(got, expected, tolerance * std::fabs(expected) + std::numeric_limits<T>::denorm_min())
          << dtype << " " << name << "(" << xs[i] << ")";
    }
  };
  for (size_t o = 0; o < std::size(kFloatOps); ++o) {
    for (int64_t i = 0; i < n; ++i) {
      const double expected = static_cast<T>(kFloatOps[o].reference(static_cast<double>(x.as<T>()[i])));
      check(kFloatOps[o].name, i, expected, outputs[o]->as<T>()[i]);
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    const double expected = static_cast<T>(std::pow(double(x.as<T>()[i]), double(y.as<T>()[i])));
    check("pow", i, expected, outputs.back()->as<T>()[i]);
  }
}

// libmvec's SIMD variants are within 4 ulp; special values follow C.
TEST(CpuCodegenPointwise, FloatingOpsMatchLibm) {
  check_float_ops<float>("float32", EMBER_DTYPE_FLOAT32, 5e-7);
  check_float_ops<double>("float64", EMBER_DTYPE_FLOAT64, 1e-15);
}

// compile, load and launch are declared thread-safe.
TEST(CpuCodegenPointwise, CompilesAndLaunchesFromTwoThreadsAtOnce) {
  const int64_t n = 100003;
  HostBuffer x(EMBER_DTYPE_FLOAT32, n), out[2] = {{EMBER_DTYPE_FLOAT32, n}, {EMBER_DTYPE_FLOAT32, n}};
  for (int64_t i = 0; i < n; ++i) x.as<float>()[i] = 0.001f * static_cast<float>(i);
  StatusCopy statuses[2];
  std::thread threads[2];
  for (int t = 0; t < 2; ++t) {
    threads[t] = std::thread([&, t] { statuses[t] = run(kSinCos, {&x.tensor(), &out[t].tensor()}); });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < 2; ++t) ASSERT_TRUE(statuses[t].ok) << statuses[t].message;
  EXPECT_EQ(out[0].values<float>(), out[1].values<float>());
  EXPECT_NEAR(out[0].as<float>()[n - 1], std::sin(std::cos(x.as<float>()[n - 1])), 1e-6);
}

// out = x * y + z over [R, C]: y broadcasts along R (stride 0), z is stored
// transposed ([C, R]).
TEST(CpuCodegenPointwise, MulAddWithBroadcastAndTransposedOperands) {
  const int64_t rows = 37, cols = 53;
  const std::string ir = R"({"ekir":"1.0","name":"mul_add","params":0,
 "buffers":[{"dtype":"float32","role":"input"},{"dtype":"float32","role":"input"},
            {"dtype":"float32","role":"input"},{"dtype":"float32","role":"output"}],
 "outer":[37,53],
 "loops":[{"extents":[],"body":[
   {"id":0,"op":"load","dtype":"float32","buffer":0,"offset":0,"strides":[53,1]},
   {"id":1,"op":"load","dtype":"float32","buffer":1,"offset":0,"strides":[0,1]},
   {"id":2,"op":"load","dtype":"float32","buffer":2,"offset":0,"strides":[1,37]},
   {"id":3,"op":"mul","dtype":"float32","args":[0,1]},
   {"id":4,"op":"add","dtype":"float32","args":[3,2]},
   {"id":5,"op":"store","buffer":3,"offset":0,"strides":[53,1],"args":[4]}]}]})";
  HostBuffer x(EMBER_DTYPE_FLOAT32, rows * cols), y(EMBER_DTYPE_FLOAT32, cols), z(EMBER_DTYPE_FLOAT32, rows * cols),
      out(EMBER_DTYPE_FLOAT32, rows * cols);
  for (int64_t i = 0; i < rows * cols; ++i) {
    x.as<float>()[i] = 0.25f * static_cast<float>(i % 17) - 1.5f;
    z.as<float>()[i] = 0.1f * static_cast<float>(i % 23);
  }
  for (int64_t c = 0; c < cols; ++c) y.as<float>()[c] = 1.0f + 0.3f * static_cast<float>(c);
  ASSERT_TRUE(run(ir, {&x.tensor(), &y.tensor(), &z.tensor(), &out.tensor()}).ok);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const float product = x.as<float>()[r * cols + c] * y.as<float>()[c];
      const float expected = product + z.as<float>()[c * rows + r];
      ASSERT_EQ(out.as<float>()[r * cols + c], expected) << r << ", " << c;
    }
  }
}

TEST(CpuCodegenPointwise, CastsConvertAsTheCatalogueCopies) {
  const std::string ir = R"({"ekir":"1.0","name":"casts","params":0,
 "buffers":[{"dtype":"float32","role":"input"},{"dtype":"int64","role":"input"},
            {"dtype":"int32","role":"output"},{"dtype":"bool","role":"output"},{"dtype":"float16","role":"output"},
            {"dtype":"bfloat16","role":"output"},{"dtype":"float32","role":"output"},{"dtype":"uint8","role":"output"}],
 "outer":[8],
 "loops":[{"extents":[],"body":[
   {"id":0,"op":"load","dtype":"float32","buffer":0,"offset":0,"strides":[1]},
   {"id":1,"op":"load","dtype":"int64","buffer":1,"offset":0,"strides":[1]},
   {"id":2,"op":"cast","dtype":"int32","args":[0]},
   {"id":3,"op":"store","buffer":2,"offset":0,"strides":[1],"args":[2]},
   {"id":4,"op":"cast","dtype":"bool","args":[0]},
   {"id":5,"op":"store","buffer":3,"offset":0,"strides":[1],"args":[4]},
   {"id":6,"op":"cast","dtype":"float16","args":[0]},
   {"id":7,"op":"store","buffer":4,"offset":0,"strides":[1],"args":[6]},
   {"id":8,"op":"cast","dtype":"bfloat16","args":[0]},
   {"id":9,"op":"store","buffer":5,"offset":0,"strides":[1],"args":[8]},
   {"id":10,"op":"cast","dtype":"float32","args":[1]},
   {"id":11,"op":"store","buffer":6,"offset":0,"strides":[1],"args":[10]},
   {"id":12,"op":"cast","dtype":"uint8","args":[1]},
   {"id":13,"op":"store","buffer":7,"offset":0,"strides":[1],"args":[12]}]}]})";
  const float xs[8] = {-2.75f,        -0.5f, 0.0f,     0.1f,
                       1.0009765625f, 3.99f, 65519.0f, std::numeric_limits<float>::quiet_NaN()};
  const int64_t ns[8] = {-1, 0, 255, 256, 300, (int64_t{1} << 40) + 7, 16777217, -129};
  HostBuffer x(EMBER_DTYPE_FLOAT32, 8), n(EMBER_DTYPE_INT64, 8), i32(EMBER_DTYPE_INT32, 8), b(EMBER_DTYPE_BOOL, 8),
      h(EMBER_DTYPE_FLOAT16, 8), bf(EMBER_DTYPE_BFLOAT16, 8), f(EMBER_DTYPE_FLOAT32, 8), u8(EMBER_DTYPE_UINT8, 8);
  std::memcpy(x.as<float>(), xs, sizeof xs);
  std::memcpy(n.as<int64_t>(), ns, sizeof ns);
  ASSERT_TRUE(run(ir, {&x.tensor(), &n.tensor(), &i32.tensor(), &b.tensor(), &h.tensor(), &bf.tensor(), &f.tensor(),
                       &u8.tensor()})
                  .ok);
  for (int i = 0; i < 8; ++i) {
    if (i < 7) EXPECT_EQ(i32.as<int32_t>()[i], sdk::convert<int32_t>(xs[i])) << i;  // NaN: unspecified
    EXPECT_EQ(b.as<uint8_t>()[i], sdk::convert<bool>(xs[i]) ? 1 : 0) << i;
    EXPECT_EQ(h.as<uint16_t>()[i], sdk::convert<sdk::float16>(xs[i]).bits) << i;
    EXPECT_EQ(bf.as<uint16_t>()[i], sdk::convert<sdk::bfloat16>(xs[i]).bits) << i;
    EXPECT_EQ(f.as<float>()[i], sdk::convert<float>(ns[i])) << i;
    EXPECT_EQ(u8.as<uint8_t>()[i], sdk::convert<uint8_t>(ns[i])) << i;
  }
}

// `body` over two inputs of dtype T and outputs of it, with "T" replaced.
std::string integer_kernel(const char* dtype, int outputs, const std::string& body) {
  std::string ir = R"({"ekir":"1.0","name":"integers","params":0,
 "buffers":[{"dtype":"T","role":"input"},{"dtype":"T","role":"input"})";
  for (int o = 0; o < outputs; ++o) ir += R"(,{"dtype":"T","role":"output"})";
  ir += R"(],"outer":[12],"loops":[{"extents":[],"body":[
   {"id":0,"op":"load","dtype":"T","buffer":0,"offset":0,"strides":[1]},
   {"id":1,"op":"load","dtype":"T","buffer":1,"offset":0,"strides":[1]},)" +
        body + "]}]}";
  for (size_t at = ir.find("\"T\""); at != std::string::npos; at = ir.find("\"T\"")) {
    ir.replace(at, 3, std::string("\"") + dtype + "\"");
  }
  return ir;
}

// floor_divide, remainder, add, neg and abs wrap and take Python's signs;
// a divisor of 0 is an error.
const char* kIntegerArithmetic = R"(
   {"id":2,"op":"floor_divide","dtype":"T","args":[0,1]},
   {"id":3,"op":"store","buffer":2,"offset":0,"strides":[1],"args":[2]},
   {"id":4,"op":"remainder","dtype":"T","args":[0,1]},
   {"id":5,"op":"store","buffer":3,"offset":0,"strides":[1],"args":[4]},
   {"id":6,"op":"add","dtype":"T","args":[0,1]},
   {"id":7,"op":"store","buffer":4,"offset":0,"strides":[1],"args":[6]},
   {"id":8,"op":"neg","dtype":"T","args":[0]},
   {"id":9,"op":"abs","dtype":"T","args":[8]},
   {"id":10,"op":"store","buffer":5,"offset":0,"strides":[1],"args":[9]})";

const char* kIntegerPower = R"(
   {"id":2,"op":"pow","dtype":"T","args":[0,1]},
   {"id":3,"op":"store","buffer":2,"offset":0,"strides":[1],"args":[2]})";

template <class T>
void check_integer_ops(const char* dtype, ember_dtype code) {
  const T lowest = std::numeric_limits<T>::lowest();
  const T highest = std::numeric_limits<T>::max();
  const T as[12] = {7, -7, 7, -7, lowest, lowest, highest, 0, 3, -2, 1, -1};
  const T bs[12] = {2, 2, -2, -2, -1, 3, 1, 5, 3, 3, 9, 5};
  HostBuffer a(code, 12), b(code, 12), quotient(code, 12), rest(code, 12), sum(code, 12), magnitude(code, 12);
  std::memcpy(a.as<T>(), as, sizeof as);
  std::memcpy(b.as<T>(), bs, sizeof bs);
  const std::string ir = integer_kernel(dtype, 4, kIntegerArithmetic);
  const std::vector<DLTensor*> buffers = {&a.tensor(),    &b.tensor(),   &quotient.tensor(),
                                          &rest.tensor(), &sum.tensor(), &magnitude.tensor()};
  ASSERT_TRUE(run(ir, buffers).ok);
  for (int i = 0; i < 12; ++i) {
    EXPECT_EQ(quotient.as<T>()[i], sdk::floor_divide(as[i], bs[i])) << dtype << " " << i;
    EXPECT_EQ(rest.as<T>()[i], sdk::remainder(as[i], bs[i])) << dtype << " " << i;
    EXPECT_EQ(sum.as<T>()[i], sdk::wrap_add(as[i], bs[i])) << dtype << " " << i;
    const T negated = sdk::wrap_neg(as[i]);
    EXPECT_EQ(magnitude.as<T>()[i], negated < 0 ? sdk::wrap_neg(negated) : negated) << dtype << " " << i;
  }
  EXPECT_EQ(quotient.as<T>()[4], lowest);   // INT_MIN // -1 wraps
  EXPECT_EQ(magnitude.as<T>()[4], lowest);  // abs(INT_MIN) == INT_MIN
  b.as<T>()[9] = 0;
  const StatusCopy status = run(ir, buffers);
  EXPECT_EQ(status.code, EMBER_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message, "integer division by zero");
}

template <class T>
void check_integer_power(const char* dtype, ember_dtype code) {
  const T bases[12] = {2, -2, 3, 1, -1, -1, 0, 0, 5, 7, -3, 1};
  const T exponents[12] = {10, 7, 40, -5, -5, -4, 0, 3, 1, 0, 3, 100};
  HostBuffer a(code, 12), b(code, 12), power(code, 12);
  std::memcpy(a.as<T>(), bases, sizeof bases);
  std::memcpy(b.as<T>(), exponents, sizeof exponents);
  const std::string ir = integer_kernel(dtype, 1, kIntegerPower);
  ASSERT_TRUE(run(ir, {&a.tensor(), &b.tensor(), &power.tensor()}).ok);
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(power.as<T>()[i], sdk::integer_pow(bases[i], exponents[i])) << dtype << " " << i;
  b.as<T>()[0] = -1;  // 2 ** -1
  const StatusCopy status = run(ir, {&a.tensor(), &b.tensor(), &power.tensor()});
  EXPECT_EQ(status.code, EMBER_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message, "pow: integers to negative integer powers are not allowed");
}

TEST(CpuCodegenPointwise, IntegerOpsFollowTheCatalogue) {
  check_integer_ops<int32_t>("int32", EMBER_DTYPE_INT32);
  check_integer_ops<int8_t>("int8", EMBER_DTYPE_INT8);
  check_integer_power<int64_t>("int64", EMBER_DTYPE_INT64);
  check_integer_power<int16_t>("int16", EMBER_DTYPE_INT16);
}

TEST(CpuCodegenPointwise, ComparisonsAndWhereWithNaN) {
  const std::string ir = R"({"ekir":"1.0","name":"select","params":0,
 "buffers":[{"dtype":"float64","role":"input"},{"dtype":"float64","role":"input"},
            {"dtype":"bool","role":"output"},{"dtype":"bool","role":"output"},{"dtype":"float64","role":"output"}],
 "outer":[6],
 "loops":[{"extents":[],"body":[
   {"id":0,"op":"load","dtype":"float64","buffer":0,"offset":0,"strides":[1]},
   {"id":1,"op":"load","dtype":"float64","buffer":1,"offset":0,"strides":[1]},
   {"id":2,"op":"lt","dtype":"bool","args":[0,1]},
   {"id":3,"op":"ne","dtype":"bool","args":[0,1]},
   {"id":4,"op":"store","buffer":2,"offset":0,"strides":[1],"args":[2]},
   {"id":5,"op":"logical_and","dtype":"bool","args":[3,2]},
   {"id":6,"op":"logical_not","dtype":"bool","args":[5]},
   {"id":7,"op":"store","buffer":3,"offset":0,"strides":[1],"args":[6]},
   {"id":8,"op":"maximum","dtype":"float64","args":[0,1]},
   {"id":9,"op":"const","dtype":"float64","value":"-inf"},
   {"id":10,"op":"where","dtype":"float64","args":[2,9,8]},
   {"id":11,"op":"store","buffer":4,"offset":0,"strides":[1],"args":[10]}]}]})";
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double as[6] = {1.0, 2.0, nan, 3.0, -0.0, 5.0};
  const double bs[6] = {2.0, 1.0, 1.0, nan, 0.0, 5.0};
  HostBuffer a(EMBER_DTYPE_FLOAT64, 6), b(EMBER_DTYPE_FLOAT64, 6), less(EMBER_DTYPE_BOOL, 6),
      not_both(EMBER_DTYPE_BOOL, 6), picked(EMBER_DTYPE_FLOAT64, 6);
  std::memcpy(a.as<double>(), as, sizeof as);
  std::memcpy(b.as<double>(), bs, sizeof bs);
  ASSERT_TRUE(run(ir, {&a.tensor(), &b.tensor(), &less.tensor(), &not_both.tensor(), &picked.tensor()}).ok);
  for (int i = 0; i < 6; ++i) {
    const bool lt = as[i] < bs[i];
    EXPECT_EQ(less.as<uint8_t>()[i], lt ? 1 : 0) << i;
    EXPECT_EQ(not_both.as<uint8_t>()[i], !(as[i] != bs[i] && lt) ? 1 : 0) << i;
    const double got = picked.as<double>()[i];
    if (lt) {
      EXPECT_EQ(got, -std::numeric_limits<double>::infinity()) << i;
    } else if (std::isnan(as[i]) || std::isnan(bs[i])) {
      EXPECT_TRUE(std::isnan(got)) << i;  // maximum propagates NaN
    } else {
      EXPECT_EQ(got, std::max(as[i], bs[i])) << i;
    }
  }
}

// One kernel, two sizes: the extent and the offset are launch parameters.
TEST(CpuCodegenPointwise, LaunchParametersServeEverySize) {
  const std::string ir = R"({"ekir":"1.0","name":"scaled_tail","params":2,
 "buffers":[{"dtype":"float32","role":"input"},{"dtype":"float32","role":"output"}],
 "outer":["p0"],
 "loops":[{"extents":[],"body":[
   {"id":0,"op":"load","dtype":"float32","buffer":0,"offset":"p1","strides":[1]},
   {"id":1,"op":"const","dtype":"float32","value":2.5},
   {"id":2,"op":"mul","dtype":"float32","args":[0,1]},
   {"id":3,"op":"store","buffer":1,"offset":0,"strides":[1],"args":[2]}]}]})";
  const std::optional<Kernel> kernel = Codegen::get().build(ir);
  ASSERT_TRUE(kernel);
  for (const int64_t n : {10, 40000}) {
    HostBuffer x(EMBER_DTYPE_FLOAT32, n + 3), out(EMBER_DTYPE_FLOAT32, n);
    for (int64_t i = 0; i < n + 3; ++i) x.as<float>()[i] = static_cast<float>(i);
    const StatusCopy status = kernel->launch({&x.tensor(), &out.tensor()}, {n, 3});
    ASSERT_TRUE(status.ok) << status.message;
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(out.as<float>()[i], 2.5f * static_cast<float>(i + 3)) << n << " " << i;
  }
}

// A combo kernel of many loops (an optimizer's parameters, a backward's
// gradient sums) writes source of a size linear in its loops, and each loop
// copies its own buffer: the longest-loop test once named the previous
// loops twice, and 24 loops wrote 500 MB.
TEST(CpuCodegenPointwise, ManyLoopsWriteSourceLinearInTheirCount) {
  constexpr int kLoops = 40;
  std::string loops, buffers;
  for (int l = 0; l < kLoops; ++l) {
    const std::string in = std::to_string(2 * l), out = std::to_string(2 * l + 1);
    buffers += std::string(l ? "," : "") + R"({"dtype":"float32","role":"input"},{"dtype":"float32","role":"output"})";
    loops += std::string(l ? "," : "") + R"({"extents":[)" + std::to_string(l + 1) + R"(],"body":[{"id":)" + in +
             R"(,"op":"load","dtype":"float32","buffer":)" + in + R"(,"offset":0,"strides":[1]},{"id":)" + out +
             R"(,"op":"store","buffer":)" + out + R"(,"offset":0,"strides":[1],"args":[)" + in + "]}]}";
  }
  const std::string ir = R"({"ekir":"1.0","name":"combo","params":0,"buffers":[)" + buffers +
                         R"(],"outer":[],"loops":[)" + loops + "]}";
  const Compiled compiled = Codegen::get().compile(ir);
  ASSERT_TRUE(compiled.status.ok) << compiled.status.message;
  EXPECT_LT(compiled.source.size(), size_t{200000});
  std::vector<std::unique_ptr<HostBuffer>> owned;
  std::vector<DLTensor*> tensors;
  for (int l = 0; l < kLoops; ++l) {
    for (int side = 0; side < 2; ++side) {
      owned.push_back(std::make_unique<HostBuffer>(EMBER_DTYPE_FLOAT32, l + 1));
      for (int i = 0; i <= l; ++i) owned.back()->as<float>()[i] = side == 0 ? static_cast<float>(100 * l + i) : -1.0f;
      tensors.push_back(&owned.back()->tensor());
    }
  }
  ASSERT_TRUE(run(ir, tensors).ok);
  for (int l = 0; l < kLoops; ++l) {
    for (int i = 0; i <= l; ++i) EXPECT_EQ(owned[2 * l + 1]->as<float>()[i], static_cast<float>(100 * l + i));
  }
}

// Nothing to iterate: the kernel writes nothing and succeeds.
TEST(CpuCodegenPointwise, EmptyOuterExtentWritesNothing) {
  const std::string ir = R"({"ekir":"1.0","name":"empty","params":0,
 "buffers":[{"dtype":"int16","role":"input"},{"dtype":"int16","role":"output"}],
 "outer":[4,0],
 "loops":[{"extents":[],"body":[
   {"id":0,"op":"load","dtype":"int16","buffer":0,"offset":0,"strides":[0,1]},
   {"id":1,"op":"store","buffer":1,"offset":0,"strides":[0,1],"args":[0]}]}]})";
  HostBuffer x(EMBER_DTYPE_INT16, 0), out(EMBER_DTYPE_INT16, 1);
  out.as<int16_t>()[0] = 1234;
  const StatusCopy status = run(ir, {&x.tensor(), &out.tensor()});
  ASSERT_TRUE(status.ok) << status.message;
  EXPECT_EQ(out.as<int16_t>()[0], 1234);
}

// float16 arithmetic rounds to float16 at every instruction.
TEST(CpuCodegenPointwise, Float16RoundsAtEveryInstruction) {
  const std::string ir = R"({"ekir":"1.0","name":"half","params":0,
 "buffers":[{"dtype":"float16","role":"input"},{"dtype":"float16","role":"output"}],
 "outer":[5],
 "loops":[{"extents":[],"body":[
   {"id":0,"op":"load","dtype":"float16","buffer":0,"offset":0,"strides":[1]},
   {"id":1,"op":"const","dtype":"float16","value":0.1},
   {"id":2,"op":"add","dtype":"float16","args":[0,1]},
   {"id":3,"op":"mul","dtype":"float16","args":[2,2]},
   {"id":4,"op":"store","buffer":1,"offset":0,"strides":[1],"args":[3]}]}]})";
  const float xs[5] = {1.0f, -3.5f, 100.0f, 0.0001f, 300.0f};
  HostBuffer x(EMBER_DTYPE_FLOAT16, 5), out(EMBER_DTYPE_FLOAT16, 5);
  for (int i = 0; i < 5; ++i) x.as<uint16_t>()[i] = sdk::float16(xs[i]).bits;
  ASSERT_TRUE(run(ir, {&x.tensor(), &out.tensor()}).ok);
  const auto round = [](float v) { return static_cast<float>(sdk::float16(v)); };
  for (int i = 0; i < 5; ++i) {
    const float sum = round(round(xs[i]) + round(0.1f));
    EXPECT_EQ(out.as<uint16_t>()[i], sdk::float16(sum * sum).bits) << i;
  }
}

}  // namespace
}  // namespace ember::cpu_codegen::testing
