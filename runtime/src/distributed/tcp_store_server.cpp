#include "distributed/tcp_store_server.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/logging.h"
#include "distributed/deadline.h"
#include "ember/error.h"

namespace ember::distributed {
TCPStoreServer::TCPStoreServer(const std::string& host, std::uint16_t port)
    : listener_(listen_tcp(host, port)), wakeup_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  if (!wakeup_.valid()) {
    throw_error(ErrorKind::DistributedStore,
                std::string("TCPStore: cannot create the server's wakeup event: ") + std::strerror(errno));
  }
  port_ = local_port(listener_.get());
  thread_ = std::thread([this] { serve(); });
}

TCPStoreServer::~TCPStoreServer() {
  stopping_ = true;
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t written = ::write(wakeup_.get(), &one, sizeof one);
  thread_.join();
}

void TCPStoreServer::serve() {
  std::vector<pollfd> polled;
  std::vector<int> polled_connections;
  while (!stopping_) {
    polled.assign({pollfd{wakeup_.get(), POLLIN, 0}, pollfd{listener_.get(), POLLIN, 0}});
    polled_connections.clear();
    for (auto& [fd, connection] : connections_) {
      short events = connection.pending ? 0 : POLLIN;
      if (!connection.to_send.empty()) events |= POLLOUT;
      polled.push_back(pollfd{fd, events, 0});
      polled_connections.push_back(fd);
    }
    if (::poll(polled.data(), polled.size(), poll_timeout_ms()) < 0) {
      if (errno == EINTR) continue;
      log().error("TCPStore server on port {} stops: poll failed: {}", port_, std::strerror(errno));
      return;
    }
    if (polled[0].revents != 0) return;
    if (polled[1].revents & POLLIN) accept_clients();
    for (std::size_t i = 0; i < polled_connections.size(); ++i) {
      Connection& connection = connections_.at(polled_connections[i]);
      const short revents = polled[i + 2].revents;
      if (revents & (POLLIN | POLLHUP | POLLERR)) receive(connection);
      if (!connection.closed) handle_requests(connection);
    }
    answer_waits();
    for (auto& [fd, connection] : connections_) {
      if (!connection.closed && !connection.to_send.empty()) flush(connection);
    }
    std::erase_if(connections_, [](const auto& entry) { return entry.second.closed; });
  }
}

