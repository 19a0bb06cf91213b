// The xpu plugin's OpenCL C generator through its C ABI, loaded by the
// conformance kit's harness: every op on every dtype the device serves
// builds, the integer, bool and reduced-float rules hold on the device,
// and blobs or launches it did not write or cannot run are refused.
#include <gtest/gtest.h>

#include <ember/ember_plugin.h>
#include <ember/kernel_ir/ekir.h>
#include <ember/sdk/dtypes.hpp>

#include <cstring>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ekir_cases.h"
#include "plugin_harness.h"

namespace ember::xpu::testing {
namespace {

using conformance::StatusCopy;
using conformance::take_status;

struct Sink {
  ember_codegen_output output{};
  std::string artifacts[4];
  Sink() {
    output.struct_size = sizeof output;
    output.write = [](ember_codegen_output* out, ember_codegen_artifact artifact, const void* data,
                      size_t size) -> ember_status* {
      static_cast<Sink*>(out->host_context)->artifacts[artifact].append(static_cast<const char*>(data), size);
      return nullptr;
    };
    output.host_context = this;
  }
};

class Plugin {
 public:
  static Plugin& get() {
    static Plugin plugin;
    return plugin;
  }
  const ember_codegen_extension& codegen() const { return *codegen_; }
  const ember_device_api& device() const { return *harness_.device(); }
  int32_t device_count() const { return count_; }

