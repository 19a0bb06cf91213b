#include "compile/disk_cache.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>

#include "core/logging.h"
#include "ember/error.h"

namespace ember::compile {
namespace {

std::mutex g_lock;

constexpr char kMagic[8] = {'E', 'M', 'B', 'K', 'C', 'E', '1', '\n'};

std::string hex(const unsigned char* bytes, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    out += digits[bytes[i] >> 4];
    out += digits[bytes[i] & 15];
  }
  return out;
}

void append_field(std::string& out, const std::string& field) {
  out += std::to_string(field.size());
  out += ':';
  out += field;
}

// Refuses a folder that is not the user's own or that others may write.
std::string check_private(const std::string& dir) {
  struct stat st {};
  if (lstat(dir.c_str(), &st) != 0) return "cannot stat " + dir + ": " + std::strerror(errno);
  if (!S_ISDIR(st.st_mode)) return dir + " is not a directory";
  if (st.st_uid != geteuid()) {
    return dir + " belongs to user id " + std::to_string(st.st_uid) + ", not to this user (" +
           std::to_string(geteuid()) + ")";
  }
  if (st.st_mode & (S_IWGRP | S_IWOTH)) return dir + " is writable by its group or by others";
  return "";
}

std::string make_private_dir(const std::string& dir) {
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return "cannot create " + dir + ": " + std::strerror(errno);
  }
  return check_private(dir);
}

}  // namespace

std::string sha256_hex(const std::string& bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1) {
    throw_error(ErrorKind::Runtime, "SHA-256 failed (OpenSSL)");
  }
  return hex(digest, length);
}

std::string KernelCacheKey::digest() const {
  std::string encoded;
  append_field(encoded, "ember-kernel-cache-key-1");
  append_field(encoded, ir);
  append_field(encoded, plugin_name);
  append_field(encoded, plugin_version);
  append_field(encoded, std::to_string(abi_minor));
  append_field(encoded, fingerprint);
  append_field(encoded, numerics);
  append_field(encoded, core_version);
  return sha256_hex(encoded);
}

DiskCache& DiskCache::get() {
  static DiskCache cache;
  return cache;
}

void DiskCache::reset() {
  std::lock_guard lock(g_lock);
  checked_ = false;
  root_.clear();
  refused_.clear();
}

bool DiskCache::usable() {
  if (!checked_) {
    checked_ = true;
    const char* env = std::getenv("EMBER_CACHE_DIR");
    if (env != nullptr && *env != '\0') {
      root_ = env;
    } else if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
      const std::string cache = std::string(home) + "/.cache";
      mkdir(cache.c_str(), 0700);
      root_ = cache + "/ember";
    } else {
      refused_ = "neither EMBER_CACHE_DIR nor HOME is set";
    }
    if (refused_.empty()) refused_ = make_private_dir(root_);
    if (refused_.empty()) refused_ = make_private_dir(root_ + "/kernels");
    if (!refused_.empty()) log().warn("kernel cache off: {}", refused_);
  }
  return refused_.empty();
}

std::string DiskCache::refused_reason() {
  std::lock_guard lock(g_lock);
  usable();
  return refused_;
}

std::string DiskCache::root() {
  std::lock_guard lock(g_lock);
  usable();
  return root_;
}

std::string DiskCache::entry_path(const std::string& digest, bool create_dirs) {
  const std::string dir = root_ + "/kernels/" + digest.substr(0, 2);
  if (create_dirs) {
    if (std::string why = make_private_dir(dir); !why.empty()) {
      log().warn("kernel cache entry not written: {}", why);
      return "";
    }
  } else if (!check_private(dir).empty()) {
    return "";
  }
  return dir + "/" + digest + ".bin";
}

std::optional<std::string> DiskCache::read(const KernelCacheKey& key) {
  std::lock_guard lock(g_lock);
  if (!usable()) return std::nullopt;
  const std::string path = entry_path(key.digest(), false);
  if (path.empty()) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string data = buffer.str();
  // magic, 64 hex digits of the blob's digest, '\n', the blob
  const size_t header = sizeof(kMagic) + 65;
  if (data.size() < header || std::memcmp(data.data(), kMagic, sizeof(kMagic)) != 0) return std::nullopt;
  std::string blob = data.substr(header);
  if (data.compare(sizeof(kMagic), 64, sha256_hex(blob)) != 0) {
    log().warn("kernel cache entry {} is corrupt; compiling again", path);
    return std::nullopt;
  }
  return blob;
}

void DiskCache::write(const KernelCacheKey& key, const std::string& blob) {
  std::lock_guard lock(g_lock);
  if (!usable()) return;
  const std::string path = entry_path(key.digest(), true);
  if (path.empty()) return;
  std::string tmp = path + ".tmpXXXXXX";
  const int fd = mkstemp(tmp.data());
  if (fd < 0) {
    log().warn("kernel cache entry not written: cannot create {}: {}", tmp, std::strerror(errno));
    return;
  }
  std::string data(kMagic, sizeof(kMagic));
  data += sha256_hex(blob);
  data += '\n';
  data += blob;
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  const bool ok = done == data.size() && fsync(fd) == 0;
  close(fd);
  if (!ok || rename(tmp.c_str(), path.c_str()) != 0) {
    unlink(tmp.c_str());
    log().warn("kernel cache entry {} not written", path);
  }
}

}  // namespace ember::compile
