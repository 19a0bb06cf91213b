// Kernels on the work-claiming pool (Note [Kernel parallel loop]): the
// plugin compiles them, and this process loads them with its own copy of
// the generator (ember_cpu_codegen_core), so that they run on this
// process's pool, whose thread count the tests set. Results are bitwise the
// same on 1 and 2 threads, a fault in any chunk fails the launch, and only
// kernels large enough for threads wake the pool. This process's pool
// names its workers "ember-cpu", the default; the plugin's own pool, which
// only the last test starts, names them "ember-codegen".
#include <dirent.h>
#include <gtest/gtest.h>

#include <ember/sdk/status.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../../num_threads.h"
#include "../loaded_kernel.h"
#include "codegen_harness.h"

namespace ember::cpu_codegen::testing {
namespace {

// A kernel the plugin compiled, loaded into this process.
std::unique_ptr<LoadedKernel> load_here(const std::string& ir) {
  const Compiled compiled = Codegen::get().compile(ir);
  if (!compiled.status.ok) {
    ADD_FAILURE() << "compile failed: " << compiled.status.message << "\n" << compiled.source;
    return nullptr;
  }
  return std::make_unique<LoadedKernel>(compiled.binary.data(), compiled.binary.size());
}

// Launches on a pool of `threads` threads; throws sdk::Error as the
// plugin's launch would return it.
void launch_on(int threads, const LoadedKernel& kernel, const std::vector<DLTensor*>& buffers,
               const std::vector<int64_t>& params = {}) {
  cpu::set_num_threads(threads);
  std::vector<DLTensor> tensors;
  for (DLTensor* t : buffers) tensors.push_back(*t);
  ember_codegen_launch_args args{};
  args.struct_size = sizeof args;
  args.buffers = tensors.data();
  args.num_buffers = static_cast<int64_t>(tensors.size());
  args.params = params.data();
  args.num_params = static_cast<int64_t>(params.size());
  kernel.launch(args);
}

// The output's bytes after a launch on 1 and on 2 threads.
template <class T>
std::vector<std::vector<T>> on_one_and_two_threads(const LoadedKernel& kernel, const std::vector<DLTensor*>& buffers,
                                                   HostBuffer& out) {
  std::vector<std::vector<T>> results;
  for (int threads = 1; threads <= 2; ++threads) {
    std::memset(out.as<T>(), 0, static_cast<size_t>(out.tensor().shape[0]) * sizeof(T));
    launch_on(threads, kernel, buffers);
    results.push_back(out.values<T>());
  }
  return results;
}

template <class T>
bool bitwise_equal(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// The threads of this process named `worker_name`.
int threads_named(const std::string& worker_name) {
  int workers = 0;
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return -1;
  while (const dirent* task = readdir(tasks)) {
    if (task->d_name[0] == '.') continue;
    std::ifstream comm(std::string("/proc/self/task/") + task->d_name + "/comm");
    std::string name;
    if (std::getline(comm, name) && name == worker_name) ++workers;
  }
  closedir(tasks);
  return workers;
}

std::string negate_ir(int64_t n) {
  return R"({"ekir":"1.0","name":"negate","params":0,
 "buffers":[{"dtype":"float32","role":"input"},{"dtype":"float32","role":"output"}],
 "outer":[)" +
         std::to_string(n) +
         R"(],
 "loops":[{"extents":[],"body":[
   {"id":0,"op":"load","dtype":"float32","buffer":0,"offset":0,"strides":[1]},
   {"id":1,"op":"neg","dtype":"float32","args":[0]},
   {"id":2,"op":"store","buffer":1,"offset":0,"strides":[1],"args":[1]}]}]})";
}

TEST(CpuCodegenPool, LargeKernelsRunOnThePoolAndSmallOnesOnTheCaller) {
  const int64_t small = 1000, large = 200000;
  const std::unique_ptr<LoadedKernel> small_kernel = load_here(negate_ir(small));
  const std::unique_ptr<LoadedKernel> large_kernel = load_here(negate_ir(large));
  ASSERT_TRUE(small_kernel && large_kernel);
  HostBuffer x(EMBER_DTYPE_FLOAT32, large), out(EMBER_DTYPE_FLOAT32, large);
  for (int64_t i = 0; i < large; ++i) x.as<float>()[i] = static_cast<float>(i);
  // Whatever earlier tests started, a count above it needs more workers.
  const int before = threads_named("ember-cpu");
  ASSERT_GE(before, 0) << "no /proc/self/task";
  launch_on(before + 2, *small_kernel, {&x.tensor(), &out.tensor()});
  EXPECT_EQ(threads_named("ember-cpu"), before) << "a kernel of " << small << " elements woke the pool";
  EXPECT_EQ(out.as<float>()[small - 1], -static_cast<float>(small - 1));
  launch_on(before + 2, *large_kernel, {&x.tensor(), &out.tensor()});
  EXPECT_EQ(threads_named("ember-cpu"), before + 1) << "a kernel of " << large << " elements ran without the pool";
  EXPECT_EQ(out.as<float>()[large - 1], -static_cast<float>(large - 1));
}

// sin(cos(x)): tasks of outer points.
TEST(CpuCodegenPool, PointwiseResultsAreBitwiseEqualOnOneAndTwoThreads) {
  const int64_t n = 300007;
  const std::unique_ptr<LoadedKernel> kernel = load_here(R"({"ekir":"1.0","name":"sin_cos","params":0,
 "buffers":[{"dtype":"float32","role":"input"},{"dtype":"float32","role":"output"}],
 "outer":[300007],
 "loops":[{"extents":[],"body":[
   {"id":0,"op":"load","dtype":"float32","buffer":0,"offset":0,"strides":[1]},
   {"id":1,"op":"cos","dtype":"float32","args":[0]},
   {"id":2,"op":"sin","dtype":"float32","args":[1]},
   {"id":3,"op":"store","buffer":1,"offset":0,"strides":[1],"args":[2]}]}]})");
  ASSERT_TRUE(kernel);
  HostBuffer x(EMBER_DTYPE_FLOAT32, n), out(EMBER_DTYPE_FLOAT32, n);
  for (int64_t i = 0; i < n; ++i) x.as<float>()[i] = 0.001f * static_cast<float>(i - n / 2);
  const auto results = on_one_and_two_threads<float>(*kernel, {&x.tensor(), &out.tensor()}, out);
  EXPECT_TRUE(bitwise_equal(results[0], results[1]));
  for (int64_t i : {int64_t{0}, n / 3, n - 1}) {
    EXPECT_NEAR(results[1][i], std::sin(std::cos(static_cast<double>(x.as<float>()[i]))), 1e-6) << i;
  }
}

