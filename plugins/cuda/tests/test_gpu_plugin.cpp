// The GPU plugin (EMBER_GPU_DEVICE_TYPE: "cuda" or "rocm") through the
// core. Without a GPU it must load, register a kernel for every primitive
// the CPU plugin serves, and turn every use of the missing device into an
// error that says why; with one, device memory, data-dependent errors and
// the plugin's own reduction, sort and matrix paths are checked against
// the CPU. The conformance kit (ctest conformance_<type>) covers every op.
#include <gtest/gtest.h>

#include <ember/ember.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace ember {
namespace {

const PluginInfo& gpu_plugin() {
  static const PluginInfo info = load_plugin(EMBER_GPU_PLUGIN_PATH);
  return info;
}

Device gpu() { return Device(EMBER_GPU_DEVICE_TYPE); }
Device cpu() { return Device("cpu"); }

// The factorizations the CPU plugin runs on LAPACK have no GPU kernels yet
// (cuSOLVER and rocSOLVER are the libraries for them): exactly these
// primitives are missing, so a kernel that lands must leave this list.
const std::set<std::string> kNotOnGpuYet = {"linalg_cholesky_ex", "linalg_lu_factor_ex", "linalg_solve_triangular",
                                            "linalg_qr",          "linalg_eigh",         "linalg_svd"};

TEST(GpuPluginWithoutDevice, LoadsAndServesEveryPrimitiveTheCpuServes) {
  const PluginInfo& info = gpu_plugin();
  ASSERT_TRUE(info.loaded) << info.error;
  EXPECT_EQ(info.device_type, EMBER_GPU_DEVICE_TYPE);
  std::map<std::string, std::vector<DType>> served;
  for (const OpKernels& k : registered_kernels(EMBER_GPU_DEVICE_TYPE)) served[k.op] = k.dtypes;
  for (const OpKernels& cpu_kernels : registered_kernels("cpu")) {
    const auto op = std::find_if(catalogue_ops().begin(), catalogue_ops().end(),
                                 [&](const CatalogueOp& c) { return c.name == cpu_kernels.op; });
    if (op == catalogue_ops().end() || op->composite) continue;  // fused overrides are optional
    if (kNotOnGpuYet.count(cpu_kernels.op) != 0) {
      EXPECT_EQ(served.count(cpu_kernels.op), 0u) << cpu_kernels.op << " now has a kernel: take it off kNotOnGpuYet";
      continue;
    }
    for (DType dtype : cpu_kernels.dtypes) {
      const std::vector<DType>& dtypes = served[cpu_kernels.op];
      EXPECT_TRUE(std::find(dtypes.begin(), dtypes.end(), dtype) != dtypes.end())
          << cpu_kernels.op << " has no " << EMBER_GPU_DEVICE_TYPE << " kernel for " << dtype_name(dtype);
    }
  }
}

TEST(GpuPluginWithoutDevice, UsingAMissingDeviceIsAnErrorThatSaysWhy) {
  ASSERT_TRUE(gpu_plugin().loaded);
  if (device_count(EMBER_GPU_DEVICE_TYPE) > 0) GTEST_SKIP() << "a GPU is present";
  try {
    ones({2}, TensorOptions(DType::Float32, gpu()));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(EMBER_GPU_DEVICE_TYPE ":0 does not exist: the plugin found no device"),
              std::string::npos)
        << e.what();
  }
}

class Gpu : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(gpu_plugin().loaded) << gpu_plugin().error;
    if (device_count(EMBER_GPU_DEVICE_TYPE) == 0) GTEST_SKIP() << "no " EMBER_GPU_DEVICE_TYPE " device on this machine";
  }
};

TEST_F(Gpu, ViewsWithOffsetsCopyBothWaysIncludingThroughStaging) {
  const Tensor host = arange(0, 24, 1, TensorOptions(DType::Float32)).reshape({6, 4});
  const Tensor device = host.to(gpu());
  EXPECT_EQ(device.narrow(0, 2, 3).to(cpu()).tolist<float>(), host.narrow(0, 2, 3).tolist<float>());
  EXPECT_EQ(device.t().to(cpu()).tolist<float>(), host.t().tolist<float>());
  Tensor target = zeros({6, 4}, TensorOptions(DType::Float32, gpu()));
  Tensor rows = target.narrow(0, 4, 2);
  rows.copy_(host.narrow(0, 0, 2));
  EXPECT_EQ(target.narrow(0, 4, 2).to(cpu()).tolist<float>(), host.narrow(0, 0, 2).tolist<float>());
  // 40 MB crosses the pinned staging buffers in several chunks each way.
  const Tensor big = arange(0, 10'000'000, 1, TensorOptions(DType::Float32));
  EXPECT_EQ(big.to(gpu()).to(cpu()).tolist<float>(), big.tolist<float>());
}

