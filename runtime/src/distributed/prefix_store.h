#pragma once
// A view of another store with every key under "<prefix>/" (c10d's
// PrefixStore): process groups and engines share one store without their
// keys meeting.
#include "distributed/store.h"

namespace ember::distributed {

class PrefixStore : public Store {
 public:
  // Throws ErrorKind::Value when `store` is null.
  PrefixStore(std::string prefix, StorePtr store);

  void set(const std::string& key, const Bytes& value) override;
  Bytes get(const std::string& key) override;
  std::int64_t add(const std::string& key, std::int64_t delta) override;
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) override;
  bool check(const std::vector<std::string>& keys) override;
  using Store::wait;
  void wait(const std::vector<std::string>& keys, Milliseconds timeout) override;
  bool delete_key(const std::string& key) override;
  // The underlying store's count, as c10d's PrefixStore reports it.
  std::int64_t num_keys() override;

  const StorePtr& underlying_store() const { return store_; }

 private:
  std::string prefixed(const std::string& key) const;
  std::vector<std::string> prefixed(const std::vector<std::string>& keys) const;

  std::string prefix_;
  StorePtr store_;
};

}  // namespace ember::distributed
