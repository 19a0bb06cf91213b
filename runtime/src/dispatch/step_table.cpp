#include "dispatch/step_table.h"

#include <array>
#include <atomic>

namespace ember::dispatch {
namespace {

constexpr int kFirstFunctionalityKey = static_cast<int>(DispatchKey::Trace);
constexpr int kNumFunctionalityKeys = 64 - kFirstFunctionalityKey;

std::array<std::atomic<StepFn>, kNumFunctionalityKeys> g_steps{};
std::atomic<BackendStepFn> g_backend_step{nullptr};

std::atomic<StepFn>& slot(DispatchKey key) {
  return g_steps[static_cast<size_t>(static_cast<int>(key) - kFirstFunctionalityKey)];
}

}  // namespace

void set_step(DispatchKey key, StepFn step) { slot(key).store(step, std::memory_order_release); }

StepFn step(DispatchKey key) { return slot(key).load(std::memory_order_acquire); }

void set_backend_step(BackendStepFn step) { g_backend_step.store(step, std::memory_order_release); }

BackendStepFn backend_step() { return g_backend_step.load(std::memory_order_acquire); }

}  // namespace ember::dispatch
