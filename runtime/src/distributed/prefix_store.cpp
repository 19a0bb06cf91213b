#include "distributed/prefix_store.h"

#include "ember/error.h"

namespace ember::distributed {

PrefixStore::PrefixStore(std::string prefix, StorePtr store) : prefix_(std::move(prefix)), store_(std::move(store)) {
  if (store_ == nullptr) throw_error(ErrorKind::Value, "PrefixStore('" + prefix_ + "'): the underlying store is None");
  timeout_ = store_->timeout();
}

std::string PrefixStore::prefixed(const std::string& key) const { return prefix_ + "/" + key; }

std::vector<std::string> PrefixStore::prefixed(const std::vector<std::string>& keys) const {
  std::vector<std::string> result;
  result.reserve(keys.size());
  for (const std::string& key : keys) result.push_back(prefixed(key));
  return result;
}

void PrefixStore::set(const std::string& key, const Bytes& value) { store_->set(prefixed(key), value); }

Bytes PrefixStore::get(const std::string& key) {
  const std::string full = prefixed(key);
  store_->wait({full}, timeout());
  return store_->get(full);
}

std::int64_t PrefixStore::add(const std::string& key, std::int64_t delta) { return store_->add(prefixed(key), delta); }

Bytes PrefixStore::compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) {
  return store_->compare_set(prefixed(key), expected, desired);
}

bool PrefixStore::check(const std::vector<std::string>& keys) { return store_->check(prefixed(keys)); }

void PrefixStore::wait(const std::vector<std::string>& keys, Milliseconds timeout) {
  store_->wait(prefixed(keys), timeout);
}

bool PrefixStore::delete_key(const std::string& key) { return store_->delete_key(prefixed(key)); }

std::int64_t PrefixStore::num_keys() { return store_->num_keys(); }

}  // namespace ember::distributed
