#include "plugin/loader.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <unordered_map>

#include "core/logging.h"
#include "dispatch/op.h"
#include "plugin/codegen_provider.h"
#include "plugin/collective_engine.h"
#include "plugin/device_call.h"
#include "plugin/device_registry.h"
#include "plugin/host_api.h"
#include "plugin/kernel_timing.h"
#include "plugin/native_handles.h"
#include "plugin/openmp_spin.h"
#include "plugin/status.h"

namespace ember::plugin {

namespace fs = std::filesystem;

namespace {

// Note [Staged registration]
// A plugin's kernels are collected by its registrar and reach the op tables
// only after register_kernels returned success and every registration was
// valid; the device type is claimed at that moment too. A plugin that fails
// anywhere therefore publishes nothing: no kernel, no device type (a later
// plugin may still claim the name). A loaded library is never unloaded: the
// op tables are read without a lock and hold its functions.
//
// Note [Quarantined libraries stay loaded]
// dlopen() runs a library's constructors, which may start threads or
// register callbacks (atexit, thread keys) that point into its code;
// unmapping it afterwards would leave those running in unmapped memory. So a
// library is never dlclose()d once opened, quarantined or not. A plugin
// refused after its init succeeded gets its shutdown hook, once, so that it
// can stop what init started; one refused earlier (its init failed, or its
// ABI major or struct_size cannot be read safely) is left as it is.
struct LoaderState {
  std::mutex mutex;  // held for a whole load: loads happen one at a time
  std::vector<PluginInfo> plugins;
  std::unordered_map<std::string, size_t> by_path;  // canonical path -> index in plugins
  std::deque<dispatch::BackendKernel> kernels;      // stable addresses, never freed
};

LoaderState& state() {
  static auto* loader_state = new LoaderState();  // never destroyed, like the op tables
  return *loader_state;
}

constexpr std::string_view kFilePrefix = "libember_plugin_";
constexpr std::string_view kFileSuffix = ".so";

// The smallest ember_plugin the core reads: ABI 1.0's up to register_kernels
// (shutdown was always optional, and may lie past a 1.0 plugin's struct_size).
constexpr size_t kPluginMinSize = EMBER_STRUCT_SIZE(ember_plugin, register_kernels);

struct RequiredFunction {
  size_t offset;
  const char* name;
};
constexpr RequiredFunction kRequiredDeviceFunctions[] = {
    {offsetof(ember_device_api, device_count), "device_count"},
    {offsetof(ember_device_api, device_properties), "device_properties"},
    {offsetof(ember_device_api, allocate), "allocate"},
    {offsetof(ember_device_api, deallocate), "deallocate"},
    {offsetof(ember_device_api, copy), "copy"},
    {offsetof(ember_device_api, synchronize), "synchronize"},
};

[[noreturn]] void refuse(const std::string& reason) { throw_error(ErrorKind::Runtime, reason); }

std::string last_dl_error() {
  const char* text = dlerror();
  return text != nullptr ? text : "unknown error";
}

// "libember_plugin_cpu.so" -> "cpu"; any other file is named by its file name.
std::string name_from_path(const fs::path& path) {
  std::string file = path.filename().string();
  if (file.starts_with(kFilePrefix) && file.ends_with(kFileSuffix) &&
      file.size() > kFilePrefix.size() + kFileSuffix.size()) {
    return file.substr(kFilePrefix.size(), file.size() - kFilePrefix.size() - kFileSuffix.size());
  }
  return file;
}

bool is_valid_type_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

const PluginInfo* find_loaded(const LoaderState& s, std::string_view name) {
  auto it =
      std::find_if(s.plugins.begin(), s.plugins.end(), [&](const PluginInfo& p) { return p.loaded && p.name == name; });
  return it == s.plugins.end() ? nullptr : &*it;
}

// Checks the plugin's device table and asks for its device count; nothing
// is published yet (Note [Staged registration]). `type_alias` replaces the
// device type the table names (load_plugin_as()).
std::unique_ptr<DeviceBackend> make_backend(const LoaderState& s, const std::string& plugin_name,
                                            const ember_device_api& api, const std::string* type_alias) {
  constexpr size_t kHeaderSize = offsetof(ember_device_api, device_count);
  if (api.struct_size < kHeaderSize) {
    refuse("ember_device_api struct_size " + std::to_string(api.struct_size) + " is smaller than its " +
           std::to_string(kHeaderSize) + "-byte header");
  }
  auto backend = std::make_unique<DeviceBackend>();
  backend->api = &api;
  backend->api_size = std::min(api.struct_size, sizeof(ember_device_api));
  backend->plugin_name = plugin_name;
  for (const auto& function : kRequiredDeviceFunctions) {
    // A function pointer's bytes are inspected without knowing its type.
    uintptr_t bits = 0;
    if (backend->has(function.offset)) {
      std::memcpy(&bits, reinterpret_cast<const char*>(&api) + function.offset, sizeof(bits));
    }
    if (bits == 0) refuse(std::string("required device function '") + function.name + "' is missing");
  }
  std::string type_name = type_alias != nullptr ? *type_alias : api.device_type != nullptr ? api.device_type : "";
  if (!is_valid_type_name(type_name)) {
    refuse("invalid device type name '" + type_name + "' (use lower case letters, digits and '_')");
  }
  if (type_name == "meta") refuse("device type 'meta' is built in and cannot be provided by a plugin");
  auto& registry = DeviceRegistry::get();
  if (DeviceTypeId type = registry.find_type(type_name); type >= 0) {
    if (const DeviceBackend* holder = registry.backend(type)) {
      const PluginInfo* other = find_loaded(s, holder->plugin_name);
      refuse("plugin '" + plugin_name + "' claims device type '" + type_name + "', which plugin '" +
             holder->plugin_name + "'" + (other != nullptr ? " (" + other->path + ")" : "") + " already provides");
    }
  }
  backend->type_name = type_name;
  int32_t count = 0;
  throw_if_error(call_device(*backend, kAlwaysSerialised, [&] { return api.device_count(&count); }),
                 "device_count failed");
  if (count < 0) refuse("device_count returned " + std::to_string(count));
  backend->device_count = count;
  for (int32_t index = 0; index < count; ++index) {
    backend->allocators.push_back(std::make_unique<CachingAllocator>(*backend, index));
  }
  return backend;
}

void commit(LoaderState& s, PluginInfo& info, std::unique_ptr<DeviceBackend> backend,
            const ember_registrar& registrar) {
  if (backend != nullptr) {
    DeviceBackend* published = backend.get();
    info.device_type = backend->type_name;
    DeviceTypeId type = DeviceRegistry::get().claim(std::move(backend));
    for (const auto& staged : registrar.staged) {
      s.kernels.push_back({staged.fn, staged.data, staged.flags, published});
      staged.op->set_kernel(type, staged.dtype, &s.kernels.back());
    }
    if (published->profiling) add_device_timer(*published);
  }
  info.num_kernels = static_cast<int64_t>(registrar.staged.size());
  info.skipped_ops = registrar.skipped_ops;
  info.loaded = true;
}

// What a file is when it is not a regular file, for the quarantine reason.
std::string describe_file_type(fs::file_type type) {
  switch (type) {
    case fs::file_type::not_found:
      return "no such file";
    case fs::file_type::directory:
      return "a directory";
    case fs::file_type::fifo:
      return "a FIFO";
    case fs::file_type::socket:
      return "a socket";
    case fs::file_type::block:
      return "a block device";
    case fs::file_type::character:
      return "a character device";
    default:
      return "not a file";
  }
}

// Only a regular file (after symlinks) is opened: dlopen() of a FIFO blocks
// until someone writes to it, with the loader's lock held.
void require_regular_file(const std::string& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (status.type() == fs::file_type::regular) return;
  if (status.type() == fs::file_type::not_found) refuse("no such file");
  if (error) refuse("cannot read the file's type: " + error.message());
  refuse("not a regular file (" + describe_file_type(status.type()) + ")");
}

// Note [Plugins others can write]
// Loading a library runs its code with the user's rights, so a plugin file
// that any other user may write, or one in a directory where any other user
// may replace it, would let them run code as this user. Both are refused,
// as ssh refuses a key file others can read. A directory with the sticky bit
// (/tmp) is allowed: there only a file's owner may rename or delete it. The
// file and directory checked are the real ones, after symbolic links.
void require_not_writable_by_others(const std::string& path) {
  std::error_code error;
  const fs::path real = fs::canonical(path, error);
  if (error) refuse("cannot resolve the path: " + error.message());
  auto mode_of = [&](const fs::path& p) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) refuse("cannot read the mode of " + p.string() + ": " + std::strerror(errno));
    return st.st_mode;
  };
  auto octal = [](mode_t mode) {
    char text[8];
    std::snprintf(text, sizeof(text), "%04o", static_cast<unsigned>(mode & 07777));
    return std::string(text);
  };
  if (const mode_t mode = mode_of(real); mode & S_IWOTH) {
    refuse("refused: the file " + real.string() + " is writable by other users (mode " + octal(mode) +
           "), who could replace its code; remove their write permission (chmod o-w)");
  }
  const fs::path dir = real.parent_path();
  if (const mode_t mode = mode_of(dir); (mode & S_IWOTH) && !(mode & S_ISVTX)) {
    refuse("refused: its directory " + dir.string() + " is writable by other users (mode " + octal(mode) +
           "), who could replace the plugin; remove their write permission (chmod o-w)");
  }
}