 private:
  Plugin() : harness_(EMBER_XPU_PLUGIN_PATH) {
    harness_.init_and_register();
    for (const ember_extension* e = harness_.plugin().extension; e != nullptr; e = e->next) {
      if (e->type == EMBER_EXTENSION_CODEGEN) codegen_ = reinterpret_cast<const ember_codegen_extension*>(e);
    }
    take_status(harness_.device()->device_count(&count_));
  }
  conformance::PluginHarness harness_;
  const ember_codegen_extension* codegen_ = nullptr;
  int32_t count_ = 0;
};

// A 1-D buffer on device 0 with its DLTensor.
class DeviceBuffer {
 public:
  DeviceBuffer(ember_dtype dtype, int64_t numel) : dtype_(dtype), numel_(numel) {
    bytes_ = static_cast<size_t>(numel) * sdk::element_size(dtype);
    EXPECT_TRUE(take_status(Plugin::get().device().allocate(0, std::max<size_t>(bytes_, 64), 64, &data_)).ok);
    tensor_.data = data_;
    tensor_.device = {kDLOpenCL, 0};
    tensor_.ndim = 1;
    tensor_.dtype = sdk::to_dl_dtype(dtype);
    tensor_.shape = &numel_;
  }
  ~DeviceBuffer() { take_status(Plugin::get().device().deallocate(0, data_)); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  template <class T>
  void write(const std::vector<T>& values) {
    ASSERT_EQ(values.size() * sizeof(T), bytes_);
    copy(EMBER_COPY_HOST_TO_DEVICE, values.data(), data_);
  }
  template <class T>
  std::vector<T> read() {
    std::vector<T> values(bytes_ / sizeof(T));
    copy(EMBER_COPY_DEVICE_TO_HOST, data_, values.data());
    return values;
  }
  DLTensor& tensor() { return tensor_; }

 private:
  void copy(ember_copy_kind kind, const void* src, void* dst) {
    ember_copy_args args{};
    args.struct_size = sizeof args;
    args.kind = kind;
    args.src = src;
    args.dst = dst;
    args.num_bytes = bytes_;
    EXPECT_TRUE(take_status(Plugin::get().device().copy(&args)).ok);
  }
  ember_dtype dtype_;
  int64_t numel_;
  size_t bytes_ = 0;
  void* data_ = nullptr;
  DLTensor tensor_{};
};

struct Compiled {
  StatusCopy status;
  std::string blob, source;
};

Compiled compile(const std::string& ir) {
  Sink sink;
  Compiled c;
  c.status = take_status(Plugin::get().codegen().compile(ir.data(), ir.size(), "{}", &sink.output));
  c.blob = sink.artifacts[EMBER_CODEGEN_BINARY];
  c.source = sink.artifacts[EMBER_CODEGEN_SOURCE];
  return c;
}

StatusCopy load(const std::string& blob, ember_codegen_kernel_t* kernel) {
  return take_status(Plugin::get().codegen().load(blob.data(), blob.size(), kernel));
}

// Compiles, loads and launches `ir` once on `buffers`.
StatusCopy run(const std::string& ir, const std::vector<DLTensor*>& buffers, const std::vector<int64_t>& params = {}) {
  const Compiled c = compile(ir);
  if (!c.status.ok) return c.status;
  ember_codegen_kernel_t kernel = nullptr;
  StatusCopy loaded = load(c.blob, &kernel);
  if (!loaded.ok) return loaded;
  std::vector<DLTensor> tensors;
  for (DLTensor* t : buffers) tensors.push_back(*t);
  ember_codegen_launch_args args{};
  args.struct_size = sizeof args;
  args.buffers = tensors.data();
  args.num_buffers = static_cast<int64_t>(tensors.size());
  args.params = params.data();
  args.num_params = static_cast<int64_t>(params.size());
  StatusCopy launched = take_status(Plugin::get().codegen().launch(kernel, &args));
  EXPECT_TRUE(take_status(Plugin::get().codegen().unload(kernel)).ok);
  return launched;
}

class XpuCodegen : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(&Plugin::get().codegen(), nullptr);
    if (Plugin::get().device_count() == 0) GTEST_SKIP() << "no OpenCL device (install pocl-opencl-icd for PoCL)";
  }
};

bool dtype_served(const std::string& name) {
  std::istringstream list(Plugin::get().codegen().dtypes);
  for (std::string d; list >> d;) {
    if (d == name) return true;
  }
  return false;
}

std::vector<ember_dtype> served_dtypes() {
  std::vector<ember_dtype> dtypes;
  for (int d = 0; d < EMBER_DTYPE_COUNT_V1_0; ++d) {
    if (dtype_served(sdk::dtype_name(static_cast<ember_dtype>(d)))) dtypes.push_back(static_cast<ember_dtype>(d));
  }
  return dtypes;
}

std::string every_op_kernel(ember_dtype dtype) { return kernel_ir::testing::every_op_kernel(dtype, served_dtypes()); }

TEST_F(XpuCodegen, EveryOpBuildsOnEveryServedDtype) {
  for (ember_dtype dtype : served_dtypes()) {
    const Compiled c = compile(every_op_kernel(dtype));
    EXPECT_TRUE(c.status.ok) << sdk::dtype_name(dtype) << ": " << c.status.message << "\n" << c.source;
  }
}

TEST_F(XpuCodegen, ReductionShapedKernelsRunAsEagerWould) {
  for (const auto& [name, ir] : kernel_ir::testing::reduction_kernels()) {
    const Compiled c = compile(ir);
    EXPECT_TRUE(c.status.ok) << name << ": " << c.status.message << "\n" << c.source;
  }
  // Column sums and products of a [7, 5] int64 matrix, and whether each
  // column is all positive.
  DeviceBuffer in(EMBER_DTYPE_INT64, 35), sums(EMBER_DTYPE_INT64, 5), positive(EMBER_DTYPE_BOOL, 5),
      products(EMBER_DTYPE_INT64, 5);
  std::vector<int64_t> values(35);
  for (int i = 0; i < 35; ++i) values[i] = i % 5 == 3 ? -i : i + 1;
  in.write(values);
  ASSERT_TRUE(
      run(kernel_ir::testing::kColumnSums, {&in.tensor(), &sums.tensor(), &positive.tensor(), &products.tensor()}).ok);
  std::vector<int64_t> expected_sums(5, 0), expected_products(5, 1);
  for (int i = 0; i < 35; ++i) {
    expected_sums[i % 5] += values[i];
    expected_products[i % 5] *= values[i];
  }
  EXPECT_EQ(sums.read<int64_t>(), expected_sums);
  EXPECT_EQ(products.read<int64_t>(), expected_products);
  EXPECT_EQ(positive.read<uint8_t>(), (std::vector<uint8_t>{1, 1, 1, 0, 1}));
}

TEST_F(XpuCodegen, IntegersWrapAndDivideAsTheCatalogueSays) {
  // int8: a + b wraps, floor_divide rounds towards negative infinity, and a
  // row's max reduces across the work-group.
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
  DeviceBuffer a(EMBER_DTYPE_INT8, 6), b(EMBER_DTYPE_INT8, 6), sum(EMBER_DTYPE_INT8, 6), quotient(EMBER_DTYPE_INT8, 6),
      max(EMBER_DTYPE_INT8, 2);
  a.write<int8_t>({127, -7, 7, -128, 5, 100});
  b.write<int8_t>({1, 2, -2, -1, 3, 100});
  const StatusCopy status = run(ir, {&a.tensor(), &b.tensor(), &sum.tensor(), &quotient.tensor(), &max.tensor()});
  ASSERT_TRUE(status.ok) << status.message;
  EXPECT_EQ(sum.read<int8_t>(), (std::vector<int8_t>{-128, -5, 5, 127, 8, -56}));
  EXPECT_EQ(quotient.read<int8_t>(), (std::vector<int8_t>{127, -4, -4, -128, 1, 1}));
  EXPECT_EQ(max.read<int8_t>(), (std::vector<int8_t>{127, 100}));
}

TEST_F(XpuCodegen, AnEmptyReductionYieldsItsIdentityAndADivisionByZeroFails) {
  const std::string ir = R"({"ekir":"1.0","name":"empty_max","params":1,
   "buffers":[{"dtype":"int32","role":"input"},{"dtype":"int32","role":"output"}],
   "outer":[2],
   "loops":[{"extents":["p0"],"body":[
     {"id":0,"op":"load","dtype":"int32","buffer":0,"offset":0,"strides":[0,1]},
     {"id":1,"op":"reduce","kind":"max","dtype":"int32","args":[0]}]},
    {"extents":[],"body":[{"id":2,"op":"store","buffer":1,"offset":0,"strides":[1],"args":[1]}]}]})";
  DeviceBuffer in(EMBER_DTYPE_INT32, 1), out(EMBER_DTYPE_INT32, 2);
  in.write<int32_t>({5});
  ASSERT_TRUE(run(ir, {&in.tensor(), &out.tensor()}, {0}).ok);
  EXPECT_EQ(out.read<int32_t>(), (std::vector<int32_t>{INT32_MIN, INT32_MIN}));

  const std::string divide = R"({"ekir":"1.0","name":"divide","params":0,
   "buffers":[{"dtype":"int32","role":"input"},{"dtype":"int32","role":"output"}],
   "outer":[1],
   "loops":[{"extents":[],"body":[
     {"id":0,"op":"load","dtype":"int32","buffer":0,"offset":0,"strides":[1]},
     {"id":1,"op":"const","dtype":"int32","value":0},
     {"id":2,"op":"remainder","dtype":"int32","args":[0,1]},
     {"id":3,"op":"store","buffer":1,"offset":0,"strides":[1],"args":[2]}]}]})";
  const StatusCopy status = run(divide, {&in.tensor(), &out.tensor()});
  EXPECT_EQ(status.code, EMBER_STATUS_INVALID_ARGUMENT) << status.message;
  EXPECT_NE(status.message.find("integer division by zero"), std::string::npos) << status.message;
}

