#include "core/logging.h"

#include <cstdlib>
#include <string>

#include <spdlog/sinks/stdout_color_sinks.h>

namespace ember {

namespace {

// spdlog::level::from_str answers "off" for any name it does not know, which
// would silence the log on a typo; an unknown name keeps the default and says so.
spdlog::level::level_enum level_from_env(std::string* complaint) {
  const char* value = std::getenv("EMBER_LOG_LEVEL");
  if (value == nullptr || *value == '\0') return spdlog::level::warn;
  auto level = spdlog::level::from_str(value);
  if (level == spdlog::level::off && std::string(value) != "off") {
    *complaint =
        std::string("EMBER_LOG_LEVEL='") + value + "' is not one of trace, debug, info, warn, error, off; using warn";
    return spdlog::level::warn;
  }
  return level;
}

}  // namespace

spdlog::logger& log() {
  // Never destroyed and never put in spdlog's global registry: plugins and
  // static destructors may log during exit, and an embedding application may
  // use spdlog with its own "ember"-free configuration.
  static spdlog::logger* logger = [] {
    auto* created = new spdlog::logger("ember", std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
    created->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [ember] [%l] %v");
    std::string complaint;
    created->set_level(level_from_env(&complaint));
    if (!complaint.empty()) created->warn(complaint);
    return created;
  }();
  return *logger;
}

}  // namespace ember
