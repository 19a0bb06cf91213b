#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ember {

// Device types are small integers: cpu and meta are fixed, every other type is
// assigned when a plugin claims its name (Note [Device type slots]).
using DeviceTypeId = int16_t;
inline constexpr DeviceTypeId kCpuDeviceType = 0;
inline constexpr DeviceTypeId kMetaDeviceType = 1;
inline constexpr int kMaxDeviceTypes = 48;

struct Device {
  DeviceTypeId type = kCpuDeviceType;
  int32_t index = 0;

  Device() = default;
  Device(DeviceTypeId t, int32_t i = 0) : type(t), index(i) {}  // NOLINT
  // "cpu", "meta", "cuda:1": the type must be known (built in or claimed by a
  // loaded plugin).
  Device(std::string_view spec);  // NOLINT: implicit, like torch.device("cuda")
  Device(const char* spec) : Device(std::string_view(spec)) {}  // NOLINT

  std::string type_name() const;
  // "cpu", "meta", "cuda:1" (the index is shown when non-zero or when the type
  // is not cpu/meta, as PyTorch does).
  std::string str() const;
  bool is_cpu() const { return type == kCpuDeviceType; }
  bool is_meta() const { return type == kMetaDeviceType; }

  friend bool operator==(const Device& a, const Device& b) {
    return a.type == b.type && a.index == b.index;
  }
  friend bool operator!=(const Device& a, const Device& b) { return !(a == b); }
};

}  // namespace ember
