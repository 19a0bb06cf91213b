#include "plugin/collective_engine.h"

#include <deque>
#include <memory>
#include <mutex>

#include "core/logging.h"
#include "ember/error.h"
#include "plugin/device_call.h"
#include "plugin/extension_chain.h"
#include "plugin/status.h"

namespace ember::plugin {
namespace {

struct Registry {
  std::mutex lock;
  std::deque<CollectiveEngine> engines;  // stable addresses; never removed
};

Registry& registry() {
  static Registry r;
  return r;
}

void check(ember_status* status, const std::string& context) {
  if (status == nullptr) return;
  std::unique_ptr<ember_status> owned(status);
  const char* what = owned->code == EMBER_STATUS_DEADLINE_EXCEEDED ? "timed out"
                     : owned->code == EMBER_STATUS_UNAVAILABLE     ? "lost a peer"
                                                                   : "failed";
  throw Error(ErrorKind::DistributedBackend, context + " " + what + ": " + owned->message);
}

}  // namespace

CollectiveEngine::CollectiveEngine(std::string plugin_name, std::string plugin_version,
                                   const ember_collectives_extension& table)
    : plugin_name_(std::move(plugin_name)),
      plugin_version_(std::move(plugin_version)),
      name_(table.engine),
      table_(table),
      device_types_(record_words(table.device_types)),
      dtypes_(record_words(table.dtypes)) {}

std::string CollectiveEngine::device_types() const {
  std::string out;
  for (const std::string& type : device_types_) out += (out.empty() ? "" : " ") + type;
  return out;
}

ember_communicator_t CollectiveEngine::create(const ember_communicator_config& config) const {
  ember_communicator_t communicator = nullptr;
  check(call_plugin([&] { return table_.create_communicator(&config, &communicator); }),
        "collective engine '" + name_ + "' connecting rank " + std::to_string(config.rank) + " of " +
            std::to_string(config.world_size));
  if (communicator == nullptr) {
    throw_error(ErrorKind::DistributedBackend, "collective engine '" + name_ + "' returned no communicator");
  }
  return communicator;
}

void CollectiveEngine::run(ember_communicator_t communicator, const ember_collective_call& call) const {
  check(call_plugin([&] { return table_.run(communicator, &call); }), "collective engine '" + name_ + "'");
}

void CollectiveEngine::abort(ember_communicator_t communicator) const noexcept {
  if (ember_status* status = call_plugin([&] { return table_.abort(communicator); })) {
    log().warn("collective engine '{}' abort failed: {}", name_, status->message);
    delete status;
  }
}

void CollectiveEngine::destroy(ember_communicator_t communicator) const noexcept {
  if (ember_status* status = call_plugin([&] { return table_.destroy_communicator(communicator); })) {
    log().warn("collective engine '{}' teardown failed: {}", name_, status->message);
    delete status;
  }
}

const CollectiveEngine* collective_engine(const std::string& name) {
  Registry& r = registry();
  std::lock_guard lock(r.lock);
  for (const CollectiveEngine& engine : r.engines) {
    if (engine.name() == name) return &engine;
  }
  return nullptr;
}

std::vector<const CollectiveEngine*> collective_engines() {
  Registry& r = registry();
  std::lock_guard lock(r.lock);
  std::vector<const CollectiveEngine*> out;
  for (const CollectiveEngine& engine : r.engines) out.push_back(&engine);
  return out;
}

const ember_collectives_extension* find_collectives_extension(const ember_plugin& plugin, uint32_t negotiated_minor) {
  const ember_extension* e =
      find_extension(plugin.extension, EMBER_EXTENSION_COLLECTIVES, negotiated_minor, 3,
                     EMBER_STRUCT_SIZE(ember_collectives_extension, destroy_communicator), "collectives");
  if (e == nullptr) return nullptr;
  const auto* table = reinterpret_cast<const ember_collectives_extension*>(e);
  if (table->engine == nullptr || *table->engine == '\0') {
    throw_error(ErrorKind::Runtime, "collectives extension names no engine");
  }
  if (!table->create_communicator || !table->run || !table->abort || !table->destroy_communicator) {
    throw_error(ErrorKind::Runtime,
                "collectives extension '" + std::string(table->engine) + "' leaves a required function NULL");
  }
  if (const CollectiveEngine* other = collective_engine(table->engine)) {
    throw_error(ErrorKind::Runtime, "collective engine '" + std::string(table->engine) +
                                        "' is already provided by plugin '" + other->plugin_name() + "'");
  }
  return table;
}

void add_collective_engine(const std::string& plugin_name, const std::string& version,
                           const ember_collectives_extension& table) {
  Registry& r = registry();
  std::lock_guard lock(r.lock);
  r.engines.emplace_back(plugin_name, version, table);
}

}  // namespace ember::plugin
