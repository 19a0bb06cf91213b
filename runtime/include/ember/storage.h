#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "ember/device.h"
#include "ember/error.h"

namespace ember {

// Memory that one or more tensors view. Blocks come from the device's caching
// allocator and go back to it when the last view dies. The version counter
// lives here, not in the tensor, because every view of the memory must see
// an in-place write (Note [Version counter]).
class Storage {
 public:
  // `release` returns `data` to whoever gave it; it may be empty (meta).
  using Release = void (*)(void* context, void* data) noexcept;

  Storage(void* data, size_t nbytes, Device device, Release release, void* context)
      : data_(data), nbytes_(nbytes), device_(device), release_(release), context_(context) {}
  ~Storage() {
    if (release_ != nullptr) release_(context_, data_);
  }
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }

  // Note [Version counter]
  // The counter says how many in-place writes the memory has taken, so that
  // autograd can tell whether a tensor it saved still holds the values it
  // saw. It counts writes, not values: a write that stores what was there
  // still bumps it.
  // - Who bumps it: dispatch::call_into, after every kernel it runs into an
  //   existing tensor (in-place ops, fill_, copy_, and factories filling the
  //   memory they made), and Tensor::copy_ after a copy across devices. A
  //   fresh storage starts at 0; making a view does not bump, and every view
  //   shares its storage's count.
  // - How a saved tensor is checked: autograd::SavedTensor records version()
  //   when the forward op saves its input or output, and unpack() compares
  //   it in the backward pass; a difference is a RuntimeError naming the
  //   tensor, the op that saved it and both versions (PyTorch's "modified by
  //   an inplace operation" error), never a gradient from changed data.
  // - Views use the same count to notice that their history is stale after a
  //   write through another view (Note [In-place writes through views]).
  uint32_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }

  // Memory its owner lent for reading only (a read-only DLPack producer, a
  // read-only Python buffer): in-place writes into any view of it are refused.
  bool read_only() const { return read_only_; }
  void set_read_only() { read_only_ = true; }
  // Throws, naming the in-place `op`, when the memory is read-only.
  void check_writable(std::string_view op) const {
    if (read_only_) {
      throw_error(ErrorKind::Runtime, "in-place " + std::string(op) +
                                          ": cannot write into a read-only tensor (its memory was lent read-only, "
                                          "as by a read-only NumPy array through DLPack or bytes through "
                                          "frombuffer); write into a clone()");
    }
  }

 private:
  void* data_;
  size_t nbytes_;
  Device device_;
  Release release_;
  void* context_;
  std::atomic<uint32_t> version_{0};
  bool read_only_ = false;
};

}  // namespace ember
