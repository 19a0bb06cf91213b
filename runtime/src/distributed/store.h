#pragma once
// The key-value store every process group bootstraps through (torch.distributed's
// c10d::Store): rank 0's engine address, NCCL's unique id, barriers and the
// launcher's rendezvous all travel as keys. Values are bytes; nothing pickled
// crosses the wire.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ember::distributed {

using Bytes = std::vector<std::uint8_t>;
using Milliseconds = std::chrono::milliseconds;

// torch.distributed's default for stores and process groups.
inline constexpr Milliseconds kDefaultStoreTimeout{300000};

// Every method is thread-safe. A call that waits (get, wait) gives up after
// the store's timeout, or the one passed, with ErrorKind::DistributedStore
// naming the keys it waited for and the time it waited.
class Store {
 public:
  virtual ~Store() = default;

  virtual void set(const std::string& key, const Bytes& value) = 0;
  // Waits until `key` exists, then returns its value.
  virtual Bytes get(const std::string& key) = 0;
  // Adds `delta` to the integer stored at `key` (0 when absent, kept as its
  // decimal text as c10d does) and returns the sum.
  virtual std::int64_t add(const std::string& key, std::int64_t delta) = 0;
  // Writes `desired` when the current value equals `expected`, or when the
  // key is absent and `expected` is empty; returns the value now stored.
  virtual Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) = 0;
  // Whether every key exists now; never waits.
  virtual bool check(const std::vector<std::string>& keys) = 0;
  virtual void wait(const std::vector<std::string>& keys, Milliseconds timeout) = 0;
  void wait(const std::vector<std::string>& keys) { wait(keys, timeout()); }
  // Whether the key existed.
  virtual bool delete_key(const std::string& key) = 0;
  virtual std::int64_t num_keys() = 0;

  Milliseconds timeout() const { return timeout_; }
  void set_timeout(Milliseconds timeout) { timeout_ = timeout; }

 protected:
  Milliseconds timeout_ = kDefaultStoreTimeout;
};

using StorePtr = std::shared_ptr<Store>;

}  // namespace ember::distributed
