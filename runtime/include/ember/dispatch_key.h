#pragma once

#include <bit>
#include <cstdint>

#include "ember/device.h"

namespace ember {

// Note [Dispatch keys]
// A call's keys form a 64-bit set; the highest set bit picks the step that
// runs next. Bits [0, kMaxDeviceTypes) are backend keys, one per device type
// id (cpu = 0, meta = 1, plugins from 2 up), so a tensor's backend key is its
// device type. Functionality keys sit above every backend key and run
// before it, highest first: Python (reserved for __torch_function__-style
// overrides), Autocast (mixed precision, Note [Autocast]), Autograd, Trace
// (graph capture). Autocast sits above Autograd so that its casts are
// recorded and gradients reach the tensors they cast. A functionality step does its
// work and re-dispatches with its own key excluded. Trace sits below
// Autograd so that a compiled function's derivatives are traced as ops too
// (Note [Compiled training]).
enum class DispatchKey : uint8_t {
  Trace = 60,
  Autograd = 61,
  Autocast = 62,
  Python = 63,
};

inline constexpr uint8_t backend_key(DeviceTypeId type) { return static_cast<uint8_t>(type); }

class DispatchKeySet {
 public:
  constexpr DispatchKeySet() = default;
  constexpr explicit DispatchKeySet(uint64_t bits) : bits_(bits) {}
  static constexpr DispatchKeySet of(DispatchKey k) {
    return DispatchKeySet(uint64_t{1} << static_cast<uint8_t>(k));
  }
  static constexpr DispatchKeySet of_backend(DeviceTypeId type) {
    return DispatchKeySet(uint64_t{1} << backend_key(type));
  }

  constexpr uint64_t bits() const { return bits_; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr bool has(DispatchKey k) const {
    return (bits_ >> static_cast<uint8_t>(k)) & 1u;
  }
  // Index of the highest set bit; the set must not be empty.
  constexpr int highest() const { return 63 - std::countl_zero(bits_); }
  constexpr DispatchKeySet operator|(DispatchKeySet o) const { return DispatchKeySet(bits_ | o.bits_); }
  constexpr DispatchKeySet operator&(DispatchKeySet o) const { return DispatchKeySet(bits_ & o.bits_); }
  constexpr DispatchKeySet operator-(DispatchKeySet o) const { return DispatchKeySet(bits_ & ~o.bits_); }
  constexpr DispatchKeySet backends() const {
    return DispatchKeySet(bits_ & ((uint64_t{1} << kMaxDeviceTypes) - 1));
  }
  friend constexpr bool operator==(DispatchKeySet a, DispatchKeySet b) { return a.bits_ == b.bits_; }

 private:
  uint64_t bits_ = 0;
};

// Thread-local include/exclude sets: how no_grad and capture switch keys
// on and off for everything that runs on this thread.
struct LocalDispatchKeys {
  DispatchKeySet included;
  DispatchKeySet excluded;
};
LocalDispatchKeys& local_dispatch_keys();

// RAII: includes `keys` on this thread for the guard's lifetime.
class IncludeDispatchKeysGuard {
 public:
  explicit IncludeDispatchKeysGuard(DispatchKeySet keys);
  ~IncludeDispatchKeysGuard();
  IncludeDispatchKeysGuard(const IncludeDispatchKeysGuard&) = delete;
  IncludeDispatchKeysGuard& operator=(const IncludeDispatchKeysGuard&) = delete;

 private:
  DispatchKeySet previous_;
};

// RAII: excludes `keys` on this thread for the guard's lifetime.
class ExcludeDispatchKeysGuard {
 public:
  explicit ExcludeDispatchKeysGuard(DispatchKeySet keys);
  ~ExcludeDispatchKeysGuard();
  ExcludeDispatchKeysGuard(const ExcludeDispatchKeysGuard&) = delete;
  ExcludeDispatchKeysGuard& operator=(const ExcludeDispatchKeysGuard&) = delete;

 private:
  DispatchKeySet previous_;
};

}  // namespace ember