// Opens the library and calls its entry point. Throws the reason for
// quarantine; the library stays loaded whatever happens (Note [Quarantined
// libraries stay loaded]).
ember_plugin init_plugin(PluginInfo& info) {
  require_regular_file(info.path);
  require_not_writable_by_others(info.path);
  dlerror();
  std::string open_error;  // read before the spin guard, which calls dlopen too, ends
  void* handle = [&] {
    const OpenMpSpinForLoad bounded_spin;
    void* opened = dlopen(info.path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (opened == nullptr) open_error = last_dl_error();
    return opened;
  }();
  if (handle == nullptr) refuse("not a loadable shared library: " + open_error);
  auto init = reinterpret_cast<ember_plugin_init_fn>(dlsym(handle, EMBER_PLUGIN_INIT_SYMBOL));
  if (init == nullptr) {
    refuse("entry symbol '" EMBER_PLUGIN_INIT_SYMBOL "' not found: " + last_dl_error());
  }

  ember_plugin plugin{};
  plugin.struct_size = sizeof(plugin);
  throw_if_error(call_plugin([&] { return init(&host_api(), &plugin); }), "ember_plugin_init failed");
  // Only the first three fields are common to every major: check it first.
  info.abi_major = plugin.abi_major;
  info.abi_minor = plugin.abi_minor;
  if (plugin.abi_major != EMBER_ABI_VERSION_MAJOR) {
    refuse("plugin was built for ABI " + std::to_string(plugin.abi_major) + "." + std::to_string(plugin.abi_minor) +
           ", this core speaks " + std::to_string(EMBER_ABI_VERSION_MAJOR) + "." +
           std::to_string(EMBER_ABI_VERSION_MINOR));
  }
  info.negotiated_minor = std::min<uint32_t>(plugin.abi_minor, EMBER_ABI_VERSION_MINOR);
  if (plugin.struct_size < kPluginMinSize) {
    refuse("ember_plugin struct_size " + std::to_string(plugin.struct_size) + " is smaller than the " +
           std::to_string(kPluginMinSize) + " bytes ABI 1.0 requires");
  }
  // A plugin whose struct ends before shutdown has none, whatever it wrote
  // there; a larger struct_size than the core's only tells what it knows.
  if (plugin.struct_size < EMBER_PLUGIN_SIZE_V1_0) plugin.shutdown = nullptr;
  return plugin;
}

// Checks and registers an initialised plugin; throws the reason for quarantine.
void register_plugin(LoaderState& s, PluginInfo& info, const ember_plugin& plugin, const PluginAlias* alias) {
  if (plugin.name == nullptr || *plugin.name == '\0') refuse("the plugin did not set its name");
  info.name = alias != nullptr ? alias->name : plugin.name;
  info.version = plugin.version != nullptr ? plugin.version : "";
  if (const PluginInfo* other = find_loaded(s, info.name)) {
    refuse("a plugin named '" + info.name + "' is already loaded from " + other->path);
  }
  std::unique_ptr<DeviceBackend> backend;
  if (plugin.device != nullptr) {
    backend = make_backend(s, info.name, *plugin.device, alias != nullptr ? &alias->device_type : nullptr);
    backend->native_handles = find_native_handles(plugin, info.negotiated_minor);
    if (backend->native_handles) info.native_api = backend->native_handles->api;
    backend->profiling = find_profiling(plugin, info.negotiated_minor);
  }
  ember_registrar registrar;
  registrar.plugin_name = info.name;
  registrar.plugin_abi_minor = info.abi_minor;
  registrar.has_device = backend != nullptr;
  // NULL: a plugin without kernels (a code generator, a collective engine).
  if (plugin.register_kernels != nullptr) {
    throw_if_error(call_plugin([&] { return plugin.register_kernels(&registrar); }), "register_kernels failed");
  }
  // A refused registration fails the plugin even if it ignored the status.
  if (!registrar.first_error.empty()) refuse("register_kernels failed: " + registrar.first_error);

  const ember_codegen_extension* codegen = find_codegen_extension(plugin, info.negotiated_minor);
  const ember_collectives_extension* collectives = find_collectives_extension(plugin, info.negotiated_minor);
  commit(s, info, std::move(backend), registrar);
  if (codegen != nullptr) {
    add_codegen_provider(info.name, info.version, info.abi_minor, *codegen);
    info.codegen_device_type = codegen->device_type;
  }
  if (collectives != nullptr) {
    add_collective_engine(info.name, info.version, *collectives);
    info.collective_engine = collectives->engine;
  }
}

void shut_down(const PluginInfo& info, const ember_plugin& plugin) {
  if (plugin.shutdown == nullptr) return;
  ember_status* status = call_plugin([&] {
    plugin.shutdown();
    return static_cast<ember_status*>(nullptr);
  });
  if (status != nullptr) {
    log().warn("shutdown of quarantined plugin {} failed: {}", info.path, status->message);
    delete status;
  }
}

// Loads `info.path` into `info`; throws the reason for quarantine.
void load_into(LoaderState& s, PluginInfo& info, const PluginAlias* alias) {
  const ember_plugin plugin = init_plugin(info);
  try {
    register_plugin(s, info, plugin, alias);
  } catch (...) {
    shut_down(info, plugin);
    throw;
  }
}

void log_result(const PluginInfo& info) {
  if (!info.loaded) {
    log().warn("quarantined plugin {}: {}", info.path, info.error);
    return;
  }
  log().info(
      "loaded plugin '{}' {} from {}: ABI {}.{} (core {}.{}, negotiated {}.{}), device type '{}', {} kernels, {} "
      "unknown ops skipped",
      info.name, info.version, info.path, info.abi_major, info.abi_minor, EMBER_ABI_VERSION_MAJOR,
      EMBER_ABI_VERSION_MINOR, EMBER_ABI_VERSION_MAJOR, info.negotiated_minor,
      info.device_type.empty() ? "none" : info.device_type, info.num_kernels, info.skipped_ops.size());
}

std::vector<std::string> split(const char* text, char separator) {
  std::vector<std::string> parts;
  std::string_view rest = text != nullptr ? text : "";
  while (!rest.empty()) {
    size_t end = std::min(rest.find(separator), rest.size());
    if (end > 0) parts.emplace_back(rest.substr(0, end));
    rest.remove_prefix(std::min(end + 1, rest.size()));
  }
  return parts;
}

// <directory of libember_runtime.so>/ember/plugins, found from one of the
// library's own symbols, so a relocated install still finds its plugins.
std::optional<fs::path> install_plugin_dir() {
  Dl_info self{};
  if (dladdr(reinterpret_cast<void*>(&discover_plugins), &self) == 0 || self.dli_fname == nullptr) {
    return std::nullopt;
  }
  return fs::path(self.dli_fname).parent_path() / EMBER_INSTALL_PLUGIN_SUBDIR;
}

std::vector<fs::path> plugin_files(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    std::string file = entry.path().filename().string();
    if (file.starts_with(kFilePrefix) && file.ends_with(kFileSuffix)) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

void run_discovery() {
  const char* allow_list = std::getenv("EMBER_PLUGINS");
  if (allow_list != nullptr && std::string_view(allow_list) == "none") {
    log().info("EMBER_PLUGINS=none: plugin discovery is off");
    return;
  }
  // Plugin name -> the file that provides it. Only a plugin that loaded
  // takes its name: a quarantined impostor earlier on the path must not
  // hide the real plugin later on it.
  std::map<std::string, std::string> loaded;
  auto try_file = [&](const std::string& file) {
    const std::string name = name_from_path(file);
    if (auto it = loaded.find(name); it != loaded.end()) {
      log().info("skipping plugin {}: plugin '{}' was already loaded from {}", file, name, it->second);
    } else if (load(file).loaded) {
      loaded.emplace(name, file);
    }
  };
  std::optional<std::set<std::string>> allowed;
  if (allow_list != nullptr && *allow_list != '\0') {
    allowed.emplace();
    for (const std::string& entry : split(allow_list, ',')) {
      if (entry.find('/') == std::string::npos) {
        allowed->insert(entry);
      } else {
        try_file(entry);
      }
    }
  }
  std::vector<fs::path> dirs;
  for (const std::string& dir : split(std::getenv("EMBER_PLUGIN_PATH"), ':')) dirs.emplace_back(dir);
  if (auto dir = install_plugin_dir()) dirs.push_back(*dir);
  for (const fs::path& dir : dirs) {
    for (const fs::path& file : plugin_files(dir)) {
      if (allowed && allowed->count(name_from_path(file)) == 0) {
        log().debug("skipping plugin {}: '{}' is not in EMBER_PLUGINS", file.string(), name_from_path(file));
        continue;
      }
      try_file(file.string());
    }
  }
  if (loaded.empty()) log().warn("no plugin loaded; set EMBER_PLUGIN_PATH or call ember::load_plugin()");
}

}  // namespace

PluginInfo load(const std::string& path, const PluginAlias* alias) {
  LoaderState& s = state();
  std::lock_guard lock(s.mutex);
  std::error_code error;
  fs::path canonical = fs::weakly_canonical(path, error);
  std::string key = error ? path : canonical.string();
  if (auto it = s.by_path.find(key); it != s.by_path.end()) return s.plugins[it->second];

  PluginInfo info;
  info.path = key;
  info.name = name_from_path(key);
  try {
    load_into(s, info, alias);
  } catch (const std::exception& e) {
    info.error = e.what();
  } catch (...) {
    info.error = "unknown exception while loading";
  }
  log_result(info);
  s.by_path.emplace(key, s.plugins.size());
  s.plugins.push_back(info);
  return info;
}

void discover_plugins() {
  static std::once_flag once;
  std::call_once(once, [] {
    try {
      run_discovery();
    } catch (const std::exception& e) {
      log().error("plugin discovery stopped: {}", e.what());
    } catch (...) {
      log().error("plugin discovery stopped by an unknown exception");
    }
  });
}

std::vector<PluginInfo> loaded_plugins() {
  LoaderState& s = state();
  std::lock_guard lock(s.mutex);
  return s.plugins;
}

}  // namespace ember::plugin
