#pragma once

#include "communicator.h"

namespace ember::nccl_plugin {

// The dtypes NCCL moves, as the extension lists them.
const char* moved_dtypes();
// Enqueues one collective on the call's stream and waits, polling, until it
// ran there or its timeout passed.
void run_collective(Communicator& communicator, const ember_collective_call& call);

}  // namespace ember::nccl_plugin
