// The runtime's own dispatch steps (Note [Dispatch steps]). The ops layer
// sits above both autograd and the plugin layer, so it is the one that can
// name their steps; the dispatcher below knows them only as table entries.
#include "autograd/derivatives.h"
#include "dispatch/step_table.h"
#include "ops/autocast_step.h"
#include "plugin/backend_step.h"

namespace ember::dispatch {

void install_runtime_steps() {
  set_step(DispatchKey::Autocast, &autocast::run_autocast_step);
  set_step(DispatchKey::Autograd, &autograd::run_autograd_step);
  set_backend_step(&plugin::run_backend_step);
}

}  // namespace ember::dispatch
