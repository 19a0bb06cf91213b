#include "distributed/socket.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fcntl.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>
#include <utility>

#include "ember/error.h"

namespace ember::distributed {
namespace {

std::string address_of(const std::string& host, std::uint16_t port) { return host + ":" + std::to_string(port); }

// Milliseconds left until `deadline`, rounded up so that poll never returns early.
int remaining_ms(SteadyTime deadline) {
  const auto left = deadline - std::chrono::steady_clock::now();
  if (left <= std::chrono::steady_clock::duration::zero()) return 0;
  return static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(left).count());
}

// Waits for `events` on fd; false with errno ETIMEDOUT at the deadline.
bool wait_ready(int fd, short events, SteadyTime deadline) {
  for (;;) {
    pollfd entry{fd, events, 0};
    const int ready = ::poll(&entry, 1, remaining_ms(deadline));
    if (ready > 0) return true;
    if (ready == 0) {
      errno = ETIMEDOUT;
      return false;
    }
    if (errno != EINTR) return false;
  }
}

void set_blocking(int fd, bool blocking) {
  const int flags = ::fcntl(fd, F_GETFL, 0);
  ::fcntl(fd, F_SETFL, blocking ? (flags & ~O_NONBLOCK) : (flags | O_NONBLOCK));
}

// One non-blocking connect bounded by `deadline`; the error number, or 0.
int try_connect(const addrinfo& address, SteadyTime deadline, FileDescriptor& connected) {
  FileDescriptor fd(::socket(address.ai_family, address.ai_socktype | SOCK_CLOEXEC, address.ai_protocol));
  if (!fd.valid()) return errno;
  set_blocking(fd.get(), false);
  if (::connect(fd.get(), address.ai_addr, address.ai_addrlen) != 0) {
    if (errno != EINPROGRESS) return errno;
    if (!wait_ready(fd.get(), POLLOUT, deadline)) return errno;
    int error = 0;
    socklen_t length = sizeof error;
    ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &error, &length);
    if (error != 0) return error;
  }
  set_blocking(fd.get(), true);
  const int one = 1;
  ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  connected = std::move(fd);
  return 0;
}

}  // namespace

FileDescriptor::~FileDescriptor() {
  if (fd_ >= 0) ::close(fd_);
}

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

int FileDescriptor::release() { return std::exchange(fd_, -1); }

FileDescriptor listen_tcp(const std::string& host, std::uint16_t port) {
  auto fail = [&](const char* step) {
    throw_error(ErrorKind::DistributedStore, "TCPStore: cannot " + std::string(step) + " the server socket at " +
                                                 address_of(host, port) + ": " + std::strerror(errno));
  };
  FileDescriptor fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) fail("create");
  // A port a finished job left in TIME_WAIT is free to reuse; one that a
  // live socket listens on still fails with EADDRINUSE.
  const int one = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  // The server listens on the address it was given, loopback by default,
  // never on every interface unless told so ("0.0.0.0"): a store on a
  // shared machine is not open to the network by accident.
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  const std::string name = host.empty() || host == "localhost" ? "127.0.0.1" : host;
  if (::inet_pton(AF_INET, name.c_str(), &address.sin_addr) != 1) {
    addrinfo hints{};
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const int resolved = ::getaddrinfo(name.c_str(), nullptr, &hints, &found);
    if (resolved != 0 || found == nullptr) {
      throw_error(ErrorKind::DistributedStore, "TCPStore: cannot resolve the server's host " + address_of(host, port) +
                                                   ": " + ::gai_strerror(resolved));
    }
    address.sin_addr = reinterpret_cast<sockaddr_in*>(found->ai_addr)->sin_addr;
    ::freeaddrinfo(found);
  }
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) fail("bind");
  if (::listen(fd.get(), SOMAXCONN) != 0) fail("listen on");
  return fd;
}

std::uint16_t local_port(int fd) {
  sockaddr_in address{};
  socklen_t length = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  return ntohs(address.sin_port);
}

FileDescriptor connect_tcp(const std::string& host, std::uint16_t port, std::chrono::milliseconds timeout) {
  const auto start = std::chrono::steady_clock::now();
  const SteadyTime deadline = deadline_after(timeout);
  std::string reason = "no attempt finished";
  auto backoff = std::chrono::milliseconds(10);
  for (;;) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const int resolved = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
    if (resolved != 0) {
      reason = std::string("cannot resolve the host: ") + ::gai_strerror(resolved);
    } else {
      for (addrinfo* address = found; address != nullptr; address = address->ai_next) {
        FileDescriptor connected;
        const int error = try_connect(*address, deadline, connected);
        if (error == 0) {
          ::freeaddrinfo(found);
          return connected;
        }
        reason = std::strerror(error);
      }
      ::freeaddrinfo(found);
    }
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(backoff, deadline - std::chrono::steady_clock::now()));
    backoff = std::min(backoff * 2, std::chrono::milliseconds(500));
  }
  const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  throw_error(ErrorKind::DistributedStore, "TCPStore client could not connect to " + address_of(host, port) +
                                               " after trying for " + std::to_string(waited.count()) +
                                               " ms: " + reason);
}

bool send_all(int fd, const void* data, std::size_t size, SteadyTime deadline) {
  const char* at = static_cast<const char*>(data);
  while (size > 0) {
    if (!wait_ready(fd, POLLOUT, deadline)) return false;
    const ssize_t n = ::send(fd, at, size, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) return false;
    at += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

bool recv_all(int fd, void* data, std::size_t size, SteadyTime deadline) {
  char* at = static_cast<char*>(data);
  while (size > 0) {
    if (!wait_ready(fd, POLLIN, deadline)) return false;
    const ssize_t n = ::recv(fd, at, size, MSG_DONTWAIT);
    if (n == 0) {
      errno = ECONNRESET;
      return false;
    }
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) return false;
    at += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace ember::distributed
