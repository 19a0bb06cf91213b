#pragma once

#include <set>
#include <string>
#include <vector>

#include <ember/ember_plugin.h>

namespace ember::plugin {

// Note [Collective engines]
// A plugin carrying an ember_collectives_extension (ABI 1.3) provides one
// collective engine under the name users pass to init_process_group
// ("gloo"). The core keeps one engine per name. Every call goes through this
// class, which turns the engine's statuses into DistributedBackend errors;
// the process group (distributed/) adds rank, op and sequence number.
class CollectiveEngine {
 public:
  CollectiveEngine(std::string plugin_name, std::string plugin_version, const ember_collectives_extension& table);

  const std::string& name() const { return name_; }
  const std::string& plugin_name() const { return plugin_name_; }
  const std::string& plugin_version() const { return plugin_version_; }
  // Device types whose memory the engine reads directly.
  bool serves_device(const std::string& device_type) const { return device_types_.count(device_type) > 0; }
  bool moves_dtype(const std::string& dtype) const { return dtypes_.count(dtype) > 0; }
  std::string device_types() const;

  // Both throw ErrorKind::DistributedBackend with the engine's message.
  ember_communicator_t create(const ember_communicator_config& config) const;
  void run(ember_communicator_t communicator, const ember_collective_call& call) const;
  // Logs instead of throwing: both run on error and teardown paths.
  void abort(ember_communicator_t communicator) const noexcept;
  void destroy(ember_communicator_t communicator) const noexcept;

 private:
  std::string plugin_name_;
  std::string plugin_version_;
  std::string name_;
  ember_collectives_extension table_;
  std::set<std::string> device_types_, dtypes_;
};

// The engine of that name, or null.
const CollectiveEngine* collective_engine(const std::string& name);
std::vector<const CollectiveEngine*> collective_engines();

// The loader's side: the checked record on the plugin's chain (null if none
// or the session's minor predates it); throws the reason for quarantine if
// it is malformed or its engine name is taken.
const ember_collectives_extension* find_collectives_extension(const ember_plugin& plugin, uint32_t negotiated_minor);
void add_collective_engine(const std::string& plugin_name, const std::string& version,
                           const ember_collectives_extension& table);

}  // namespace ember::plugin
