// Loads the built CPU plugin through its C entry point with a fake host (no
// runtime involved) and checks registrations and a few kernels per family.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <ember/ember_plugin.hpp>

// The host owns the definition of the opaque status.
struct ember_status {
  ember_status_code code;
  std::string message;
};

struct ember_registrar {
  std::map<std::pair<std::string, ember_dtype>, ember_kernel_registration> kernels;
};

namespace {

using ember::sdk::bfloat16;

ember_status* fake_status_create(ember_status_code code, const char* message) {
  return new ember_status{code, message};
}
void fake_status_destroy(ember_status* status) { delete status; }
void fake_log(ember_log_level, const char*, const char*) {}
ember_status* fake_register_kernel(ember_registrar* registrar, const ember_kernel_registration* k) {
  if (!registrar->kernels.emplace(std::make_pair(std::string(k->op_name), k->dtype), *k).second) {
    return fake_status_create(EMBER_STATUS_INVALID_ARGUMENT, "duplicate registration");
  }
  return nullptr;
}

using Status = std::unique_ptr<ember_status>;

// A tensor owning its bytes, shape and strides (row-major unless given).
struct Tensor {
  std::vector<char> bytes;
  std::vector<int64_t> shape, strides;
  DLTensor dl{};

  template <class T>
  static Tensor of(std::vector<int64_t> shape, const std::vector<T>& values,
                   std::vector<int64_t> strides = {}) {
    Tensor t;
    t.shape = std::move(shape);
    t.strides = std::move(strides);
    if (t.strides.empty()) {
      t.strides.resize(t.shape.size());
      int64_t s = 1;
      for (size_t d = t.shape.size(); d-- > 0;) t.strides[d] = s, s *= t.shape[d];
    }
    t.bytes.resize(std::max<size_t>(values.size(), 1) * sizeof(T));
    std::memcpy(t.bytes.data(), values.data(), values.size() * sizeof(T));
    t.dl.data = t.bytes.data();
    t.dl.device = {kDLCPU, 0};
    t.dl.ndim = static_cast<int32_t>(t.shape.size());
    t.dl.dtype = ember::sdk::to_dl_dtype(ember::sdk::dtype_v<T>);
    t.dl.shape = t.shape.data();
    t.dl.strides = t.strides.data();
    return t;
  }
  template <class T>
  std::vector<T> values() const {
    std::vector<T> v(bytes.size() / sizeof(T));
    std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
    return v;
  }
};

ember_attr int_attr(const char* name, int64_t v, ember_attr_kind kind = EMBER_ATTR_INT) {
  return {sizeof(ember_attr), name, kind, v, 0.0, nullptr, 0};
}
ember_attr float_attr(const char* name, double v) {
  return {sizeof(ember_attr), name, EMBER_ATTR_FLOAT, 0, v, nullptr, 0};
}
ember_attr ints_attr(const char* name, const std::vector<int64_t>& v) {
  return {sizeof(ember_attr), name, EMBER_ATTR_INTS, 0, 0.0, v.data(), static_cast<int64_t>(v.size())};
}

class CpuPluginAbi : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    library_ = dlopen(EMBER_CPU_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(library_, nullptr) << dlerror();
    auto init = reinterpret_cast<ember_plugin_init_fn>(dlsym(library_, EMBER_PLUGIN_INIT_SYMBOL));
    ASSERT_NE(init, nullptr);
    host_ = {sizeof(ember_host_api), EMBER_ABI_VERSION_MAJOR, EMBER_ABI_VERSION_MINOR, nullptr,
             fake_status_create, fake_status_destroy, fake_log, fake_register_kernel};
    plugin_ = ember_plugin{};
    plugin_.struct_size = sizeof(ember_plugin);
    ASSERT_EQ(init(&host_, &plugin_), nullptr);
    ASSERT_EQ(Status(plugin_.register_kernels(&registrar_)), nullptr);
  }

