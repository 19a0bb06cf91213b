#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ember::compile {

// Note [Kernel cache key]
// Everything that decides a generated binary, in one struct hashed in one
// place (SHA-256 over a length-prefixed encoding of every field), so a
// field cannot be forgotten by one caller: the kernel IR, the generator's
// plugin name, version and ABI minor, its fingerprint (compiler, flags,
// ISA, driver), the numerics flags, and the core's version.
struct KernelCacheKey {
  std::string ir;
  std::string plugin_name;
  std::string plugin_version;
  uint32_t abi_minor = 0;
  std::string fingerprint;
  std::string numerics;
  std::string core_version;

  std::string digest() const;  // 64 hex digits
};

// Note [Disk cache]
// $EMBER_CACHE_DIR (default ~/.cache/ember), created 0700. Before anything
// in it is read or written, the directory and each folder below it must
// belong to the user and be writable by nobody else: a cache others can
// write would let them plant code this process loads. A refused directory
// turns the cache off with one warning naming it; compiling goes on. An
// entry is written to a temporary file and renamed into place, so readers
// never see half of one, and carries a digest of its contents: a truncated
// or corrupt entry reads as missing and is compiled again.
class DiskCache {
 public:
  // The cache of this process; `root` overrides the environment (tests).
  static DiskCache& get();

  std::optional<std::string> read(const KernelCacheKey& key);
  void write(const KernelCacheKey& key, const std::string& blob);

  // Why the cache is off, or empty.
  std::string refused_reason();
  std::string root();

  // Re-reads EMBER_CACHE_DIR (tests).
  void reset();

 private:
  bool usable();
  std::string entry_path(const std::string& digest, bool create_dirs);

  bool checked_ = false;
  std::string root_;
  std::string refused_;
};

// SHA-256 of bytes, as 64 hex digits.
std::string sha256_hex(const std::string& bytes);

}  // namespace ember::compile