// Row sums of a [600, 1000] float64 matrix: tasks of rows, each reducing
// its row.
TEST(CpuCodegenPool, RowSumsAreBitwiseEqualOnOneAndTwoThreads) {
  const int64_t rows = 600, cols = 1000;
  const std::unique_ptr<LoadedKernel> kernel = load_here(R"({"ekir":"1.0","name":"row_sum","params":0,
 "buffers":[{"dtype":"float64","role":"input"},{"dtype":"float64","role":"output"}],
 "outer":[600],
 "loops":[{"extents":[1000],"body":[
     {"id":0,"op":"load","dtype":"float64","buffer":0,"offset":0,"strides":[1000,1]},
     {"id":1,"op":"reduce","kind":"sum","dtype":"float64","args":[0]}]},
   {"extents":[],"body":[
     {"id":2,"op":"store","buffer":1,"offset":0,"strides":[1],"args":[1]}]}]})");
  ASSERT_TRUE(kernel);
  HostBuffer x(EMBER_DTYPE_FLOAT64, rows * cols), out(EMBER_DTYPE_FLOAT64, rows);
  for (int64_t i = 0; i < rows * cols; ++i) x.as<double>()[i] = std::sin(0.37 * static_cast<double>(i));
  const auto results = on_one_and_two_threads<double>(*kernel, {&x.tensor(), &out.tensor()}, out);
  EXPECT_TRUE(bitwise_equal(results[0], results[1]));
  for (int64_t r = 0; r < rows; ++r) {
    long double expected = 0;
    for (int64_t c = 0; c < cols; ++c) expected += x.as<double>()[r * cols + c];
    ASSERT_NEAR(results[1][r], static_cast<double>(expected), 1e-12) << "row " << r;
  }
}

