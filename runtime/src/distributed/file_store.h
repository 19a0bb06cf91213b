#pragma once
// A store in one file that processes on one machine, or on a shared file
// system, open by path (c10d's FileStore). Note [FileStore records].
#include <mutex>

#include "distributed/key_value_map.h"
#include "distributed/store.h"

namespace ember::distributed {

class FileStore : public Store {
 public:
  // `world_size` processes share the file, which the last of them to close
  // removes; -1 keeps it. Throws ErrorKind::DistributedStore when the file
  // cannot be opened or more than `world_size` users open it.
  FileStore(std::string path, int world_size);
  ~FileStore() override;
  FileStore(const FileStore&) = delete;
  FileStore& operator=(const FileStore&) = delete;

  void set(const std::string& key, const Bytes& value) override;
  Bytes get(const std::string& key) override;
  std::int64_t add(const std::string& key, std::int64_t delta) override;
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) override;
  bool check(const std::vector<std::string>& keys) override;
  using Store::wait;
  void wait(const std::vector<std::string>& keys, Milliseconds timeout) override;
  bool delete_key(const std::string& key) override;
  std::int64_t num_keys() override;

  const std::string& path() const { return path_; }

 private:
  class LockedFile;
  std::int64_t add_locked(LockedFile& file, const std::string& key, std::int64_t delta);

  std::string path_;
  int world_size_;
  std::mutex mutex_;
  // What the file said up to offset_.
  KeyValueMap cache_;
  std::int64_t offset_ = 0;
};

}  // namespace ember::distributed