TEST_F(XpuCodegen, ReducedFloatsRoundToNearestEvenAtEveryInstruction) {
  // 1 + 2^-9 is not a bfloat16 (whose spacing at 1 is 2^-7): the sum
  // rounds to 1 before it is stored, as eager kernels round it.
  const std::string ir = R"({"ekir":"1.0","name":"bf16_add","params":0,
   "buffers":[{"dtype":"bfloat16","role":"input"},{"dtype":"bfloat16","role":"output"}],
   "outer":[1],
   "loops":[{"extents":[],"body":[
     {"id":0,"op":"load","dtype":"bfloat16","buffer":0,"offset":0,"strides":[1]},
     {"id":1,"op":"const","dtype":"bfloat16","value":0.001953125},
     {"id":2,"op":"add","dtype":"bfloat16","args":[0,1]},
     {"id":3,"op":"store","buffer":1,"offset":0,"strides":[1],"args":[2]}]}]})";
  DeviceBuffer in(EMBER_DTYPE_BFLOAT16, 1), out(EMBER_DTYPE_BFLOAT16, 1);
  in.write<uint16_t>({0x3f80});  // 1.0
  ASSERT_TRUE(run(ir, {&in.tensor(), &out.tensor()}).ok);
  EXPECT_EQ(out.read<uint16_t>(), std::vector<uint16_t>{0x3f80});
}

