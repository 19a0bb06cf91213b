#include "ops/random_stream.h"

#include <atomic>

namespace ember::random_stream {
namespace {

struct State {
  std::atomic<uint64_t> seed{67280421310721ULL};
  std::atomic<uint64_t> offset{0};
};

State& state() {
  static State s;
  return s;
}

}  // namespace

Draw reserve(uint64_t count) {
  State& s = state();
  const uint64_t offset = s.offset.fetch_add(count);
  return Draw{s.seed.load(), offset};
}

void reset(uint64_t seed) {
  state().seed.store(seed);
  state().offset.store(0);
}

uint64_t position() { return state().offset.load(); }

void rewind(uint64_t offset) { state().offset.store(offset); }

uint64_t seed() { return state().seed.load(); }

}  // namespace ember::random_stream
