// The kernel blob GPU-style generators cache (Note [Kernel blobs]): what
// write_kernel_blob wrote reads back the same, under zlib's CRC-32, and
// anything else (another generator's magic, another version, truncated,
// damaged, trailing bytes, lengths that lie under a valid checksum) is an
// INVALID_ARGUMENT saying what is wrong, never a crash.
#include <ember/kernel_ir/kernel_blob.h>
#include <gtest/gtest.h>
#include <zlib.h>
#include <ember/sdk/status.hpp>

#include <cstdint>
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

// `bytes` with its last 8 bytes made the CRC-32 of the others again.
std::string with_renewed_checksum(std::string bytes) {
  const size_t body = bytes.size() - 8;
  const uint64_t crc = crc32(0L, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(body));
  for (int i = 0; i < 8; ++i) bytes[body + i] = static_cast<char>((crc >> (8 * i)) & 0xff);
  return bytes;
}

TEST(KernelBlob, ItsChecksumIsZlibsCrc32) {
  const std::string bytes = write_kernel_blob(kFormat, sample());
  EXPECT_EQ(with_renewed_checksum(bytes), bytes);
}

TEST(KernelBlob, EveryPrefixAndEveryFlippedBitIsRefused) {
  const std::string bytes = write_kernel_blob(kFormat, sample());
  for (size_t size = 0; size < bytes.size(); ++size) {
    EXPECT_FALSE(refusal(kFormat, bytes.substr(0, size)).empty()) << size;
  }
  for (size_t at = 0; at < bytes.size(); ++at) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string flipped = bytes;
      flipped[at] = static_cast<char>(flipped[at] ^ (1 << bit));
      EXPECT_FALSE(refusal(kFormat, flipped).empty()) << at << ":" << bit;
    }
  }
}

TEST(KernelBlob, LyingFieldsUnderAValidChecksumAreRefusedNeverFollowed) {
  // Every byte of the header, lengths and count (before the first binary's
  // bytes) set to each extreme, the checksum renewed: the reader either
  // refuses or reads a blob of the same size, never more.
  const std::string bytes = write_kernel_blob(kFormat, sample());
  const size_t structure = 8 + 8 + 8 + sample().ir.size() + 8 + 8 + 5 + 8;
  for (size_t at = 0; at < structure; ++at) {
    for (const char value : {'\x00', '\xff', '\x7f'}) {
      std::string changed = bytes;
      changed[at] = value;
      changed = with_renewed_checksum(changed);
      try {
        const KernelBlob back = read_kernel_blob(kFormat, changed.data(), changed.size());
        size_t held = back.ir.size();
        for (const BlobBinary& b : back.binaries) held += b.target.size() + b.binary.size();
        EXPECT_LT(held, changed.size()) << at;
      } catch (const sdk::Error& e) {
        EXPECT_EQ(e.code(), EMBER_STATUS_INVALID_ARGUMENT) << e.what();
      }
    }
  }
}

}  // namespace
}  // namespace ember::kernel_ir
