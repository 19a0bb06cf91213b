#pragma once

// The state of the global random stream that manual_seed (ember/ops.h)
// seeds: what torch.get_rng_state and set_rng_state save and restore.
#include <cstdint>

namespace ember {

// The stream is counter-based (Philox): its seed and the offset of the next
// counter a random op will take say everything it will draw.
struct RandomState {
  uint64_t seed;
  uint64_t offset;
};

RandomState random_state();
// Draws continue from `state`, as they went on after random_state() gave it.
void set_random_state(const RandomState& state);
// The seed the stream was last given (PyTorch's default until then).
uint64_t initial_seed();

}  // namespace ember
