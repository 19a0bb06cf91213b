// The kernel blob GPU-style generators cache (Note [Kernel blobs]): what
// write_kernel_blob wrote reads back the same, and anything else (another
// generator's magic, another version, truncated, damaged, trailing bytes)
// is an INVALID_ARGUMENT saying what is wrong, never a crash.
#include <ember/kernel_ir/kernel_blob.h>
#include <gtest/gtest.h>
#include <ember/sdk/status.hpp>

#include <string>
#include <vector>

namespace ember::kernel_ir {
namespace {

const BlobFormat kFormat{"test codegen", "EMBTESTK", 3};

KernelBlob sample() {
  KernelBlob blob;
  blob.ir = R"({"ekir":"1.0"})";
  blob.binaries = {{"sm_80", std::string("\0\x7f" "ELF", 5)}, {"sm_90", std::string(1000, '\xab')}};
  return blob;
}

std::string refusal(const BlobFormat& format, const std::string& bytes) {
  try {
    read_kernel_blob(format, bytes.data(), bytes.size());
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), EMBER_STATUS_INVALID_ARGUMENT) << e.what();
    return e.what();
  }
  return "";
}

TEST(KernelBlob, ReadsBackWhatItWrote) {
  const std::string bytes = write_kernel_blob(kFormat, sample());
  EXPECT_EQ(bytes.substr(0, 8), "EMBTESTK");
  const KernelBlob back = read_kernel_blob(kFormat, bytes.data(), bytes.size());
  EXPECT_EQ(back.ir, sample().ir);
  ASSERT_EQ(back.binaries.size(), 2u);
  EXPECT_EQ(back.binaries[0].target, "sm_80");
  EXPECT_EQ(back.binaries[0].binary, sample().binaries[0].binary);
  EXPECT_EQ(back.binaries[1].binary, sample().binaries[1].binary);
}

TEST(KernelBlob, RefusesWhatItDidNotWrite) {
  const std::string bytes = write_kernel_blob(kFormat, sample());
  std::string flipped = bytes;
  flipped[bytes.size() / 2] ^= 0x10;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "no header"},
      {std::string(64, 'x'), "no header"},
      {bytes.substr(0, 20), "no header"},
      {bytes.substr(0, bytes.size() / 2), "its checksum does not match"},
      {flipped, "its checksum does not match"},
      {bytes + "tail", "its checksum does not match"},
  };
  for (const auto& [bad, why] : cases) {
    const std::string message = refusal(kFormat, bad);
    EXPECT_NE(message.find("test codegen: not a kernel blob of this plugin: " + why), std::string::npos) << message;
  }
  const std::string foreign = refusal({"other codegen", "EMBOTHER", 3}, bytes);
  EXPECT_NE(foreign.find("other codegen: not a kernel blob of this plugin: no header"), std::string::npos) << foreign;
  EXPECT_NE(refusal({"test codegen", "EMBTESTK", 4}, bytes).find("format 3, this plugin writes 4"), std::string::npos);
}

}  // namespace
}  // namespace ember::kernel_ir