// softmax down the columns of a [150, 600] matrix, each column scaled
// first: the loops read along the outer dimension, so blocks of columns
// run together (Note [Column blocks]), sized by the thread count.
TEST(CpuCodegenPool, ColumnSoftmaxIsBitwiseEqualOnOneAndTwoThreads) {
  const int64_t rows = 150, cols = 600;
  const std::unique_ptr<LoadedKernel> kernel = load_here(R"({"ekir":"1.0","name":"column_softmax","params":0,
 "buffers":[{"dtype":"float32","role":"input"},{"dtype":"float32","role":"input"},{"dtype":"float32","role":"output"}],
 "outer":[600],
 "loops":[{"extents":[],"body":[
     {"id":0,"op":"load","dtype":"float32","buffer":1,"offset":0,"strides":[1]}]},
   {"extents":[150],"body":[
     {"id":1,"op":"load","dtype":"float32","buffer":0,"offset":0,"strides":[1,600]},
     {"id":2,"op":"mul","dtype":"float32","args":[1,0]},
     {"id":3,"op":"reduce","kind":"max","dtype":"float32","args":[2]}]},
   {"extents":[150],"body":[
     {"id":4,"op":"load","dtype":"float32","buffer":0,"offset":0,"strides":[1,600]},
     {"id":5,"op":"mul","dtype":"float32","args":[4,0]},
     {"id":6,"op":"sub","dtype":"float32","args":[5,3]},
     {"id":7,"op":"exp","dtype":"float32","args":[6]},
     {"id":8,"op":"reduce","kind":"sum","dtype":"float32","args":[7]}]},
   {"extents":[150],"body":[
     {"id":9,"op":"load","dtype":"float32","buffer":0,"offset":0,"strides":[1,600]},
     {"id":10,"op":"mul","dtype":"float32","args":[9,0]},
     {"id":11,"op":"sub","dtype":"float32","args":[10,3]},
     {"id":12,"op":"exp","dtype":"float32","args":[11]},
     {"id":13,"op":"div","dtype":"float32","args":[12,8]},
     {"id":14,"op":"store","buffer":2,"offset":0,"strides":[1,600],"args":[13]}]}]})");
  ASSERT_TRUE(kernel);
  HostBuffer x(EMBER_DTYPE_FLOAT32, rows * cols), scale(EMBER_DTYPE_FLOAT32, cols),
      out(EMBER_DTYPE_FLOAT32, rows * cols);
  for (int64_t i = 0; i < rows * cols; ++i) x.as<float>()[i] = 4.0f * std::sin(0.07f * static_cast<float>(i));
  for (int64_t c = 0; c < cols; ++c) scale.as<float>()[c] = 0.5f + 0.001f * static_cast<float>(c);
  const auto results = on_one_and_two_threads<float>(*kernel, {&x.tensor(), &scale.tensor(), &out.tensor()}, out);
  EXPECT_TRUE(bitwise_equal(results[0], results[1]));
  for (int64_t c = 0; c < cols; ++c) {
    const float s = scale.as<float>()[c];
    auto scaled = [&](int64_t r) { return static_cast<double>(x.as<float>()[r * cols + c] * s); };
    double max = -INFINITY, sum = 0;
    for (int64_t r = 0; r < rows; ++r) max = std::max(max, scaled(r));
    for (int64_t r = 0; r < rows; ++r) sum += std::exp(scaled(r) - max);
    for (int64_t r = 0; r < rows; ++r) {
      const double expected = std::exp(scaled(r) - max) / sum;
      ASSERT_NEAR(results[1][r * cols + c], expected, 1e-6 * expected + 1e-9) << r << ", " << c;
    }
  }
}

// x.sum() over 3M doubles (outer []): split into chunks by the extent
// alone and combined in order (float32 sums accumulate in float64, where
// a split that followed the thread count would rarely show).
TEST(CpuCodegenPool, FullSumIsAccurateAndBitwiseEqualOnOneAndTwoThreads) {
  const int64_t n = 3000001;
  const std::unique_ptr<LoadedKernel> kernel = load_here(R"({"ekir":"1.0","name":"full_sum","params":0,
 "buffers":[{"dtype":"float64","role":"input"},{"dtype":"float64","role":"output"}],
 "outer":[],
 "loops":[{"extents":[3000001],"body":[
     {"id":0,"op":"load","dtype":"float64","buffer":0,"offset":0,"strides":[1]},
     {"id":1,"op":"reduce","kind":"sum","dtype":"float64","args":[0]}]},
   {"extents":[],"body":[{"id":2,"op":"store","buffer":1,"offset":0,"strides":[],"args":[1]}]}],
 "hints":{"deterministic":true}})");
  ASSERT_TRUE(kernel);
  HostBuffer x(EMBER_DTYPE_FLOAT64, n), out(EMBER_DTYPE_FLOAT64, 1);
  long double expected = 0;
  for (int64_t i = 0; i < n; ++i) {
    x.as<double>()[i] = 1.0 + 0.5 * std::sin(0.001 * static_cast<double>(i));
    expected += x.as<double>()[i];
  }
  const auto results = on_one_and_two_threads<double>(*kernel, {&x.tensor(), &out.tensor()}, out);
  EXPECT_TRUE(bitwise_equal(results[0], results[1])) << results[0][0] << " vs " << results[1][0];
  EXPECT_NEAR(results[1][0], static_cast<double>(expected), 1e-12 * static_cast<double>(expected));
}

