#pragma once
// The kernel watchdog (Note [Kernel watchdog]): with a timeout set, a
// kernel runs on a helper thread of the caller's while the caller waits at
// most that long.
#include <chrono>
#include <functional>
#include <optional>

#include <ember/ember_plugin.h>

namespace ember::plugin {

// 0 when off (the default, or EMBER_KERNEL_TIMEOUT_MS unset).
std::chrono::milliseconds kernel_timeout();

// Runs `job` on this thread's helper and returns its status, or nothing if
// it did not return within `timeout`: the helper is then left to it, and
// `job` must own everything it touches.
std::optional<ember_status*> run_with_timeout(std::function<ember_status*()> job,
                                              std::chrono::milliseconds timeout);

}  // namespace ember::plugin