  // Runs op for dispatch dtype `dtype`; null on success.
  static Status run(const char* op, ember_dtype dtype, std::vector<Tensor*> inputs,
                    std::vector<Tensor*> outputs, std::vector<ember_attr> attrs = {}) {
    auto it = registrar_.kernels.find({op, dtype});
    if (it == registrar_.kernels.end()) {
      ADD_FAILURE() << "no kernel for " << op << " " << ember::sdk::dtype_name(dtype);
      return nullptr;
    }
    std::vector<DLTensor> in, out;
    for (Tensor* t : inputs) in.push_back(t->dl);
    for (Tensor* t : outputs) out.push_back(t->dl);
    ember_kernel_call call{};
    call.struct_size = sizeof call;
    call.op_name = op;
    call.inputs = in.data();
    call.num_inputs = static_cast<int64_t>(in.size());
    call.outputs = out.data();
    call.num_outputs = static_cast<int64_t>(out.size());
    call.attrs = attrs.data();
    call.num_attrs = static_cast<int64_t>(attrs.size());
    return Status(it->second.kernel(&call, it->second.kernel_data));
  }

  static inline void* library_ = nullptr;
  static inline ember_host_api host_{};
  static inline ember_plugin plugin_{};
  static inline ember_registrar registrar_;
};

TEST_F(CpuPluginAbi, PluginAndDeviceTables) {
  EXPECT_STREQ(plugin_.name, "cpu");
  EXPECT_EQ(plugin_.abi_major, EMBER_ABI_VERSION_MAJOR);
  const ember_device_api* device = plugin_.device;
  ASSERT_NE(device, nullptr);
  EXPECT_STREQ(device->device_type, "cpu");
  EXPECT_EQ(device->dl_device_type, kDLCPU);
  ember_device_properties props{};
  props.struct_size = sizeof props;
  ASSERT_EQ(Status(device->device_properties(0, &props)), nullptr);
  EXPECT_GT(std::strlen(props.name), 0u);
  EXPECT_GT(props.compute_units, 0u);
  void* ptr = reinterpret_cast<void*>(1);
  ASSERT_EQ(Status(device->allocate(0, 0, 64, &ptr)), nullptr);
  EXPECT_EQ(ptr, nullptr);
  ASSERT_EQ(Status(device->allocate(0, 100, 64, &ptr)), nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(ptr) % 64, 0u);
  EXPECT_EQ(Status(device->deallocate(0, ptr)), nullptr);
  Status oom(device->allocate(0, SIZE_MAX / 2, 64, &ptr));
  ASSERT_NE(oom, nullptr);
  EXPECT_EQ(oom->code, EMBER_STATUS_OUT_OF_MEMORY);
}

TEST_F(CpuPluginAbi, EveryRegistrationIsACatalogueOp) {
  std::ifstream file(EMBER_OPS_MD_PATH);
  ASSERT_TRUE(file) << EMBER_OPS_MD_PATH;
  // Op names are the backticked words of a table row's first cell, or of a
  // "## `op`" heading.
  std::set<std::string> catalogue;
  const std::regex name("`([a-z_0-9]+)`");
  for (std::string line; std::getline(file, line);) {
    std::string cell;
    if (line.rfind("| `", 0) == 0) cell = line.substr(1, line.find('|', 1) - 1);
    if (line.rfind("## `", 0) == 0) cell = line.substr(3, line.find('`', 4) - 2);
    for (std::sregex_iterator m(cell.begin(), cell.end(), name), end; m != end; ++m) {
      catalogue.insert((*m)[1]);
    }
  }
  ASSERT_GT(catalogue.size(), 60u);
  std::set<std::string> registered;
  for (const auto& [key, reg] : registrar_.kernels) {
    EXPECT_TRUE(catalogue.count(key.first)) << key.first;
    EXPECT_EQ(reg.flags & EMBER_KERNEL_THREAD_SAFE, EMBER_KERNEL_THREAD_SAFE);
    registered.insert(key.first);
  }
  EXPECT_EQ(registered, catalogue);  // the CPU backend implements every primitive
}