// An integer division by zero in the last element: the chunk that meets it
// may run on a worker, and its fault still fails the launch, for tasks of
// outer points and for the chunks of a split reduction alike.
TEST(CpuCodegenPool, AFaultInAnyChunkFailsTheLaunch) {
  const int64_t n = 200000;
  const std::string divide = R"({"ekir":"1.0","name":"divide","params":0,
 "buffers":[{"dtype":"int32","role":"input"},{"dtype":"int32","role":"input"},{"dtype":"int32","role":"output"}],
 "outer":[200000],
 "loops":[{"extents":[],"body":[
   {"id":0,"op":"load","dtype":"int32","buffer":0,"offset":0,"strides":[1]},
   {"id":1,"op":"load","dtype":"int32","buffer":1,"offset":0,"strides":[1]},
   {"id":2,"op":"floor_divide","dtype":"int32","args":[0,1]},
   {"id":3,"op":"store","buffer":2,"offset":0,"strides":[1],"args":[2]}]}]})";
  const std::string divide_and_sum = R"({"ekir":"1.0","name":"divide_and_sum","params":0,
 "buffers":[{"dtype":"int32","role":"input"},{"dtype":"int32","role":"input"},{"dtype":"int32","role":"output"}],
 "outer":[],
 "loops":[{"extents":[200000],"body":[
     {"id":0,"op":"load","dtype":"int32","buffer":0,"offset":0,"strides":[1]},
     {"id":1,"op":"load","dtype":"int32","buffer":1,"offset":0,"strides":[1]},
     {"id":2,"op":"floor_divide","dtype":"int32","args":[0,1]},
     {"id":3,"op":"reduce","kind":"sum","dtype":"int32","args":[2]}]},
   {"extents":[],"body":[{"id":4,"op":"store","buffer":2,"offset":0,"strides":[],"args":[3]}]}]})";
  HostBuffer a(EMBER_DTYPE_INT32, n), b(EMBER_DTYPE_INT32, n), out(EMBER_DTYPE_INT32, n);
  for (int64_t i = 0; i < n; ++i) {
    a.as<int32_t>()[i] = static_cast<int32_t>(i);
    b.as<int32_t>()[i] = 3;
  }
  for (const std::string& ir : {divide, divide_and_sum}) {
    const std::unique_ptr<LoadedKernel> kernel = load_here(ir);
    ASSERT_TRUE(kernel);
    b.as<int32_t>()[n - 1] = 3;
    for (int threads = 1; threads <= 2; ++threads) {
      EXPECT_NO_THROW(launch_on(threads, *kernel, {&a.tensor(), &b.tensor(), &out.tensor()})) << threads;
    }
    b.as<int32_t>()[n - 1] = 0;
    for (int threads = 1; threads <= 2; ++threads) {
      try {
        launch_on(threads, *kernel, {&a.tensor(), &b.tensor(), &out.tensor()});
        ADD_FAILURE() << "no fault on " << threads << " threads:\n" << ir;
      } catch (const sdk::Error& error) {
        EXPECT_EQ(error.code(), EMBER_STATUS_INVALID_ARGUMENT);
        EXPECT_STREQ(error.what(), "integer division by zero");
      }
    }
  }
}

// Launched through the plugin, a kernel runs on the plugin's pool, of the
// default count, whose workers are told apart from the CPU plugin's.
TEST(CpuCodegenPool, ThePluginsOwnPoolNamesItsWorkersEmberCodegen) {
  const int64_t n = 200000;
  const std::optional<Kernel> kernel = Codegen::get().build(negate_ir(n));
  ASSERT_TRUE(kernel);
  HostBuffer x(EMBER_DTYPE_FLOAT32, n), out(EMBER_DTYPE_FLOAT32, n);
  for (int64_t i = 0; i < n; ++i) x.as<float>()[i] = static_cast<float>(i);
  const int cpu_workers = threads_named("ember-cpu");
  const StatusCopy status = kernel->launch({&x.tensor(), &out.tensor()});
  ASSERT_TRUE(status.ok) << status.message;
  EXPECT_EQ(out.as<float>()[n - 1], -static_cast<float>(n - 1));
  EXPECT_EQ(threads_named("ember-codegen"), cpu::default_num_threads() - 1);
  EXPECT_EQ(threads_named("ember-cpu"), cpu_workers);
}

}  // namespace
}  // namespace ember::cpu_codegen::testing
