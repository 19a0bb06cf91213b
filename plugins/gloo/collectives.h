#pragma once

#include "communicator.h"

namespace ember::gloo_plugin {

// The dtype names this engine moves.
const char* moved_dtypes();
// One collective on `communicator`; the core validated the operands.
void run_collective(Communicator& communicator, const ember_collective_call& call);

}  // namespace ember::gloo_plugin
