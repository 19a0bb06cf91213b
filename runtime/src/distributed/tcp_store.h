#pragma once
// A store served over TCP (c10d's TCPStore): the master process runs the
// server (tcp_store_server.h) on a background thread, and every TCPStore,
// the master's included, is a client of it.
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "distributed/socket.h"
#include "distributed/store.h"

namespace ember::distributed {

class TCPStoreServer;

struct TCPStoreOptions {
  std::string host = "127.0.0.1";
  // 0 lets the OS pick a free port (master only); port() says which.
  std::uint16_t port = 0;
  // The number of TCPStores, the master's included, that will join; unset
  // when unknown.
  std::optional<int> world_size;
  bool is_master = false;
  Milliseconds timeout = kDefaultStoreTimeout;
  // The master's constructor waits until world_size stores have joined.
  bool wait_for_workers = true;
};

class TCPStore : public Store {
 public:
  // Throws ErrorKind::DistributedStore when the master cannot listen at
  // host:port, a client finds no server within the timeout, or the workers
  // do not all join within it.
  explicit TCPStore(TCPStoreOptions options);
  ~TCPStore() override;

  void set(const std::string& key, const Bytes& value) override;
  Bytes get(const std::string& key) override;
  std::int64_t add(const std::string& key, std::int64_t delta) override;
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) override;
  bool check(const std::vector<std::string>& keys) override;
  using Store::wait;
  void wait(const std::vector<std::string>& keys, Milliseconds timeout) override;
  bool delete_key(const std::string& key) override;
  std::int64_t num_keys() override;

  const std::string& host() const { return host_; }
  std::uint16_t port() const { return port_; }
  bool is_master() const { return server_ != nullptr; }

 private:
  // Sends one framed request and returns the reply's body after its Reply
  // byte; `waits_for` is how long the server may hold the answer back.
  std::string call(const std::string& what, const std::string& request, Milliseconds waits_for,
                   const std::vector<std::string>& keys);
  std::string describe() const;
  void wait_for_workers(int world_size);

  // A connection no other call uses, opened when all are busy.
  FileDescriptor acquire_connection();

  std::string host_;
  std::string connect_host_;
  std::uint16_t port_ = 0;
  std::unique_ptr<TCPStoreServer> server_;
  // Note [TCPStore connections]: a Get or Wait holds its connection until
  // the server answers, so calls from other threads take other connections:
  // idle ones wait here, and a call that finds none opens one.
  std::mutex mutex_;
  std::vector<FileDescriptor> idle_connections_;
  bool lost_ = false;
};

}  // namespace ember::distributed