TEST_F(CpuPluginAbi, AddWithBroadcastInput) {
  Tensor a = Tensor::of<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = Tensor::of<float>({2, 3}, {10, 20, 30}, {0, 1});
  Tensor out = Tensor::of<float>({2, 3}, std::vector<float>(6));
  ASSERT_EQ(run("add", EMBER_DTYPE_FLOAT32, {&a, &b}, {&out}), nullptr);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{11, 22, 33, 14, 25, 36}));
  Tensor x = Tensor::of<int32_t>({}, {INT32_MAX});
  Tensor one = Tensor::of<int32_t>({}, {1});
  Tensor sum = Tensor::of<int32_t>({}, {0});
  ASSERT_EQ(run("add", EMBER_DTYPE_INT32, {&x, &one}, {&sum}), nullptr);
  EXPECT_EQ(sum.values<int32_t>()[0], INT32_MIN);  // wraps
}

TEST_F(CpuPluginAbi, IntegerDivisionByZeroIsAnError) {
  Tensor a = Tensor::of<int64_t>({2}, {7, -7});
  Tensor b = Tensor::of<int64_t>({2}, {2, 0});
  Tensor out = Tensor::of<int64_t>({2}, {0, 0});
  Status status = run("floor_divide", EMBER_DTYPE_INT64, {&a, &b}, {&out});
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(status->code, EMBER_STATUS_INVALID_ARGUMENT);
  b = Tensor::of<int64_t>({2}, {2, 2});
  ASSERT_EQ(run("floor_divide", EMBER_DTYPE_INT64, {&a, &b}, {&out}), nullptr);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{3, -4}));
}

TEST_F(CpuPluginAbi, CopyCastsFloatToIntByTruncation) {
  Tensor src = Tensor::of<float>({4}, {1.7f, -1.7f, 2.5f, -0.5f});
  Tensor out = Tensor::of<int32_t>({4}, std::vector<int32_t>(4));
  ASSERT_EQ(run("copy", EMBER_DTYPE_FLOAT32, {&src}, {&out}), nullptr);
  EXPECT_EQ(out.values<int32_t>(), (std::vector<int32_t>{1, -1, 2, 0}));
  Tensor flags = Tensor::of<uint8_t>({4}, {9, 9, 9, 9});
  flags.dl.dtype = ember::sdk::to_dl_dtype(EMBER_DTYPE_BOOL);
  Tensor zero = Tensor::of<float>({4}, {0.0f, -0.0f, NAN, 3.0f});
  ASSERT_EQ(run("copy", EMBER_DTYPE_FLOAT32, {&zero}, {&flags}), nullptr);
  EXPECT_EQ(flags.values<uint8_t>(), (std::vector<uint8_t>{0, 0, 1, 1}));
}

TEST_F(CpuPluginAbi, SumOverDimHasKeepdimLayout) {
  Tensor x = Tensor::of<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor rows = Tensor::of<float>({2, 1}, {0, 0});
  std::vector<int64_t> dim1{1}, dim0{0};
  ASSERT_EQ(run("sum", EMBER_DTYPE_FLOAT32, {&x}, {&rows},
                {ints_attr("dims", dim1), int_attr("keepdim", 1, EMBER_ATTR_BOOL)}),
            nullptr);
  EXPECT_EQ(rows.values<float>(), (std::vector<float>{6, 15}));
  Tensor cols = Tensor::of<float>({1, 3}, {0, 0, 0});
  ASSERT_EQ(run("sum", EMBER_DTYPE_FLOAT32, {&x}, {&cols},
                {ints_attr("dims", dim0), int_attr("keepdim", 0, EMBER_ATTR_BOOL)}),
            nullptr);
  EXPECT_EQ(cols.values<float>(), (std::vector<float>{5, 7, 9}));
  Tensor ints = Tensor::of<int32_t>({3}, {1, 2, 3});
  Tensor total = Tensor::of<int64_t>({1}, {0});
  ASSERT_EQ(run("sum", EMBER_DTYPE_INT32, {&ints}, {&total}, {int_attr("keepdim", 1)}), nullptr);
  EXPECT_EQ(total.values<int64_t>()[0], 6);
}