TEST_F(XpuCodegen, PointwiseKernelsRunAWorkItemPerPointAndReductionsAGroup) {
  const std::string pointwise = R"({"ekir":"1.0","name":"sin","params":0,
   "buffers":[{"dtype":"float32","role":"input"},{"dtype":"float32","role":"output"}],"outer":[8],
   "loops":[{"extents":[],"body":[
     {"id":0,"op":"load","dtype":"float32","buffer":0,"offset":0,"strides":[1]},
     {"id":1,"op":"sin","dtype":"float32","args":[0]},
     {"id":2,"op":"store","buffer":1,"offset":0,"strides":[1],"args":[1]}]}]})";
  const Compiled p = compile(pointwise);
  ASSERT_TRUE(p.status.ok) << p.status.message;
  EXPECT_NE(p.source.find("get_global_id(0)"), std::string::npos) << p.source;
  EXPECT_EQ(p.source.find("barrier("), std::string::npos) << p.source;
  const Compiled r = compile(kernel_ir::testing::kSoftmaxRows);
  ASSERT_TRUE(r.status.ok) << r.status.message;
  EXPECT_NE(r.source.find("get_group_id(0)"), std::string::npos);
  EXPECT_NE(r.source.find("barrier(CLK_LOCAL_MEM_FENCE)"), std::string::npos);
  EXPECT_NE(r.source.find("reqd_work_group_size(64, 1, 1)"), std::string::npos);
}

TEST_F(XpuCodegen, BlobsAndLaunchesItCannotRunAreRefused) {
  const std::string ir = R"({"ekir":"1.0","name":"copy","params":0,
   "buffers":[{"dtype":"float32","role":"input"},{"dtype":"float32","role":"output"}],"outer":[8],
   "loops":[{"extents":[],"body":[
     {"id":0,"op":"load","dtype":"float32","buffer":0,"offset":0,"strides":[1]},
     {"id":1,"op":"store","buffer":1,"offset":0,"strides":[1],"args":[0]}]}]})";
  const Compiled c = compile(ir);
  ASSERT_TRUE(c.status.ok) << c.status.message;
  std::string flipped = c.blob;
  flipped[flipped.size() / 2] ^= 0x10;
  for (const std::string& bad : {std::string(), std::string(64, 'x'), c.blob.substr(0, c.blob.size() / 2), flipped}) {
    ember_codegen_kernel_t kernel = nullptr;
    const StatusCopy status = load(bad, &kernel);
    EXPECT_EQ(status.code, EMBER_STATUS_INVALID_ARGUMENT) << status.message;
    EXPECT_NE(status.message.find("not a kernel blob"), std::string::npos) << status.message;
  }
  DeviceBuffer small(EMBER_DTYPE_FLOAT32, 4), out(EMBER_DTYPE_FLOAT32, 8);
  StatusCopy status = run(ir, {&small.tensor(), &out.tensor()});
  EXPECT_EQ(status.code, EMBER_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(status.message.find("reaches elements [0, 7] of buffer 0"), std::string::npos) << status.message;
  DeviceBuffer in(EMBER_DTYPE_FLOAT32, 8);
  DLTensor on_cpu = in.tensor();
  on_cpu.device = {kDLCPU, 0};
  status = run(ir, {&on_cpu, &out.tensor()});
  EXPECT_NE(status.message.find("not an xpu (OpenCL) device"), std::string::npos) << status.message;
}

}  // namespace
}  // namespace ember::xpu::testing
