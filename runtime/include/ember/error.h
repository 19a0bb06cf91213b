#pragma once

#include <stdexcept>
#include <string>

namespace ember {

// Category of a failure; the Python bridge maps each to the exception type a
// PyTorch user expects (RuntimeError, ValueError, TypeError, IndexError,
// NotImplementedError, MemoryError, and torch.distributed's DistStoreError and
// DistBackendError).
enum class ErrorKind {
  Runtime,
  Value,
  Type,
  Index,
  NotImplemented,
  OutOfMemory,
  // A store call that failed or timed out (ember.distributed.DistStoreError).
  DistributedStore,
  // A collective, a peer or an engine that failed (ember.distributed.DistBackendError).
  DistributedBackend,
};

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message)
      : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const noexcept { return kind_; }

 private:
  ErrorKind kind_;
};

[[noreturn]] void throw_error(ErrorKind kind, const std::string& message);

}  // namespace ember
