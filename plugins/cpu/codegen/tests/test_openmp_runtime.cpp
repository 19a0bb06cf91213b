// Note [OpenMP runtime stays loaded] (CMakeLists.txt): a process whose only
// OpenMP user is a generated kernel keeps the runtime after unloading it.
// This program does not link OpenMP itself.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <thread>

#include "codegen_harness.h"

namespace ember::cpu_codegen::testing {
namespace {

const char* kNegate = R"({"ekir":"1.0","name":"negate","params":0,
 "buffers":[{"dtype":"float32","role":"input"},{"dtype":"float32","role":"output"}],
 "outer":[100000],
 "loops":[{"extents":[],"body":[
   {"id":0,"op":"load","dtype":"float32","buffer":0,"offset":0,"strides":[1]},
   {"id":1,"op":"neg","dtype":"float32","args":[0]},
   {"id":2,"op":"store","buffer":1,"offset":0,"strides":[1],"args":[1]}]}]})";

TEST(CpuCodegenOpenMP, RuntimeOutlivesTheKernelsThatUsedIt) {
  HostBuffer x(EMBER_DTYPE_FLOAT32, 100000), out(EMBER_DTYPE_FLOAT32, 100000);
  for (int64_t i = 0; i < 100000; ++i) x.as<float>()[i] = static_cast<float>(i);
  // Compiled, run with a team of threads and unloaded on a thread that then ends.
  StatusCopy status;
  std::thread([&] { status = run(kNegate, {&x.tensor(), &out.tensor()}); }).join();
  ASSERT_TRUE(status.ok) << status.message;
  EXPECT_EQ(out.as<float>()[99999], -99999.0f);
  void* runtime = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(runtime, nullptr) << "the OpenMP runtime left with the last kernel";
  if (runtime != nullptr) dlclose(runtime);
}

}  // namespace
}  // namespace ember::cpu_codegen::testing
