#include "distributed/tcp_store.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "distributed/deadline.h"
#include "distributed/key_value_map.h"
#include "distributed/store_errors.h"
#include "distributed/tcp_store_protocol.h"
#include "distributed/tcp_store_server.h"
#include "ember/error.h"

namespace ember::distributed {
namespace {

// Every store adds one here when it joins (c10d's "init/" key).
const std::string kJoinedKey = std::string(kInternalKeyPrefix) + "tcp_store/joined";

// The least time past a wait's own timeout the client gives the server to
// answer before it calls the connection dead.
constexpr Milliseconds kReplyGrace{5000};
// How often the master looks at the join count.
constexpr Milliseconds kJoinPollInterval{10};

std::uint8_t byte_of(Request request) { return static_cast<std::uint8_t>(request); }

std::string_view view_of(const Bytes& bytes) {
  return std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

Bytes bytes_of(const std::string& text) { return Bytes(text.begin(), text.end()); }

}  // namespace

TCPStore::TCPStore(TCPStoreOptions options) : host_(std::move(options.host)), port_(options.port) {
  timeout_ = options.timeout;
  if (options.world_size && *options.world_size <= 0) {
    throw_error(ErrorKind::Value, "TCPStore: world_size must be positive, got " + std::to_string(*options.world_size));
  }
  if (options.is_master) {
    server_ = std::make_unique<TCPStoreServer>(host_, port_);
    port_ = server_->port();
  } else if (port_ == 0) {
    throw_error(ErrorKind::Value, "TCPStore: a client needs the master's port; 0 is only for the master");
  }
  // The master reaches its own server on the loopback address whatever the
  // host names, since it listens on every address.
  connect_host_ = options.is_master ? "127.0.0.1" : host_;
  idle_connections_.push_back(connect_tcp(connect_host_, port_, timeout_));
  add(kJoinedKey, 1);
  if (options.is_master && options.wait_for_workers && options.world_size) wait_for_workers(*options.world_size);
}

TCPStore::~TCPStore() {
  // Close the connections before the server stops serving them.
  idle_connections_.clear();
  server_.reset();
}

std::string TCPStore::describe() const { return "TCPStore (" + host_ + ":" + std::to_string(port_) + ")"; }

void TCPStore::wait_for_workers(int world_size) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    const std::int64_t joined = add(kJoinedKey, 0);
    if (joined >= world_size) return;
    const auto waited = std::chrono::duration_cast<Milliseconds>(std::chrono::steady_clock::now() - start);
    if (waited >= timeout()) {
      throw_error(ErrorKind::DistributedStore, describe() + ": " + std::to_string(joined) + " of " +
                                                   std::to_string(world_size) + " workers joined within " +
                                                   std::to_string(waited.count()) + " ms");
    }
    std::this_thread::sleep_for(kJoinPollInterval);
  }
}

FileDescriptor TCPStore::acquire_connection() {
  {
    std::lock_guard lock(mutex_);
    if (lost_) {
      throw_error(ErrorKind::DistributedStore, describe() + ": the connection to the server was lost");
    }
    if (!idle_connections_.empty()) {
      FileDescriptor connection = std::move(idle_connections_.back());
      idle_connections_.pop_back();
      return connection;
    }
  }
  return connect_tcp(connect_host_, port_, timeout());
}

std::string TCPStore::call(const std::string& what, const std::string& request, Milliseconds waits_for,
                           const std::vector<std::string>& keys) {
  FileDescriptor connection = acquire_connection();
  // A server slower than the store's timeout to answer is as good as lost.
  const SteadyTime deadline =
      deadline_after(std::clamp(waits_for, Milliseconds(0), kLongestWait) + std::max(kReplyGrace, timeout()));
  auto fail = [&](const std::string& problem) {
    std::lock_guard lock(mutex_);
    lost_ = true;
    throw_error(ErrorKind::DistributedStore, describe() + ": " + what + " " + problem);
  };
  auto lost = [&](const char* step) {
    fail(std::string("lost the connection to the server while ") + step + ": " + std::strerror(errno));
  };
  if (!send_all(connection.get(), request.data(), request.size(), deadline)) lost("sending");
  char length_bytes[kLengthBytes];
  if (!recv_all(connection.get(), length_bytes, kLengthBytes, deadline)) lost("receiving");
  const std::uint32_t length = decode_length(length_bytes);
  if (length == 0 || length > kMaxMessageBytes) fail("got a malformed reply");
  std::string body(length, '\0');
  if (!recv_all(connection.get(), body.data(), length, deadline)) lost("receiving");
  {
    std::lock_guard lock(mutex_);
    idle_connections_.push_back(std::move(connection));
  }
  const auto reply = static_cast<Reply>(body[0]);
  body.erase(0, 1);
  if (reply == Reply::TimedOut) throw_wait_timeout(describe(), keys, waits_for);
  if (reply == Reply::Failed) throw_error(ErrorKind::DistributedStore, describe() + ": " + MessageReader(body).bytes());
  return body;
}

void TCPStore::set(const std::string& key, const Bytes& value) {
  call("set", MessageWriter().u8(byte_of(Request::Set)).bytes(key).bytes(view_of(value)).finish(), Milliseconds(0),
       {key});
}

Bytes TCPStore::get(const std::string& key) {
  const Milliseconds timeout = this->timeout();
  const std::string reply =
      call("get", MessageWriter().u8(byte_of(Request::Get)).i64(timeout.count()).bytes(key).finish(), timeout, {key});
  return bytes_of(MessageReader(reply).bytes());
}

std::int64_t TCPStore::add(const std::string& key, std::int64_t delta) {
  const std::string reply =
      call("add", MessageWriter().u8(byte_of(Request::Add)).bytes(key).i64(delta).finish(), Milliseconds(0), {key});
  return MessageReader(reply).i64();
}

Bytes TCPStore::compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) {
  const std::string reply = call("compare_set",
                                 MessageWriter()
                                     .u8(byte_of(Request::CompareSet))
                                     .bytes(key)
                                     .bytes(view_of(expected))
                                     .bytes(view_of(desired))
                                     .finish(),
                                 Milliseconds(0), {key});
  return bytes_of(MessageReader(reply).bytes());
}

bool TCPStore::check(const std::vector<std::string>& keys) {
  const std::string reply =
      call("check", MessageWriter().u8(byte_of(Request::Check)).keys(keys).finish(), Milliseconds(0), keys);
  return MessageReader(reply).u8() != 0;
}

void TCPStore::wait(const std::vector<std::string>& keys, Milliseconds timeout) {
  call("wait", MessageWriter().u8(byte_of(Request::Wait)).i64(timeout.count()).keys(keys).finish(), timeout, keys);
}

bool TCPStore::delete_key(const std::string& key) {
  const std::string reply =
      call("delete_key", MessageWriter().u8(byte_of(Request::DeleteKey)).bytes(key).finish(), Milliseconds(0), {key});
  return MessageReader(reply).u8() != 0;
}

std::int64_t TCPStore::num_keys() {
  const std::string reply =
      call("num_keys", MessageWriter().u8(byte_of(Request::NumKeys)).finish(), Milliseconds(0), {});
  return MessageReader(reply).i64();
}

}  // namespace ember::distributed
