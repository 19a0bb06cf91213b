#pragma once
// An in-process store (c10d's HashStore): threads of one process share it,
// for tests and for world_size 1.
#include <condition_variable>
#include <mutex>

#include "distributed/key_value_map.h"
#include "distributed/store.h"

namespace ember::distributed {

class HashStore : public Store {
 public:
  void set(const std::string& key, const Bytes& value) override;
  Bytes get(const std::string& key) override;
  std::int64_t add(const std::string& key, std::int64_t delta) override;
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) override;
  bool check(const std::vector<std::string>& keys) override;
  using Store::wait;
  void wait(const std::vector<std::string>& keys, Milliseconds timeout) override;
  bool delete_key(const std::string& key) override;
  std::int64_t num_keys() override;

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  KeyValueMap entries_;
};

}  // namespace ember::distributed