TEST_F(CpuPluginAbi, SumOfNonContiguousInput) {
  // x^T of a [2,3] buffer: shape [3,2], strides {1,3}.
  Tensor xt = Tensor::of<float>({3, 2}, {1, 2, 3, 4, 5, 6}, {1, 3});
  Tensor out = Tensor::of<float>({3, 1}, {0, 0, 0});
  std::vector<int64_t> dims{1};
  ASSERT_EQ(run("sum", EMBER_DTYPE_FLOAT32, {&xt}, {&out}, {ints_attr("dims", dims)}), nullptr);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{5, 7, 9}));
  Tensor neg = Tensor::of<float>({3, 2}, std::vector<float>(6));
  ASSERT_EQ(run("neg", EMBER_DTYPE_FLOAT32, {&xt}, {&neg}), nullptr);
  EXPECT_EQ(neg.values<float>(), (std::vector<float>{-1, -4, -2, -5, -3, -6}));
}

// Distance from `exact` in units in the last place of float32.
double ulps_from(float got, double exact) {
  const float rounded = static_cast<float>(exact);
  const double ulp = std::nextafter(std::fabs(rounded), INFINITY) - std::fabs(rounded);
  return std::fabs(got - exact) / ulp;
}

// Contiguous stretches run through libmvec's widest variant the CPU has,
// strided ones through the scalar functions (Note [Vector math clones]);
// both stay within libmvec's 4 ulp, and special values keep their meaning.
TEST_F(CpuPluginAbi, VectorMathIsWithinFourUlpContiguousAndStrided) {
  constexpr int64_t n = 100003;  // not a multiple of any vector width: the loops' tails run too
  std::vector<float> values(n);
  for (int64_t i = 0; i < n; ++i) values[i] = -80.0f + 160.0f * static_cast<float>(i) / n;
  const std::pair<const char*, double (*)(double)> ops[] = {
      {"sin", [](double x) { return std::sin(x); }},
      {"cos", [](double x) { return std::cos(x); }},
      {"exp", [](double x) { return std::exp(x); }},
      {"log", [](double x) { return std::log(std::fabs(x)); }},
  };
  for (const auto& [op, exact] : ops) {
    std::vector<float> input = values;
    if (std::string(op) == "log") {
      for (float& v : input) v = std::fabs(v);
    }
    Tensor contiguous = Tensor::of<float>({n}, input);
    Tensor strided = Tensor::of<float>({n / 2}, input, {2});
    Tensor out = Tensor::of<float>({n}, std::vector<float>(n));
    Tensor strided_out = Tensor::of<float>({n / 2}, std::vector<float>(n / 2));
    ASSERT_EQ(run(op, EMBER_DTYPE_FLOAT32, {&contiguous}, {&out}), nullptr);
    ASSERT_EQ(run(op, EMBER_DTYPE_FLOAT32, {&strided}, {&strided_out}), nullptr);
    const std::vector<float> got = out.values<float>(), got_strided = strided_out.values<float>();
    double worst = 0;
    for (int64_t i = 0; i < n; ++i) worst = std::max(worst, ulps_from(got[i], exact(input[i])));
    for (int64_t i = 0; i < n / 2; ++i) worst = std::max(worst, ulps_from(got_strided[i], exact(input[2 * i])));
    EXPECT_LE(worst, 4.0) << op;
  }
  Tensor special = Tensor::of<float>({4}, {0.0f, INFINITY, -INFINITY, NAN});
  Tensor out = Tensor::of<float>({4}, std::vector<float>(4));
  ASSERT_EQ(run("exp", EMBER_DTYPE_FLOAT32, {&special}, {&out}), nullptr);
  EXPECT_EQ(out.values<float>()[0], 1.0f);
  EXPECT_EQ(out.values<float>()[1], INFINITY);
  EXPECT_EQ(out.values<float>()[2], 0.0f);
  EXPECT_TRUE(std::isnan(out.values<float>()[3]));
  ASSERT_EQ(run("log", EMBER_DTYPE_FLOAT32, {&special}, {&out}), nullptr);
  EXPECT_EQ(out.values<float>()[0], -INFINITY);
  EXPECT_EQ(out.values<float>()[1], INFINITY);
  EXPECT_TRUE(std::isnan(out.values<float>()[2]));
  ASSERT_EQ(run("sin", EMBER_DTYPE_FLOAT32, {&special}, {&out}), nullptr);
  EXPECT_EQ(out.values<float>()[0], 0.0f);
  EXPECT_TRUE(std::isnan(out.values<float>()[1]) && std::isnan(out.values<float>()[2]));
}

