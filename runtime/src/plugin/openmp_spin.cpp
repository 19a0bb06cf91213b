// Note [OpenMP spin beside Ember's pool]
// The CPU plugin's oneDNN runs on libgomp's fork-join team (Note [oneDNN
// threads]). After a parallel region libgomp's threads poll for the next one
// GOMP_SPINCOUNT times before they sleep: 300,000 polls by default, meant as
// about 3 ms, but each poll is a `pause`, some 140 cycles on Sapphire Rapids,
// so there they hold their cores for about 15 ms. Every kernel that is not
// oneDNN's runs on Ember's own pool (Note [Work-claiming parallel loop]),
// whose workers then find the cores taken: a CNN training step on two cores
// ran its pooling and elementwise kernels on one. PyTorch does not pay this,
// as all its parallel work runs on that one team; Ember keeps its pool, which
// is what keeps its kernels fast beside a busy process (docs/benchmarks.md,
// "Beside a busy process"), and bounds the spin instead. Passive waiting
// (OMP_WAIT_POLICY=passive, no spin) would free the cores too, but then every
// region of a oneDNN call starts with a futex wake: a lone convolution cost
// 5-8% more, and the CNN step gained less than with the bound.
//
// libgomp reads its environment once, when it is loaded, and no call changes
// the spin afterwards. So while the loader opens a plugin library it sets
// GOMP_SPINCOUNT to kBoundedSpinCount (about 0.1 ms by libgomp's estimate,
// 0.5 ms on Sapphire Rapids: longer than the gaps between the regions of one
// oneDNN call, shorter than most of Ember's kernels between two calls), and
// removes it afterwards, so that child processes and libraries loaded later
// do not see Ember's choice. It sets nothing
// - when GOMP_SPINCOUNT or OMP_WAIT_POLICY is in the environment, even
//   empty: the user's choice is libgomp's to read;
// - when libgomp is already loaded: it read its spin then. PyTorch ships its
//   own libgomp under the same name, which the plugin's oneDNN then shares,
//   and plugins load on the first use of a device, so `import torch` anywhere
//   before that counts. openmp_wait_policy() says so, the loader logs it,
//   and the remedy is GOMP_SPINCOUNT in the environment of the process.
// setenv() while other threads read the environment is a hazard (a
// concurrent getenv may walk an array being moved). Plugins load on the
// first use of a device, normally before a program starts threads of its
// own, one library at a time under the loader's lock; Python's os.environ
// writes take the same risk. A program that wants no write at all sets
// GOMP_SPINCOUNT itself.
#include "plugin/openmp_spin.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <optional>

#include "core/logging.h"

namespace ember::plugin {
namespace {

constexpr const char* kSpinCountVariable = "GOMP_SPINCOUNT";
constexpr const char* kWaitPolicyVariable = "OMP_WAIT_POLICY";
constexpr const char* kBoundedSpinCount = "10000";
constexpr const char* kLibgompSoname = "libgomp.so.1";

enum class SpinSource {
  kNoLibgomp,     // no plugin has loaded libgomp yet
  kEmbersBound,   // a plugin loaded it while GOMP_SPINCOUNT was kBoundedSpinCount
  kEnvironment,   // a plugin loaded it under the user's setting
  kLoadedBefore,  // another library loaded it before any plugin did
};

std::mutex g_mutex;
SpinSource g_source = SpinSource::kNoLibgomp;
std::optional<std::string> g_setting;  // the environment's setting when libgomp was found loaded

// dlopen() matches an already loaded library by its soname too, so a
// libgomp loaded from another path (PyTorch's) counts.
bool libgomp_loaded() {
  void* handle = dlopen(kLibgompSoname, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) {
    dlerror();  // "not loaded" is no error for the loader's next dlerror() to report
    return false;
  }
  dlclose(handle);
  return true;
}

std::optional<std::string> environment_setting() {
  for (const char* name : {kSpinCountVariable, kWaitPolicyVariable}) {
    if (const char* value = std::getenv(name); value != nullptr) return std::string(name) + "=" + value;
  }
  return std::nullopt;
}

}  // namespace

OpenMpSpinForLoad::OpenMpSpinForLoad() {
  std::lock_guard lock(g_mutex);
  if (g_source != SpinSource::kNoLibgomp) return;
  if (libgomp_loaded()) {
    g_source = SpinSource::kLoadedBefore;
    g_setting = environment_setting();
    if (!g_setting) {
      log().info("libgomp was loaded before Ember's plugins, so after each oneDNN call its threads spin for "
                 "libgomp's default count, taking cores from Ember's other CPU kernels; set {}={} in the "
                 "environment of the process to bound the spin",
                 kSpinCountVariable, kBoundedSpinCount);
    }
    return;
  }
  if (environment_setting()) return;
  set_spin_count_ = setenv(kSpinCountVariable, kBoundedSpinCount, /*overwrite=*/0) == 0;
}

OpenMpSpinForLoad::~OpenMpSpinForLoad() {
  std::lock_guard lock(g_mutex);
  if (g_source == SpinSource::kNoLibgomp && libgomp_loaded()) {
    g_source = set_spin_count_ ? SpinSource::kEmbersBound : SpinSource::kEnvironment;
    g_setting = environment_setting();
  }
  if (set_spin_count_) unsetenv(kSpinCountVariable);
}

std::string openmp_wait_policy() {
  std::lock_guard lock(g_mutex);
  switch (g_source) {
    case SpinSource::kNoLibgomp:
      return "libgomp not loaded";
    case SpinSource::kEmbersBound:
      return *g_setting + " (Ember's bound)";
    case SpinSource::kEnvironment:
      return *g_setting + " (the environment's)";
    case SpinSource::kLoadedBefore:
      return (g_setting ? *g_setting + " (the environment's; " : std::string("libgomp's default spin (")) +
             "libgomp was loaded before Ember's plugins)";
  }
  return "";
}

}  // namespace ember::plugin
