#pragma once
// The few POSIX socket calls the TCPStore needs, with errors that name the
// address and the OS's reason.
#include <chrono>
#include <cstdint>
#include <string>

#include "distributed/deadline.h"

namespace ember::distributed {

// Owns a file descriptor; closes it once.
class FileDescriptor {
 public:
  FileDescriptor() = default;
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor();
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(other.release()) {}
  FileDescriptor& operator=(FileDescriptor&& other) noexcept;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;

  int get() const { return fd_; }
  int release();
  bool valid() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// A non-blocking socket listening on every IPv4 address at `port` (0: one
// the OS picks). Throws ErrorKind::DistributedStore naming host:port and the
// OS's reason.
FileDescriptor listen_tcp(const std::string& host, std::uint16_t port);
std::uint16_t local_port(int fd);

// Connects to host:port, retrying a refused or unreachable address until
// `timeout` has passed; throws ErrorKind::DistributedStore naming host:port,
// the time waited and the last reason.
FileDescriptor connect_tcp(const std::string& host, std::uint16_t port, std::chrono::milliseconds timeout);

// Whole-buffer transfers on a blocking socket, false when the peer closed or
// `deadline` passed (errno says which: ETIMEDOUT for the deadline).
bool send_all(int fd, const void* data, std::size_t size, SteadyTime deadline);
bool recv_all(int fd, void* data, std::size_t size, SteadyTime deadline);

}  // namespace ember::distributed
