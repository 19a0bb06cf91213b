#include "onednn.h"

#include <omp.h>

#include <algorithm>
#include <string>

namespace ember::cpu {

dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::stream& thread_stream() {
  thread_local dnnl::stream stream(cpu_engine());
  return stream;
}

// Note [oneDNN threads]
// Debian's oneDNN runs on OpenMP (libdnnl links libgomp): a fork-join team
// whose barrier waits for every thread, the stall Note [Work-claiming
// parallel loop] removes from Ember's own loop. A oneDNN call therefore uses
// the team only when its work pays for that risk: one thread per
// kMacsPerThread multiply-adds (about 0.1 ms of one core), up to
// num_threads(). Smaller calls, most of those of small models, run on the
// calling thread alone, as MKL does for small products; on an idle machine
// their second thread bought little. OpenMP's thread count is a per-thread
// setting read when oneDNN builds a primitive (some bake it in) and when it
// runs one, so it is set on every call, and PrimitiveCache drops its plans
// when num_threads() changes. Between calls the team's threads spin for a
// bounded time only, so that they leave the cores to Ember's own pool (Note
// [OpenMP spin beside Ember's pool], where the core's loader bounds it).
void use_onednn_threads(int64_t multiply_adds) {
  omp_set_num_threads(
      static_cast<int>(std::clamp<int64_t>(multiply_adds / kOneDnnMultiplyAddsPerThread, 1, num_threads())));
}

size_t reserve_scratch(size_t& scratch_bytes, size_t bytes) {
  constexpr size_t kAlignment = 64;
  const size_t offset = (scratch_bytes + kAlignment - 1) / kAlignment * kAlignment;
  scratch_bytes = offset + bytes;
  return offset;
}

ReorderedOperand reordered_operand(const dnnl::memory::desc& user, const dnnl::memory::desc& inner, bool read,
                                   size_t& scratch_bytes) {
  ReorderedOperand o{user, inner, std::nullopt, 0};
  if (user == inner) return o;
  const auto& engine = cpu_engine();
  o.reorder = read ? dnnl::reorder(dnnl::reorder::primitive_desc(engine, user, engine, inner))
                   : dnnl::reorder(dnnl::reorder::primitive_desc(engine, inner, engine, user));
  o.scratch_offset = reserve_scratch(scratch_bytes, inner.get_size());
  return o;
}

BoundOperand bind_operand(const ReorderedOperand& o, const DLTensor& t, char* scratch) {
  dnnl::memory user(o.user, cpu_engine(), sdk::data_ptr(t));
  if (!o.reorder) return {user, user};
  return {user, dnnl::memory(o.inner, cpu_engine(), scratch + o.scratch_offset)};
}

char* scratch_block(const ember_kernel_call& call, size_t bytes) {
  if (bytes == 0) return nullptr;
  if (call.allocate_scratch == nullptr) {
    sdk::fail(EMBER_STATUS_INTERNAL, std::string(call.op_name) + ": the host gave no scratch");
  }
  void* block = nullptr;
  sdk::check(call.allocate_scratch(&call, bytes, &block));
  return static_cast<char*>(block);
}

}  // namespace ember::cpu
