// Note [FileStore records]: the file is a log of records, each written with
// one write(2) under an exclusive flock(2): a kind byte (set or delete), then
// the key and the value, each as a 32-bit little-endian length and its bytes.
// Readers take a shared lock and parse whatever follows the offset they have
// read up to, so every process rebuilds the same map; a record cut short by a
// writer that died mid-write is never complete and is ignored. Read-modify-
// write calls (add, compare_set, delete) read and append under one exclusive
// lock. As in c10d, each call opens the file afresh, so that two stores of one
// process hold two open file descriptions and their locks exclude each other.
#include "distributed/file_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "distributed/deadline.h"
#include "distributed/store_errors.h"
#include "ember/error.h"

namespace ember::distributed {
namespace {

enum class RecordKind : std::uint8_t { Set = 0, Delete = 1 };

// The users who opened the file and those who closed it.
const std::string kUsersKey = std::string(kInternalKeyPrefix) + "file_store/users";
const std::string kClosedKey = std::string(kInternalKeyPrefix) + "file_store/closed";

// How often a waiting call re-reads the file.
constexpr Milliseconds kPollInterval{5};

[[noreturn]] void throw_os_error(const std::string& what, const std::string& path) {
  throw_error(ErrorKind::DistributedStore, "FileStore: cannot " + what + " '" + path + "': " + std::strerror(errno));
}

void append_length_prefixed(std::string& out, const std::string& field) {
  const auto size = static_cast<std::uint32_t>(field.size());
  for (int shift = 0; shift < 32; shift += 8) out.push_back(static_cast<char>((size >> shift) & 0xff));
  out += field;
}

std::string encode_record(RecordKind kind, const std::string& key, const Bytes& value) {
  std::string record(1, static_cast<char>(kind));
  append_length_prefixed(record, key);
  append_length_prefixed(record, std::string(value.begin(), value.end()));
  return record;
}

}  // namespace

// The open file under its flock for one call.
class FileStore::LockedFile {
 public:
  LockedFile(FileStore& store, int lock_kind) : store_(store) {
    fd_ = ::open(store.path_.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd_ < 0) throw_os_error("open", store.path_);
    while (::flock(fd_, lock_kind) != 0) {
      if (errno != EINTR) {
        const int saved = errno;
        ::close(fd_);
        errno = saved;
        throw_os_error("lock", store.path_);
      }
    }
  }
  ~LockedFile() { ::close(fd_); }  // Closing releases the lock.
  LockedFile(const LockedFile&) = delete;
  LockedFile& operator=(const LockedFile&) = delete;

  // Parses the records after the store's offset into its cache.
  void read_new_records() {
    std::string data;
    char buffer[1 << 16];
    for (std::int64_t at = store_.offset_;;) {
      const ssize_t n = ::pread(fd_, buffer, sizeof buffer, at);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw_os_error("read", store_.path_);
      if (n == 0) break;
      data.append(buffer, static_cast<std::size_t>(n));
      at += n;
    }
    std::size_t pos = 0;
    auto read_field = [&](std::string& field) {
      if (data.size() - pos < 4) return false;
      std::uint32_t size = 0;
      for (int i = 0; i < 4; ++i)
        size |= static_cast<std::uint32_t>(static_cast<unsigned char>(data[pos + i])) << (8 * i);
      if (data.size() - pos - 4 < size) return false;
      field.assign(data, pos + 4, size);
      pos += 4 + size;
      return true;
    };
    while (pos < data.size()) {
      const std::size_t start = pos;
      const auto kind = static_cast<RecordKind>(data[pos++]);
      std::string key, value;
      if (!read_field(key) || !read_field(value)) {
        pos = start;
        break;
      }
      if (kind == RecordKind::Delete) {
        store_.cache_.erase(key);
      } else {
        store_.cache_.set(key, Bytes(value.begin(), value.end()));
      }
    }
    store_.offset_ += static_cast<std::int64_t>(pos);
  }

  void append(RecordKind kind, const std::string& key, const Bytes& value) {
    const std::string record = encode_record(kind, key, value);
    // O_APPEND places the whole record at the end; a short write (a full
    // disk) leaves a torn record that readers skip, and is reported.
    const ssize_t n = ::write(fd_, record.data(), record.size());
    if (n < 0 || static_cast<std::size_t>(n) != record.size()) {
      const int saved = errno;
      // The caller may have updated the cache ahead of the file: read it all
      // again next time.
      store_.cache_ = KeyValueMap();
      store_.offset_ = 0;
      if (n >= 0) throw_error(ErrorKind::DistributedStore, "FileStore: a short write to '" + store_.path_ + "'");
      errno = saved;
      throw_os_error("write", store_.path_);
    }
    read_new_records();
  }

