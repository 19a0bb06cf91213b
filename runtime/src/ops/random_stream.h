#pragma once

#include <cstdint>

namespace ember::random_stream {

// The global counter-based random stream: a seed and the offset of the
// next unused Philox counter, so every device draws the same numbers. A
// random op reserves one counter per element it fills.
struct Draw {
  uint64_t seed;
  uint64_t offset;
};

Draw reserve(uint64_t count);
// manual_seed: a new seed, drawn from its start.
void reset(uint64_t seed);
// The offset of the next draw, and a return to an earlier one (a trace
// gives back what it drew, so that a compiled call draws what eager would).
uint64_t position();
void rewind(uint64_t offset);
// The seed of the draws to come.
uint64_t seed();

}  // namespace ember::random_stream