TEST_F(CpuPluginAbi, ArgmaxTakesFirstOccurrenceAndNaN) {
  Tensor x = Tensor::of<float>({5}, {1, 3, 3, 2, 0});
  Tensor out = Tensor::of<int64_t>({}, {-1});
  ASSERT_EQ(run("argmax", EMBER_DTYPE_FLOAT32, {&x}, {&out}, {int_attr("dim", -1)}), nullptr);
  EXPECT_EQ(out.values<int64_t>()[0], 1);
  Tensor nan = Tensor::of<float>({2, 3}, {1, NAN, 5, 7, 2, NAN});
  Tensor per_row = Tensor::of<int64_t>({2, 1}, {-1, -1});
  ASSERT_EQ(run("argmax", EMBER_DTYPE_FLOAT32, {&nan}, {&per_row}, {int_attr("dim", 1)}), nullptr);
  EXPECT_EQ(per_row.values<int64_t>(), (std::vector<int64_t>{1, 2}));
  ASSERT_EQ(run("argmin", EMBER_DTYPE_FLOAT32, {&nan}, {&out}, {int_attr("dim", -1)}), nullptr);
  EXPECT_EQ(out.values<int64_t>()[0], 1);
}

TEST_F(CpuPluginAbi, MatmulSmall) {
  Tensor a = Tensor::of<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = Tensor::of<float>({3, 2}, {7, 8, 9, 10, 11, 12});
  Tensor out = Tensor::of<float>({2, 2}, std::vector<float>(4));
  ASSERT_EQ(run("mm", EMBER_DTYPE_FLOAT32, {&a, &b}, {&out}), nullptr);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{58, 64, 139, 154}));
  // b given as the transpose of a row-major [2,3] buffer.
  Tensor bt = Tensor::of<double>({3, 2}, {7, 9, 11, 8, 10, 12}, {1, 3});
  Tensor ad = Tensor::of<double>({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor outd = Tensor::of<double>({2, 2}, std::vector<double>(4));
  ASSERT_EQ(run("mm", EMBER_DTYPE_FLOAT64, {&ad, &bt}, {&outd}), nullptr);
  EXPECT_EQ(outd.values<double>(), (std::vector<double>{58, 64, 139, 154}));
  // A batch expanded with stride 0, as broadcasting produces.
  Tensor a3 = Tensor::of<float>({2, 2, 3}, {1, 2, 3, 4, 5, 6, 0, 0, 1, 1, 0, 0});
  Tensor b3 = Tensor::of<float>({2, 3, 2}, {7, 8, 9, 10, 11, 12}, {0, 2, 1});
  Tensor out3 = Tensor::of<float>({2, 2, 2}, std::vector<float>(8));
  ASSERT_EQ(run("bmm", EMBER_DTYPE_FLOAT32, {&a3, &b3}, {&out3}), nullptr);
  EXPECT_EQ(out3.values<float>(), (std::vector<float>{58, 64, 139, 154, 11, 12, 7, 8}));
  auto bf = [](std::vector<float> v) {
    std::vector<bfloat16> r;
    for (float f : v) r.push_back(bfloat16(f));
    return r;
  };
  Tensor ab = Tensor::of<bfloat16>({1, 2, 3}, bf({1, 2, 3, 4, 5, 6}));
  Tensor bb = Tensor::of<bfloat16>({1, 3, 2}, bf({7, 8, 9, 10, 11, 12}));
  Tensor outb = Tensor::of<bfloat16>({1, 2, 2}, bf({0, 0, 0, 0}));
  ASSERT_EQ(run("bmm", EMBER_DTYPE_BFLOAT16, {&ab, &bb}, {&outb}), nullptr);
  std::vector<float> got;
  for (bfloat16 v : outb.values<bfloat16>()) got.push_back(static_cast<float>(v));
  EXPECT_EQ(got, (std::vector<float>{58, 64, 139, 154}));
}

TEST_F(CpuPluginAbi, IndexSelectOutOfRangeWritesNothing) {
  Tensor x = Tensor::of<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor index = Tensor::of<int64_t>({2}, {2, 5});
  Tensor out = Tensor::of<float>({2, 2}, {-9, -9, -9, -9});
  Status status = run("index_select", EMBER_DTYPE_FLOAT32, {&x, &index}, {&out}, {int_attr("dim", 0)});
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(status->code, EMBER_STATUS_OUT_OF_RANGE);
  EXPECT_NE(status->message.find("index_select"), std::string::npos) << status->message;
  EXPECT_NE(status->message.find("index 5"), std::string::npos) << status->message;
  EXPECT_NE(status->message.find("size 3"), std::string::npos) << status->message;
  EXPECT_EQ(out.values<float>(), (std::vector<float>{-9, -9, -9, -9}));
  // Negative values are the caller's to wrap (ops.md "Indexing").
  index = Tensor::of<int64_t>({2}, {0, -1});
  status = run("index_select", EMBER_DTYPE_FLOAT32, {&x, &index}, {&out}, {int_attr("dim", 0)});
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(status->code, EMBER_STATUS_OUT_OF_RANGE);
  EXPECT_NE(status->message.find("index -1"), std::string::npos) << status->message;
  EXPECT_EQ(out.values<float>(), (std::vector<float>{-9, -9, -9, -9}));
  index = Tensor::of<int64_t>({2}, {2, 0});
  ASSERT_EQ(run("index_select", EMBER_DTYPE_FLOAT32, {&x, &index}, {&out}, {int_attr("dim", 0)}), nullptr);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{5, 6, 1, 2}));
}