 private:
  FileStore& store_;
  int fd_ = -1;
};

FileStore::FileStore(std::string path, int world_size) : path_(std::move(path)), world_size_(world_size) {
  if (world_size_ == 0 || world_size_ < -1) {
    throw_error(ErrorKind::Value,
                "FileStore('" + path_ + "'): world_size must be positive or -1, got " + std::to_string(world_size_));
  }
  std::lock_guard lock(mutex_);
  LockedFile file(*this, LOCK_EX);
  file.read_new_records();
  const std::int64_t users = add_locked(file, kUsersKey, 1);
  if (world_size_ > 0 && users > world_size_) {
    add_locked(file, kUsersKey, -1);
    throw_error(ErrorKind::DistributedStore,
                "FileStore: '" + path_ + "' already has its world_size of " + std::to_string(world_size_) + " users");
  }
}

FileStore::~FileStore() {
  // A destructor cannot report a failure: a file that cannot be reopened now
  // is one the last user cannot remove either, and stays behind.
  try {
    std::lock_guard lock(mutex_);
    LockedFile file(*this, LOCK_EX);
    file.read_new_records();
    const std::int64_t closed = add_locked(file, kClosedKey, 1);
    if (world_size_ > 0 && closed >= world_size_) ::unlink(path_.c_str());
  } catch (const Error&) {
  }
}

std::int64_t FileStore::add_locked(LockedFile& file, const std::string& key, std::int64_t delta) {
  const std::int64_t sum = cache_.add(key, delta);
  file.append(RecordKind::Set, key, encode_counter(sum));
  return sum;
}

void FileStore::set(const std::string& key, const Bytes& value) {
  std::lock_guard lock(mutex_);
  LockedFile file(*this, LOCK_EX);
  file.read_new_records();
  file.append(RecordKind::Set, key, value);
}

Bytes FileStore::get(const std::string& key) {
  const Milliseconds waited = timeout();
  const SteadyTime deadline = deadline_after(waited);
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      LockedFile file(*this, LOCK_SH);
      file.read_new_records();
      if (const Bytes* value = cache_.find(key)) return *value;
    }
    if (std::chrono::steady_clock::now() >= deadline) throw_wait_timeout("FileStore", {key}, waited);
    std::this_thread::sleep_for(kPollInterval);
  }
}

std::int64_t FileStore::add(const std::string& key, std::int64_t delta) {
  std::lock_guard lock(mutex_);
  LockedFile file(*this, LOCK_EX);
  file.read_new_records();
  return add_locked(file, key, delta);
}

Bytes FileStore::compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) {
  std::lock_guard lock(mutex_);
  LockedFile file(*this, LOCK_EX);
  file.read_new_records();
  const Bytes* current = cache_.find(key);
  const bool writes = current != nullptr ? *current == expected : expected.empty();
  Bytes stored = cache_.compare_set(key, expected, desired);
  if (writes) file.append(RecordKind::Set, key, stored);
  return stored;
}

bool FileStore::check(const std::vector<std::string>& keys) {
  std::lock_guard lock(mutex_);
  LockedFile file(*this, LOCK_SH);
  file.read_new_records();
  return cache_.contains_all(keys);
}

void FileStore::wait(const std::vector<std::string>& keys, Milliseconds timeout) {
  const SteadyTime deadline = deadline_after(timeout);
  while (!check(keys)) {
    if (std::chrono::steady_clock::now() >= deadline) throw_wait_timeout("FileStore", keys, timeout);
    std::this_thread::sleep_for(kPollInterval);
  }
}

bool FileStore::delete_key(const std::string& key) {
  std::lock_guard lock(mutex_);
  LockedFile file(*this, LOCK_EX);
  file.read_new_records();
  if (cache_.find(key) == nullptr) return false;
  file.append(RecordKind::Delete, key, {});
  return true;
}

std::int64_t FileStore::num_keys() {
  std::lock_guard lock(mutex_);
  LockedFile file(*this, LOCK_SH);
  file.read_new_records();
  return cache_.count_user_keys();
}

}  // namespace ember::distributed
