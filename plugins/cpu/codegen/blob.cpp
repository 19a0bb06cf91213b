#include "blob.h"

#include <zlib.h>

#include <ember/sdk/status.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

namespace ember::cpu_codegen {
namespace {

// Note [Blob layout]: native byte order (a blob only serves the machine
// kind that compiled it, which the fingerprint pins):
//   0  char[8]  kMagic
//   8  uint32   format version (kFormatVersion)
//   12 uint32   symbol size          16 uint64 IR size
//   24 uint64   shared object size   32 uint32 CRC-32 of the bytes after the header
//   36 uint32   0
//   40          symbol, IR, shared object
constexpr char kMagic[8] = {'E', 'M', 'B', 'E', 'R', 'C', 'P', 'U'};
// 2: the entry point takes the parallel loop (kernel_entry.h); a version 1
// blob's kernel would be called with an argument it does not expect.
constexpr uint32_t kFormatVersion = 2;
constexpr size_t kHeaderSize = 40;
constexpr uint32_t kMostSymbolBytes = 256;

struct Header {
  char magic[8];
  uint32_t version;
  uint32_t symbol_size;
  uint64_t ir_size;
  uint64_t object_size;
  uint32_t checksum;
  uint32_t reserved;
};
static_assert(sizeof(Header) == kHeaderSize);

uint32_t checksum(const unsigned char* data, size_t size) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes uInt lengths: feed it in pieces.
  while (size > 0) {
    const uInt piece = static_cast<uInt>(std::min<size_t>(size, std::numeric_limits<uInt>::max()));
    crc = crc32(crc, data, piece);
    data += piece;
    size -= piece;
  }
  return static_cast<uint32_t>(crc);
}

[[noreturn]] void refuse(const std::string& why) {
  sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "cpu_codegen: not a kernel blob of this plugin: " + why);
}

}  // namespace

std::vector<unsigned char> write_blob(const std::string& symbol, std::string_view ir,
                                      const std::vector<unsigned char>& shared_object) {
  Header header{};
  std::memcpy(header.magic, kMagic, sizeof kMagic);
  header.version = kFormatVersion;
  header.symbol_size = static_cast<uint32_t>(symbol.size());
  header.ir_size = ir.size();
  header.object_size = shared_object.size();
  std::vector<unsigned char> blob(kHeaderSize + symbol.size() + ir.size() + shared_object.size());
  unsigned char* payload = blob.data() + kHeaderSize;
  std::memcpy(payload, symbol.data(), symbol.size());
  std::memcpy(payload + symbol.size(), ir.data(), ir.size());
  std::memcpy(payload + symbol.size() + ir.size(), shared_object.data(), shared_object.size());
  header.checksum = checksum(payload, blob.size() - kHeaderSize);
  std::memcpy(blob.data(), &header, kHeaderSize);
  return blob;
}

BlobContents read_blob(const void* data, size_t size) {
  if (data == nullptr) refuse("the blob is NULL");
  if (size < kHeaderSize) refuse(std::to_string(size) + " bytes are shorter than the header");
  Header header;
  std::memcpy(&header, data, kHeaderSize);
  if (std::memcmp(header.magic, kMagic, sizeof kMagic) != 0) refuse("wrong magic");
  if (header.version != kFormatVersion) {
    refuse("format version " + std::to_string(header.version) + ", this plugin reads " +
           std::to_string(kFormatVersion));
  }
  const uint64_t payload_size = size - kHeaderSize;
  if (header.symbol_size == 0 || header.symbol_size > kMostSymbolBytes || header.ir_size > payload_size ||
      header.object_size > payload_size || header.symbol_size + header.ir_size + header.object_size != payload_size) {
    refuse("its sizes do not add up to its " + std::to_string(size) + " bytes (truncated?)");
  }
  const auto* payload = static_cast<const unsigned char*>(data) + kHeaderSize;
  if (checksum(payload, payload_size) != header.checksum) refuse("checksum mismatch (corrupt)");
  BlobContents contents;
  const char* text = reinterpret_cast<const char*>(payload);
  contents.symbol.assign(text, header.symbol_size);
  contents.ir = std::string_view(text + header.symbol_size, header.ir_size);
  contents.shared_object = std::string_view(text + header.symbol_size + header.ir_size, header.object_size);
  return contents;
}

}  // namespace ember::cpu_codegen
