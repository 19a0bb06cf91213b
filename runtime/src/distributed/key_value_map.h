#pragma once
// The semantics every store shares (set, add's decimal text, compare_set),
// kept once: HashStore guards a map with a mutex, FileStore rebuilds one from
// its file, and the TCPStore server keeps one for all its clients.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "distributed/store.h"

namespace ember::distributed {

// Keys the stores keep for themselves (FileStore's user counts, TCPStore's
// worker count) start with this; num_keys does not count them.
inline constexpr char kInternalKeyPrefix[] =
    "\x01"
    "ember/";

// Not thread-safe: its owner serializes access.
class KeyValueMap {
 public:
  void set(const std::string& key, Bytes value);
  // nullptr when absent.
  const Bytes* find(const std::string& key) const;
  // Throws ErrorKind::DistributedStore when the value is not a decimal
  // integer or the sum overflows.
  std::int64_t add(const std::string& key, std::int64_t delta);
  // Store::compare_set; as c10d, a missing key with a non-empty `expected`
  // stays missing and `expected` is returned.
  Bytes compare_set(const std::string& key, const Bytes& expected, Bytes desired);
  bool contains_all(const std::vector<std::string>& keys) const;
  bool erase(const std::string& key);
  // Keys outside kInternalKeyPrefix.
  std::int64_t count_user_keys() const;

 private:
  std::unordered_map<std::string, Bytes> entries_;
};

// The decimal text add keeps (c10d's encoding of counters).
Bytes encode_counter(std::int64_t value);
std::int64_t decode_counter(const std::string& key, const Bytes& value);

}  // namespace ember::distributed
