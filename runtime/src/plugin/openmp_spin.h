#pragma once

#include <string>

namespace ember::plugin {

// Held around the opening of a plugin library: while it is held, libgomp's
// spin is bounded for a libgomp that the library loads, unless the
// environment already says how libgomp's threads wait (Note [OpenMP spin
// beside Ember's pool]).
class OpenMpSpinForLoad {
 public:
  OpenMpSpinForLoad();
  ~OpenMpSpinForLoad();
  OpenMpSpinForLoad(const OpenMpSpinForLoad&) = delete;
  OpenMpSpinForLoad& operator=(const OpenMpSpinForLoad&) = delete;

 private:
  bool set_spin_count_ = false;  // GOMP_SPINCOUNT is Ember's until the destructor
};

// How the idle threads of the process's libgomp wait, and who decided it.
std::string openmp_wait_policy();

}  // namespace ember::plugin
