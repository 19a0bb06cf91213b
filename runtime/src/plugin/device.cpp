#include "ember/device.h"

#include <charconv>
#include <string>

#include "ember/error.h"
#include "plugin/device_registry.h"
#include "plugin/loader.h"

namespace ember {

Device::Device(std::string_view spec) {
  const size_t colon = spec.find(':');
  const std::string_view name = spec.substr(0, colon);
  index = 0;
  if (colon != std::string_view::npos) {
    const std::string_view digits = spec.substr(colon + 1);
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (ec != std::errc() || end != digits.data() + digits.size() || index < 0) {
      throw_error(ErrorKind::Value, "invalid device string '" + std::string(spec) + "'");
    }
  }
  auto& registry = plugin::DeviceRegistry::get();
  DeviceTypeId id = registry.find_type(name);
  if (id < 0) {
    plugin::discover_plugins();
    id = registry.find_type(name);
  }
  if (id < 0) {
    throw_error(ErrorKind::Runtime, "unknown device type '" + std::string(name) +
                                        "': no loaded plugin provides it (see ember::plugins())");
  }
  type = id;
}

std::string Device::type_name() const { return plugin::DeviceRegistry::get().type_name(type); }

std::string Device::str() const {
  if ((is_cpu() || is_meta()) && index == 0) return type_name();
  return type_name() + ":" + std::to_string(index);
}

}  // namespace ember