TEST_F(Gpu, IndexOutOfRangeIsAnError) {
  const Tensor x = ones({3}, TensorOptions(DType::Float32, gpu()));
  const Tensor index = tensor<int64_t>(std::vector<int64_t>{0, 7}).to(gpu());
  try {
    index_select(x, 0, index).to(cpu());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Index) << e.what();
  }
}

TEST_F(Gpu, IntegerDivisionByZeroIsAnError) {
  const Tensor a = tensor<int64_t>(std::vector<int64_t>{5, 6}).to(gpu());
  const Tensor b = tensor<int64_t>(std::vector<int64_t>{1, 0}).to(gpu());
  try {
    floor_divide(a, b).to(cpu());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("integer division by zero"), std::string::npos) << e.what();
  }
}

TEST_F(Gpu, OutOfMemoryIsAnError) {
  try {
    empty({int64_t{1} << 50}, TensorOptions(DType::Float32, gpu()));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::OutOfMemory) << e.what();
  }
}

double max_abs_difference(const Tensor& a, const Tensor& b) {
  return amax(abs(a.to(cpu(), DType::Float64) - b.to(cpu(), DType::Float64))).item<double>();
}

// Sizes that take each reduction path: a thread per output, a block per
// output, and several blocks per output with a second pass.
TEST_F(Gpu, ReductionsMatchTheCpuOnEveryPath) {
  const Tensor x = randn({64, 3000}, TensorOptions(DType::Float32));
  const Tensor big = randn({1 << 22}, TensorOptions(DType::Float32));
  for (const Tensor& t : {x, big}) {
    const Tensor d = t.to(gpu());
    EXPECT_LT(max_abs_difference(sum(d), sum(t)), 1e-2 * std::sqrt(double(t.numel())));
    EXPECT_EQ(argmax(d).item<int64_t>(), argmax(t).item<int64_t>());
    EXPECT_EQ(amin(d).item<float>(), amin(t).item<float>());
  }
  EXPECT_LT(max_abs_difference(sum(x.to(gpu()), {0}), sum(x, {0})), 1e-3);
  EXPECT_LT(max_abs_difference(mean(x.to(gpu()), {1}), mean(x, {1})), 1e-5);
  EXPECT_EQ(argmax(x.to(gpu()), 1).to(cpu()).tolist<int64_t>(), argmax(x, 1).tolist<int64_t>());
}

TEST_F(Gpu, SortIsStableAndPutsNaNLast) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = tensor<float>(std::vector<float>{3, nan, 1, 3, -2, 1, nan, 0});
  const ValuesIndices ascending = sort(x.to(gpu()), 0, false, true);
  EXPECT_EQ(ascending.indices.to(cpu()).tolist<int64_t>(), (std::vector<int64_t>{4, 7, 2, 5, 0, 3, 1, 6}));
  const ValuesIndices descending = sort(x.to(gpu()), 0, true, true);
  EXPECT_EQ(descending.indices.to(cpu()).tolist<int64_t>(), (std::vector<int64_t>{1, 6, 0, 3, 2, 5, 7, 4}));
  const Tensor rows = randn({37, 1000}, TensorOptions(DType::Float32));
  const ValuesIndices on_gpu = sort(rows.to(gpu()), 1, false, true);
  const ValuesIndices on_cpu = sort(rows, 1, false, true);
  EXPECT_EQ(on_gpu.indices.to(cpu()).tolist<int64_t>(), on_cpu.indices.tolist<int64_t>());
}

TEST_F(Gpu, MatrixProductsOfAnyLayoutMatchTheCpu) {
  const Tensor a = randn({130, 70}, TensorOptions(DType::Float32));
  const Tensor b = randn({70, 90}, TensorOptions(DType::Float32));
  EXPECT_LT(max_abs_difference(mm(a.to(gpu()), b.to(gpu())), mm(a, b)), 1e-3);
  // Column-major operands (transposed for BLAS), and a row of a wider matrix.
  const Tensor a_columns = a.t().contiguous().t();
  EXPECT_LT(max_abs_difference(mm(a_columns.to(gpu()), b.to(gpu())), mm(a, b)), 1e-3);
  const Tensor wide = randn({70, 200}, TensorOptions(DType::Float32));
  EXPECT_LT(max_abs_difference(mm(a.to(gpu()), wide.to(gpu()).narrow(1, 10, 90)), mm(a, wide.narrow(1, 10, 90))),
            1e-3);
  const Tensor batched_a = randn({3, 33, 17}, TensorOptions(DType::Float64));
  const Tensor batched_b = randn({3, 17, 5}, TensorOptions(DType::Float64));
  EXPECT_LT(max_abs_difference(bmm(batched_a.to(gpu()), batched_b.to(gpu())), bmm(batched_a, batched_b)), 1e-12);
  const Tensor half_a = a.to(DType::BFloat16), half_b = b.to(DType::BFloat16);
  EXPECT_LT(max_abs_difference(mm(half_a.to(gpu()), half_b.to(gpu())), mm(half_a, half_b)), 0.25);
}

}  // namespace
}  // namespace ember
