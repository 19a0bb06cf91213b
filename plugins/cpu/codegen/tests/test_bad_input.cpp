// Whatever the plugin is given, it answers with a status: malformed or
// invalid EKIR, blobs it did not write, launches that do not match the
// kernel, and compilers that are missing, fail or hang.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "codegen_harness.h"

namespace ember::cpu_codegen::testing {
namespace {

// A valid two-loop kernel the cases below break in one place each.
const char* kRowSum = R"({"ekir":"1.0","name":"row_sum","params":0,
 "buffers":[{"dtype":"float32","role":"input"},{"dtype":"float32","role":"output"}],
 "outer":[4],
 "loops":[{"extents":[8],"body":[
     {"id":0,"op":"load","dtype":"float32","buffer":0,"offset":0,"strides":[8,1]},
     {"id":1,"op":"exp","dtype":"float32","args":[0]},
     {"id":2,"op":"reduce","kind":"sum","dtype":"float32","args":[1]}]},
   {"extents":[],"body":[
     {"id":3,"op":"store","buffer":1,"offset":0,"strides":[1],"args":[2]}]}]})";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// The shared reader's cases are in sdk/kernel_ir/tests; here, that the
// plugin answers what the reader refuses with the reader's status.
TEST(CpuCodegenBadInput, InvalidIrIsAnInvalidArgumentNamingTheInstructionAndField) {
  const Compiled compiled = Codegen::get().compile(replaced(kRowSum, R"("op":"exp")", R"("op":"frobnicate")"));
  EXPECT_EQ(compiled.status.code, EMBER_STATUS_INVALID_ARGUMENT) << compiled.status.message;
  EXPECT_NE(compiled.status.message.find("instruction 1"), std::string::npos) << compiled.status.message;
  EXPECT_NE(compiled.status.message.find("unknown op 'frobnicate'"), std::string::npos) << compiled.status.message;
  EXPECT_TRUE(compiled.binary.empty());
}

