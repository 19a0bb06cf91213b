#include "distributed/hash_store.h"

#include "distributed/deadline.h"
#include "distributed/store_errors.h"

namespace ember::distributed {

void HashStore::set(const std::string& key, const Bytes& value) {
  {
    std::lock_guard lock(mutex_);
    entries_.set(key, value);
  }
  changed_.notify_all();
}

Bytes HashStore::get(const std::string& key) {
  const Milliseconds waited = timeout();
  std::unique_lock lock(mutex_);
  if (!changed_.wait_until(lock, deadline_after(waited), [&] { return entries_.find(key) != nullptr; })) {
    throw_wait_timeout("HashStore", {key}, waited);
  }
  return *entries_.find(key);
}

std::int64_t HashStore::add(const std::string& key, std::int64_t delta) {
  std::int64_t sum = 0;
  {
    std::lock_guard lock(mutex_);
    sum = entries_.add(key, delta);
  }
  changed_.notify_all();
  return sum;
}

Bytes HashStore::compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) {
  Bytes stored;
  {
    std::lock_guard lock(mutex_);
    stored = entries_.compare_set(key, expected, desired);
  }
  changed_.notify_all();
  return stored;
}

bool HashStore::check(const std::vector<std::string>& keys) {
  std::lock_guard lock(mutex_);
  return entries_.contains_all(keys);
}

void HashStore::wait(const std::vector<std::string>& keys, Milliseconds timeout) {
  std::unique_lock lock(mutex_);
  if (!changed_.wait_until(lock, deadline_after(timeout), [&] { return entries_.contains_all(keys); })) {
    throw_wait_timeout("HashStore", keys, timeout);
  }
}

bool HashStore::delete_key(const std::string& key) {
  std::lock_guard lock(mutex_);
  return entries_.erase(key);
}

std::int64_t HashStore::num_keys() {
  std::lock_guard lock(mutex_);
  return entries_.count_user_keys();
}

}  // namespace ember::distributed
