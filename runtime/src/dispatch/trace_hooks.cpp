#include "dispatch/trace_hooks.h"

#include <atomic>

namespace ember::dispatch {
namespace {
std::atomic<const TraceHooks*> g_hooks{nullptr};
}  // namespace

void set_trace_hooks(const TraceHooks* hooks) { g_hooks.store(hooks, std::memory_order_release); }
const TraceHooks* trace_hooks() { return g_hooks.load(std::memory_order_acquire); }

}  // namespace ember::dispatch