TEST_F(CpuPluginAbi, UniformIsSeededAndInRange) {
  auto draw = [](int64_t offset) {
    Tensor out = Tensor::of<float>({1000}, std::vector<float>(1000));
    EXPECT_EQ(run("uniform", EMBER_DTYPE_FLOAT32, {}, {&out},
                  {float_attr("low", -2.0), float_attr("high", 3.0), int_attr("seed", 42),
                   int_attr("offset", offset)}),
              nullptr);
    return out.values<float>();
  };
  const std::vector<float> first = draw(0);
  for (float v : first) {
    EXPECT_GE(v, -2.0f);
    EXPECT_LE(v, 3.0f);
  }
  EXPECT_EQ(first, draw(0));
  const std::vector<float> shifted = draw(10);
  EXPECT_TRUE(std::equal(shifted.begin(), shifted.end() - 10, first.begin() + 10));
  // Philox4x32-10 of counter 0, key 0 starts with 0x6627e8d5 (Random123's
  // known-answer test), so element 0 is (0x6627e8d5 >> 8) * 2^-24.
  Tensor one = Tensor::of<float>({1}, {0.0f});
  ASSERT_EQ(run("uniform", EMBER_DTYPE_FLOAT32, {}, {&one},
                {float_attr("low", 0.0), float_attr("high", 1.0), int_attr("seed", 0),
                 int_attr("offset", 0)}),
            nullptr);
  EXPECT_EQ(one.values<float>()[0], static_cast<float>(0x6627e8 / 16777216.0));
}

}  // namespace