void TCPStoreServer::accept_clients() {
  for (;;) {
    const int fd = ::accept4(listener_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN once the backlog is empty; anything else the client retries.
    connections_[fd].fd = FileDescriptor(fd);
  }
}

void TCPStoreServer::receive(Connection& connection) {
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::recv(connection.fd.get(), buffer, sizeof buffer, 0);
    if (n > 0) {
      connection.received.append(buffer, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    // The peer closed or failed, possibly in the middle of a message: what
    // it sent of that message is dropped with the connection.
    connection.closed = true;
    return;
  }
}

void TCPStoreServer::flush(Connection& connection) {
  while (!connection.to_send.empty()) {
    const ssize_t n =
        ::send(connection.fd.get(), connection.to_send.data(), connection.to_send.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n < 0) {
      connection.closed = true;
      return;
    }
    connection.to_send.erase(0, static_cast<std::size_t>(n));
  }
}

void TCPStoreServer::handle_requests(Connection& connection) {
  while (!connection.pending && connection.received.size() >= kLengthBytes) {
    const std::uint32_t length = decode_length(connection.received.data());
    if (length > kMaxMessageBytes) {
      log().warn("TCPStore server on port {}: closing a client that sent a message of {} bytes", port_, length);
      connection.closed = true;
      return;
    }
    if (connection.received.size() < kLengthBytes + length) return;
    ParsedRequest request;
    try {
      request = parse_request(std::string_view(connection.received).substr(kLengthBytes, length));
    } catch (const Error& e) {
      log().warn("TCPStore server on port {}: closing a client: {}", port_, e.what());
      connection.closed = true;
      return;
    }
    connection.received.erase(0, kLengthBytes + length);
    if (!execute(connection, request)) {
      const SteadyTime deadline = deadline_after(Milliseconds(request.number));
      connection.pending = PendingWait{std::move(request), deadline};
    }
  }
}

TCPStoreServer::ParsedRequest TCPStoreServer::parse_request(std::string_view body) {
  MessageReader reader(body);
  ParsedRequest request;
  request.kind = static_cast<Request>(reader.u8());
  switch (request.kind) {
    case Request::Set:
      request.key = reader.bytes();
      request.value = reader.bytes();
      break;
    case Request::Get:
      request.number = reader.i64();
      request.key = reader.bytes();
      request.keys = {request.key};
      break;
    case Request::Add:
      request.key = reader.bytes();
      request.number = reader.i64();
      break;
    case Request::CompareSet:
      request.key = reader.bytes();
      request.expected = reader.bytes();
      request.value = reader.bytes();
      break;
    case Request::Check:
      request.keys = reader.keys();
      break;
    case Request::Wait:
      request.number = reader.i64();
      request.keys = reader.keys();
      break;
    case Request::DeleteKey:
      request.key = reader.bytes();
      break;
    case Request::NumKeys:
      break;
    default:
      throw_error(ErrorKind::DistributedStore, "TCPStore: an unknown request");
  }
  if (!reader.at_end()) throw_error(ErrorKind::DistributedStore, "TCPStore: a malformed message");
  return request;
}

bool TCPStoreServer::execute(Connection& connection, const ParsedRequest& request) {
  auto as_bytes = [](const std::string& text) { return Bytes(text.begin(), text.end()); };
  MessageWriter reply;
  reply.u8(static_cast<std::uint8_t>(Reply::Ok));
  try {
    switch (request.kind) {
      case Request::Set:
        entries_.set(request.key, as_bytes(request.value));
        break;
      case Request::Get: {
        const Bytes* value = entries_.find(request.key);
        if (value == nullptr) return false;
        reply.bytes(std::string_view(reinterpret_cast<const char*>(value->data()), value->size()));
        break;
      }
      case Request::Add:
        reply.i64(entries_.add(request.key, request.number));
        break;
      case Request::CompareSet: {
        const Bytes stored = entries_.compare_set(request.key, as_bytes(request.expected), as_bytes(request.value));
        reply.bytes(std::string_view(reinterpret_cast<const char*>(stored.data()), stored.size()));
        break;
      }
      case Request::Check:
        reply.u8(entries_.contains_all(request.keys) ? 1 : 0);
        break;
      case Request::Wait:
        if (!entries_.contains_all(request.keys)) return false;
        break;
      case Request::DeleteKey:
        reply.u8(entries_.erase(request.key) ? 1 : 0);
        break;
      case Request::NumKeys:
        reply.i64(entries_.count_user_keys());
        break;
    }
  } catch (const Error& e) {
    connection.to_send += MessageWriter().u8(static_cast<std::uint8_t>(Reply::Failed)).bytes(e.what()).finish();
    return true;
  }
  connection.to_send += reply.finish();
  return true;
}

void TCPStoreServer::answer_waits() {
  // A change a connection made may satisfy another's wait, and answering a
  // wait lets its connection's next requests (which may change keys) run:
  // repeat until nothing moves.
  for (bool progressed = true; progressed;) {
    progressed = false;
    const auto now = std::chrono::steady_clock::now();
    for (auto& [fd, connection] : connections_) {
      if (!connection.pending || connection.closed) continue;
      if (execute(connection, connection.pending->request)) {
        connection.pending.reset();
      } else if (now >= connection.pending->deadline) {
        connection.to_send += MessageWriter().u8(static_cast<std::uint8_t>(Reply::TimedOut)).finish();
        connection.pending.reset();
      } else {
        continue;
      }
      handle_requests(connection);
      progressed = true;
    }
  }
}

int TCPStoreServer::poll_timeout_ms() const {
  int timeout = -1;
  const auto now = std::chrono::steady_clock::now();
  for (const auto& [fd, connection] : connections_) {
    if (!connection.pending) continue;
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(connection.pending->deadline - now).count();
    const int ms = left < 0 ? 0 : static_cast<int>(std::min<long long>(left, 1 << 30));
    if (timeout < 0 || ms < timeout) timeout = ms;
  }
  return timeout;
}

}  // namespace ember::distributed
