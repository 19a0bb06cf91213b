#pragma once
// The TCPStore's server: one background thread serving every client through
// poll(2) (Note [TCPStore protocol]), never a thread per client.
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "distributed/key_value_map.h"
#include "distributed/socket.h"
#include "distributed/tcp_store_protocol.h"

namespace ember::distributed {

class TCPStoreServer {
 public:
  // Listens before returning, so that a port in use fails here
  // (ErrorKind::DistributedStore naming host:port and the OS's reason).
  TCPStoreServer(const std::string& host, std::uint16_t port);
  // Stops the thread and closes every connection.
  ~TCPStoreServer();
  TCPStoreServer(const TCPStoreServer&) = delete;
  TCPStoreServer& operator=(const TCPStoreServer&) = delete;

  std::uint16_t port() const { return port_; }

 private:
  struct ParsedRequest {
    Request kind{};
    std::string key;
    std::vector<std::string> keys;
    std::string value, expected;
    std::int64_t number = 0;
  };
  // A Get or Wait whose keys are not all there yet.
  struct PendingWait {
    ParsedRequest request;
    SteadyTime deadline;
  };
  struct Connection {
    FileDescriptor fd;
    std::string received;
    std::string to_send;
    std::optional<PendingWait> pending;
    bool closed = false;
  };

  void serve();
  void accept_clients();
  void receive(Connection& connection);
  void flush(Connection& connection);
  // Runs every complete request of a connection that is not waiting.
  void handle_requests(Connection& connection);
  static ParsedRequest parse_request(std::string_view body);
  // False when the request must wait for keys.
  bool execute(Connection& connection, const ParsedRequest& request);
  // Answers the waits the last change satisfied, and those whose deadline passed.
  void answer_waits();
  int poll_timeout_ms() const;

  FileDescriptor listener_;
  FileDescriptor wakeup_;
  std::uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::unordered_map<int, Connection> connections_;
  KeyValueMap entries_;  // Touched only by the serving thread.
  std::thread thread_;
};

}  // namespace ember::distributed
