#include "blob.h"

#include <zlib.h>

#include <ember/sdk/status.hpp>

#include <cstdint>
#include <cstring>

namespace ember::xpu::codegen {
namespace {

constexpr char kMagic[8] = {'E', 'M', 'B', 'X', 'P', 'U', 'C', 'G'};
constexpr uint32_t kFormat = 1;

void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void put_text(std::string& out, const std::string& text) {
  put_u64(out, text.size());
  out += text;
}

uint32_t checksum(const char* data, size_t size) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes uInt lengths: fed in pieces.
  for (size_t at = 0; at < size;) {
    const uInt piece = static_cast<uInt>(std::min<size_t>(size - at, 1u << 30));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(data + at), piece);
    at += piece;
  }
  return static_cast<uint32_t>(crc);
}

[[noreturn]] void refuse(const std::string& why) {
  sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "xpu codegen: not a kernel blob of this plugin: " + why);
}

class Reader {
 public:
  Reader(const char* data, size_t size) : data_(data), size_(size) {}
  uint64_t u64() {
    if (size_ - at_ < 8) refuse("truncated");
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t{static_cast<unsigned char>(data_[at_ + i])} << (8 * i);
    at_ += 8;
    return v;
  }
  std::string text() {
    const uint64_t n = u64();
    if (n > size_ - at_) refuse("truncated");
    std::string t(data_ + at_, n);
    at_ += n;
    return t;
  }
  bool done() const { return at_ == size_; }

 private:
  const char* data_;
  size_t size_;
  size_t at_ = 0;
};

}  // namespace

std::string write_blob(const BlobContents& contents) {
  std::string out(kMagic, sizeof kMagic);
  put_u64(out, kFormat);
  put_text(out, contents.ir);
  put_u64(out, contents.devices.size());
  for (const DeviceBinary& device : contents.devices) {
    put_text(out, device.fingerprint);
    put_text(out, device.binary);
  }
  put_u64(out, checksum(out.data(), out.size()));
  return out;
}

BlobContents read_blob(const void* blob, size_t size) {
  const char* data = static_cast<const char*>(blob);
  if (data == nullptr || size < sizeof kMagic + 16 || std::memcmp(data, kMagic, sizeof kMagic) != 0) {
    refuse("no header");
  }
  Reader trailer(data + size - 8, 8);
  if (trailer.u64() != checksum(data, size - 8)) refuse("its checksum does not match (a damaged entry)");
  Reader in(data + sizeof kMagic, size - 8 - sizeof kMagic);
  if (const uint64_t format = in.u64(); format != kFormat) {
    refuse("format " + std::to_string(format) + ", this plugin writes " + std::to_string(kFormat));
  }
  BlobContents contents;
  contents.ir = in.text();
  const uint64_t count = in.u64();
  if (count > 1024) refuse("too many devices");
  for (uint64_t d = 0; d < count; ++d) {
    DeviceBinary device;
    device.fingerprint = in.text();
    device.binary = in.text();
    contents.devices.push_back(std::move(device));
  }
  if (!in.done()) refuse("bytes after its end");
  return contents;
}

}  // namespace ember::xpu::codegen