TEST(CpuCodegenBadInput, OptionsMustBeAJsonObject) {
  EXPECT_TRUE(Codegen::get().compile(kRowSum, "{\"unknown_key\": 1}").status.ok);
  const Compiled compiled = Codegen::get().compile(kRowSum, "[1");
  EXPECT_EQ(compiled.status.code, EMBER_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(compiled.status.message.find("options"), std::string::npos) << compiled.status.message;
}

TEST(CpuCodegenBadInput, BlobsItDidNotWriteAreRefused) {
  const Compiled compiled = Codegen::get().compile(kRowSum);
  ASSERT_TRUE(compiled.status.ok) << compiled.status.message;
  const std::string& blob = compiled.binary;
  std::vector<std::pair<std::string, std::string>> bad = {
      {"empty", ""},
      {"garbage", std::string(4096, '\x5a')},
      {"header only", blob.substr(0, 40)},
      {"truncated", blob.substr(0, blob.size() - 1)},
      {"half", blob.substr(0, blob.size() / 2)},
      {"one byte more", blob + "x"},
  };
  std::string flipped = blob;
  flipped[flipped.size() / 2] ^= 0x10;
  bad.emplace_back("a flipped bit", flipped);
  std::string future = blob;
  future[8] = 9;  // format version
  bad.emplace_back("another format version", future);
  // A version 1 blob (from a disk cache) holds an OpenMP kernel whose entry
  // point takes no parallel loop (kernel_entry.h): refused, so the core
  // compiles the kernel again.
  std::string version_1 = blob;
  version_1[8] = 1;
  bad.emplace_back("format version 1", version_1);
  for (const auto& [what, bytes] : bad) {
    StatusCopy status;
    EXPECT_FALSE(Codegen::get().load(bytes, &status)) << what;
    EXPECT_EQ(status.code, EMBER_STATUS_INVALID_ARGUMENT) << what << ": " << status.message;
    EXPECT_NE(status.message.find("not a kernel blob"), std::string::npos) << what << ": " << status.message;
  }
  ember_codegen_kernel_t handle = nullptr;
  EXPECT_EQ(conformance::take_status(Codegen::get().extension().load(nullptr, 100, &handle)).code,
            EMBER_STATUS_INVALID_ARGUMENT);
  StatusCopy status;
  EXPECT_TRUE(Codegen::get().load(blob, &status)) << status.message;
}

TEST(CpuCodegenBadInput, LaunchesThatDoNotMatchTheKernelAreRefused) {
  const std::optional<Kernel> kernel = Codegen::get().build(kRowSum);
  ASSERT_TRUE(kernel);
  HostBuffer x(EMBER_DTYPE_FLOAT32, 32), out(EMBER_DTYPE_FLOAT32, 4), small(EMBER_DTYPE_FLOAT32, 31),
      ints(EMBER_DTYPE_INT32, 32);
  ASSERT_TRUE(kernel->launch({&x.tensor(), &out.tensor()}).ok);
  struct BadLaunch {
    const char* what;
    std::vector<DLTensor*> buffers;
    std::vector<int64_t> params;
    std::string message_has;
  };
  const std::vector<BadLaunch> cases = {
      {"one buffer", {&x.tensor()}, {}, "has 2 buffers, the launch 1"},
      {"a parameter too many", {&x.tensor(), &out.tensor()}, {3}, "has 0 parameters, the launch 1"},
      {"wrong dtype", {&ints.tensor(), &out.tensor()}, {}, "buffer 0 must be float32"},
      {"too small", {&small.tensor(), &out.tensor()}, {}, "instruction 0 (loop 0, op 'load') reaches elements [0, 31]"},
  };
  for (const BadLaunch& bad : cases) {
    const StatusCopy status = kernel->launch(bad.buffers, bad.params);
    EXPECT_EQ(status.code, EMBER_STATUS_INVALID_ARGUMENT) << bad.what << ": " << status.message;
    EXPECT_NE(status.message.find(bad.message_has), std::string::npos) << bad.what << ": " << status.message;
  }
}

// Extents from parameters are checked at launch: not negative, and a store
// cannot run more often than its buffer has elements (each iteration
// stores its own), so a huge broadcast launch is refused, not run.
TEST(CpuCodegenBadInput, LaunchParametersAreChecked) {
  const std::optional<Kernel> kernel = Codegen::get().build(R"({"ekir":"1.0","name":"fill","params":2,
 "buffers":[{"dtype":"float32","role":"input"},{"dtype":"float32","role":"output"}],
 "outer":["p0"],
 "loops":[{"extents":[],"body":[
   {"id":0,"op":"load","dtype":"float32","buffer":0,"offset":0,"strides":[0]},
   {"id":1,"op":"store","buffer":1,"offset":0,"strides":["p1"],"args":[0]}]}]})");
  ASSERT_TRUE(kernel);
  HostBuffer x(EMBER_DTYPE_FLOAT32, 1), out(EMBER_DTYPE_FLOAT32, 8);
  x.as<float>()[0] = 3.0f;
  ASSERT_TRUE(kernel->launch({&x.tensor(), &out.tensor()}, {8, 1}).ok);
  EXPECT_EQ(out.values<float>(), std::vector<float>(8, 3.0f));
  StatusCopy status = kernel->launch({&x.tensor(), &out.tensor()}, {-1, 1});
  EXPECT_EQ(status.code, EMBER_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(status.message.find("outer extent 0 is p0 = -1, a negative size"), std::string::npos) << status.message;
  // Within the buffer (stride 0), but 2^61 times.
  status = kernel->launch({&x.tensor(), &out.tensor()}, {int64_t{1} << 61, 0});
  EXPECT_EQ(status.code, EMBER_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(status.message.find("elements: some element would be stored twice"), std::string::npos) << status.message;
  DLTensor elsewhere = out.tensor();
  elsewhere.device = {kDLCUDA, 0};
  status = kernel->launch({&x.tensor(), &elsewhere}, {8, 1});
  EXPECT_EQ(status.code, EMBER_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(status.message.find("buffer 1 is on DLPack device type 2, not the CPU"), std::string::npos)
      << status.message;
}

// A folder of fake compilers, shell scripts the tests point EMBER_CXX at.
class CpuCodegenFakeCompilers : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "ember-fake-cxx-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    folder_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(folder_); }

  // A compiler that answers --version and -E, and runs `on_compile` else.
  std::string script(const std::string& name, const std::string& on_compile) {
    const std::string path = folder_ + "/" + name;
    std::ofstream(path) << "#!/bin/sh\nfor arg in \"$@\"; do\n  case \"$arg\" in\n"
                        << "    --version) echo \"fake-cxx 1.0\"; exit 0 ;;\n    -E) exit 0 ;;\n  esac\ndone\n"
                        << on_compile << "\n";
    chmod(path.c_str(), 0700);
    return path;
  }

  std::string folder_;
};

TEST_F(CpuCodegenFakeCompilers, MissingCompilerIsUnavailableNamingIt) {
  const std::string missing = folder_ + "/no-such-compiler";
  const ScopedEnvironment cxx("EMBER_CXX", missing);
  std::string text;
  const StatusCopy status = Codegen::get().fingerprint(&text);
  EXPECT_EQ(status.code, EMBER_STATUS_UNAVAILABLE);
  EXPECT_NE(status.message.find(missing), std::string::npos) << status.message;
  EXPECT_NE(status.message.find("EMBER_CXX"), std::string::npos) << status.message;
  const Compiled compiled = Codegen::get().compile(kRowSum);
  EXPECT_EQ(compiled.status.code, EMBER_STATUS_UNAVAILABLE);
  EXPECT_NE(compiled.status.message.find(missing), std::string::npos) << compiled.status.message;
}

TEST_F(CpuCodegenFakeCompilers, NoCompilerOnPathIsUnavailableNamingWhatWasLookedFor) {
  const ScopedEnvironment cxx("EMBER_CXX", "");
  const ScopedEnvironment path("PATH", folder_);
  std::string text;
  const StatusCopy status = Codegen::get().fingerprint(&text);
  EXPECT_EQ(status.code, EMBER_STATUS_UNAVAILABLE);
  EXPECT_NE(status.message.find("c++, g++ and clang++"), std::string::npos) << status.message;
}

TEST_F(CpuCodegenFakeCompilers, FailingCompilerStatusCarriesItsMessages) {
  const ScopedEnvironment cxx("EMBER_CXX",
                              script("failing-cxx", "echo 'kernel.cpp:1: error: no luck today' >&2; exit 1"));
  std::string text;
  ASSERT_TRUE(Codegen::get().fingerprint(&text).ok);
  EXPECT_NE(text.find("fake-cxx 1.0"), std::string::npos) << text;
  const Compiled compiled = Codegen::get().compile(kRowSum);
  EXPECT_EQ(compiled.status.code, EMBER_STATUS_INTERNAL);
  EXPECT_NE(compiled.status.message.find("error: no luck today"), std::string::npos) << compiled.status.message;
  EXPECT_NE(compiled.status.message.find("exit status 1"), std::string::npos) << compiled.status.message;
  EXPECT_NE(compiled.status.message.find("row_sum"), std::string::npos) << compiled.status.message;
}

TEST_F(CpuCodegenFakeCompilers, HangingCompilerIsKilledAfterTheTimeout) {
  const ScopedEnvironment cxx("EMBER_CXX", script("hanging-cxx", "exec sleep 60"));
  const ScopedEnvironment timeout("EMBER_CXX_TIMEOUT", "0.3");
  const auto start = std::chrono::steady_clock::now();
  const Compiled compiled = Codegen::get().compile(kRowSum);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  EXPECT_EQ(compiled.status.code, EMBER_STATUS_INTERNAL);
  EXPECT_NE(compiled.status.message.find("ran past 0.3 s"), std::string::npos) << compiled.status.message;
}

}  // namespace
}  // namespace ember::cpu_codegen::testing
