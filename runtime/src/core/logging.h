#pragma once

#include <spdlog/spdlog.h>

namespace ember {

// The core's logger ("ember"); its level comes from EMBER_LOG_LEVEL
// (trace, debug, info, warn, error, off; default warn).
spdlog::logger& log();

}  // namespace ember
