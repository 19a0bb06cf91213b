#pragma once

#include <stdexcept>
#include <string>

namespace ember {

// Category of a failure; the Python bridge maps each to the exception type a
// PyTorch user expects (RuntimeError, ValueError, TypeError, IndexError,
// NotImplementedError, MemoryError).
enum class ErrorKind {
  Runtime,
  Value,
  Type,
  Index,
  NotImplemented,
  OutOfMemory,
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
