#include <ember/kernel_ir/kernel_blob.h>

#include <ember/sdk/status.hpp>

#include <array>
#include <cstring>

namespace ember::kernel_ir {
namespace {

// Note [Kernel blobs]
// The core caches what a generator's compile wrote and hands it to load,
// perhaps in another process or after another build of the plugin, so the
// blob says whose it is and checks itself before anything in it reaches a
// driver. Layout, integers as 8 bytes little-endian, a text as its length
// then its bytes:
//   magic (8 bytes, the generator's)  version
//   text EKIR   count   count x (text target, text binary)
//   CRC-32 (IEEE, zlib's) of every byte before it
// The EKIR travels with the binaries because launch needs the kernel's
// buffers and parameters, and the targets let load refuse a binary built
// for a device or architecture other than the one it would run on.

constexpr size_t kMagicSize = 8;
constexpr uint64_t kMostBinaries = 1024;

constexpr std::array<uint32_t, 256> crc_table() {
  std::array<uint32_t, 256> table{};
  for (uint32_t n = 0; n < 256; ++n) {
    uint32_t c = n;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
    table[n] = c;
  }
  return table;
}

uint32_t crc32(const char* data, size_t size) {
  static constexpr std::array<uint32_t, 256> table = crc_table();
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < size; ++i) c = table[(c ^ static_cast<unsigned char>(data[i])) & 0xff] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void put_text(std::string& out, const std::string& text) {
  put_u64(out, text.size());
  out += text;
}

class Reader {
 public:
  Reader(const BlobFormat& format, const char* data, size_t size) : format_(format), data_(data), size_(size) {}

  [[noreturn]] void refuse(const std::string& why) const {
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT,
              std::string(format_.generator) + ": not a kernel blob of this plugin: " + why);
  }
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
  const BlobFormat& format_;
  const char* data_;
  size_t size_;
  size_t at_ = 0;
};

void check_magic(const BlobFormat& format) {
  if (format.magic.size() != kMagicSize) {
    sdk::fail(EMBER_STATUS_INTERNAL, std::string(format.generator) + ": a blob magic must have 8 bytes");
  }
}

}  // namespace

std::string write_kernel_blob(const BlobFormat& format, const KernelBlob& blob) {
  check_magic(format);
  std::string out(format.magic);
  put_u64(out, format.version);
  put_text(out, blob.ir);
  put_u64(out, blob.binaries.size());
  for (const BlobBinary& binary : blob.binaries) {
    put_text(out, binary.target);
    put_text(out, binary.binary);
  }
  put_u64(out, crc32(out.data(), out.size()));
  return out;
}

KernelBlob read_kernel_blob(const BlobFormat& format, const void* data, size_t size) {
  check_magic(format);
  const char* bytes = static_cast<const char*>(data);
  const Reader whole(format, bytes, size);
  if (bytes == nullptr || size < kMagicSize + 16 || std::memcmp(bytes, format.magic.data(), kMagicSize) != 0) {
    whole.refuse("no header");
  }
  Reader trailer(format, bytes + size - 8, 8);
  if (trailer.u64() != crc32(bytes, size - 8)) whole.refuse("its checksum does not match (a damaged entry)");
  Reader in(format, bytes + kMagicSize, size - 8 - kMagicSize);
  if (const uint64_t version = in.u64(); version != format.version) {
    in.refuse("format " + std::to_string(version) + ", this plugin writes " + std::to_string(format.version));
  }
  KernelBlob blob;
  blob.ir = in.text();
  const uint64_t count = in.u64();
  if (count > kMostBinaries) in.refuse("too many binaries");
  for (uint64_t b = 0; b < count; ++b) {
    BlobBinary binary;
    binary.target = in.text();
    binary.binary = in.text();
    blob.binaries.push_back(std::move(binary));
  }
  if (!in.done()) in.refuse("bytes after its end");
  return blob;
}

}  // namespace ember::kernel_ir
