#pragma once

#include "dispatch/op.h"

namespace ember::autocast {

// The Autocast key's step (Note [Autocast]): casts a catalogue op's inputs
// by its policy, then dispatches below autocast.
void run_autocast_step(const dispatch::Op& op, dispatch::OpCall& call);

}  // namespace ember::autocast
