// The public plugin and device API of ember/plugins.h.
#include "ember/plugins.h"

#include <optional>

#include "core/logging.h"
#include "ember/error.h"
#include "ember/profiler.h"
#include "plugin/device_call.h"
#include "plugin/device_registry.h"
#include "plugin/loader.h"
#include "plugin/status.h"
#include "profiler/profiler_state.h"

namespace ember {

namespace {

// The plugin backend of a named type, or nullptr (meta and unknown names).
plugin::DeviceBackend* backend_named(const std::string& type_name) {
  plugin::discover_plugins();
  auto& registry = plugin::DeviceRegistry::get();
  DeviceTypeId type = registry.find_type(type_name);
  return type < 0 || type == kMetaDeviceType ? nullptr : registry.backend(type);
}

// A path with an embedded NUL would name another file at the C boundary.
void check_plugin_path(const std::string& path) {
  if (path.find('\0') == std::string::npos) return;
  std::string shown;
  for (char c : path) shown += c == '\0' ? std::string("\\0") : std::string(1, c);
  throw Error(ErrorKind::Value, "load_plugin: the path '" + shown + "' contains an embedded null byte");
}

PluginInfo load_checked(const std::string& path, const plugin::PluginAlias* alias) {
  check_plugin_path(path);
  // Discovery first, so that the default plugins own their device types
  // whatever the order of calls (Note [Plugin discovery]).
  plugin::discover_plugins();
  // A load while profiling is a range of the trace, beside the ops it delays.
  std::optional<profiler::RecordFunction> range;
  if (profiler::profiling_on()) [[unlikely]]
    range.emplace("load_plugin: " + path);
  PluginInfo info = plugin::load(path, alias);
  range.reset();
  if (!info.loaded) throw Error(ErrorKind::Runtime, "failed to load plugin " + path + ": " + info.error);
  return info;
}

}  // namespace

PluginInfo load_plugin(const std::string& path) { return load_checked(path, nullptr); }

PluginInfo load_plugin_as(const std::string& path, const std::string& name, const std::string& device_type) {
  if (name.empty()) throw Error(ErrorKind::Value, "load_plugin_as: the plugin name for " + path + " is empty");
  const plugin::PluginAlias alias{name, device_type};
  return load_checked(path, &alias);
}

std::vector<PluginInfo> plugins() {
  plugin::discover_plugins();
  return plugin::loaded_plugins();
}

std::vector<DeviceInfo> devices() {
  plugin::discover_plugins();
  std::vector<DeviceInfo> result;
  for (plugin::DeviceBackend* backend : plugin::DeviceRegistry::get().all()) {
    for (int32_t index = 0; index < backend->device_count; ++index) {
      ember_device_properties props{};
      props.struct_size = sizeof(props);
      ember_status* status = plugin::call_device(*backend, plugin::kAlwaysSerialised,
                                                 [&] { return backend->api->device_properties(index, &props); });
      if (status != nullptr) {
        // One device that cannot describe itself should not hide the others.
        log().warn("device_properties failed for {}: {}", backend->device_name(index), status->message);
        delete status;
        props = ember_device_properties{};
      }
      result.push_back({Device(backend->type, index), props.name != nullptr ? props.name : "", props.total_memory,
                        props.compute_units, backend->plugin_name});
    }
  }
  result.push_back({Device(kMetaDeviceType, 0), "meta", 0, 0, ""});
  return result;
}

bool is_device_type_available(const std::string& type_name) {
  return type_name == "meta" || device_count(type_name) > 0;
}

int32_t device_count(const std::string& type_name) {
  if (type_name == "meta") return 1;
  plugin::DeviceBackend* backend = backend_named(type_name);
  return backend != nullptr ? backend->device_count : 0;
}

void synchronize(Device device) {
  if (device.is_meta()) return;
  plugin::DeviceBackend& backend = plugin::backend_for(device);
  plugin::throw_if_error(plugin::call_device(backend, EMBER_DEVICE_STREAM_THREAD_SAFE,
                                             [&] { return backend.api->synchronize(device.index); }),
                         "synchronize " + backend.device_name(device.index));
  backend.allocator(device.index).device_synchronized();
}

MemoryStats memory_stats(Device device) {
  if (device.is_meta()) return {};
  return plugin::backend_for(device).allocator(device.index).stats();
}

void reset_peak_memory_stats(Device device) {
  if (!device.is_meta()) plugin::backend_for(device).allocator(device.index).reset_peak();
}

void empty_cache(Device device) {
  if (!device.is_meta()) plugin::backend_for(device).allocator(device.index).empty_cache();
}

}  // namespace ember
