#include "distributed/key_value_map.h"

#include <charconv>

#include "ember/error.h"

namespace ember::distributed {

void KeyValueMap::set(const std::string& key, Bytes value) { entries_[key] = std::move(value); }

const Bytes* KeyValueMap::find(const std::string& key) const {
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : &it->second;
}

std::int64_t KeyValueMap::add(const std::string& key, std::int64_t delta) {
  auto it = entries_.find(key);
  std::int64_t current = it == entries_.end() ? 0 : decode_counter(key, it->second);
  std::int64_t sum = 0;
  if (__builtin_add_overflow(current, delta, &sum)) {
    throw_error(ErrorKind::DistributedStore, "add: " + std::to_string(current) + " + " + std::to_string(delta) +
                                                 " at key '" + key + "' overflows a 64-bit integer");
  }
  entries_[key] = encode_counter(sum);
  return sum;
}

Bytes KeyValueMap::compare_set(const std::string& key, const Bytes& expected, Bytes desired) {
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    if (!expected.empty()) return expected;
    return entries_.emplace(key, std::move(desired)).first->second;
  }
  if (it->second == expected) it->second = std::move(desired);
  return it->second;
}

bool KeyValueMap::contains_all(const std::vector<std::string>& keys) const {
  for (const std::string& key : keys) {
    if (!entries_.contains(key)) return false;
  }
  return true;
}

bool KeyValueMap::erase(const std::string& key) { return entries_.erase(key) > 0; }

std::int64_t KeyValueMap::count_user_keys() const {
  std::int64_t count = 0;
  for (const auto& [key, value] : entries_) {
    if (!key.starts_with(kInternalKeyPrefix)) ++count;
  }
  return count;
}

Bytes encode_counter(std::int64_t value) {
  const std::string text = std::to_string(value);
  return Bytes(text.begin(), text.end());
}

std::int64_t decode_counter(const std::string& key, const Bytes& value) {
  const char* first = reinterpret_cast<const char*>(value.data());
  const char* last = first + value.size();
  std::int64_t parsed = 0;
  auto [end, error] = std::from_chars(first, last, parsed);
  if (value.empty() || error != std::errc() || end != last) {
    throw_error(ErrorKind::DistributedStore,
                "add: the value at key '" + key + "' is not a decimal integer ('" + std::string(first, last) + "')");
  }
  return parsed;
}

}  // namespace ember::distributed
