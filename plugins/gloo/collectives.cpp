#include "collectives.h"

#include <ember/sdk/collectives.hpp>

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/alltoallv.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/gather.h>
#include <gloo/reduce.h>
#include <gloo/scatter.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace ember::gloo_plugin {
namespace {

using ReduceFn = void (*)(void*, const void*, const void*, size_t);

// The arithmetic a reduction runs in: float for the two half types, the
// type itself otherwise. Booleans reduce as torch's do (sum is "any",
// product and min are "all", max is "any").
template <class T>
struct Arithmetic {
  using type = T;
};
template <>
struct Arithmetic<sdk::float16> {
  using type = float;
};
template <>
struct Arithmetic<sdk::bfloat16> {
  using type = float;
};

template <class T, ember_reduce_op Op>
void reduce_elements(void* out, const void* a, const void* b, size_t n) {
  using A = typename Arithmetic<T>::type;
  auto* o = static_cast<T*>(out);
  const auto* x = static_cast<const T*>(a);
  const auto* y = static_cast<const T*>(b);
  for (size_t i = 0; i < n; ++i) {
    const A l = static_cast<A>(x[i]);
    const A r = static_cast<A>(y[i]);
    A v;
    if constexpr (Op == EMBER_REDUCE_SUM) {
      v = l + r;
    } else if constexpr (Op == EMBER_REDUCE_PRODUCT) {
      v = l * r;
    } else if constexpr (Op == EMBER_REDUCE_MIN) {
      v = std::min(l, r);
    } else {
      v = std::max(l, r);
    }
    o[i] = T(v);
  }
}

void reduce_bools(void* out, const void* a, const void* b, size_t n, bool all) {
  auto* o = static_cast<uint8_t*>(out);
  const auto* x = static_cast<const uint8_t*>(a);
  const auto* y = static_cast<const uint8_t*>(b);
  for (size_t i = 0; i < n; ++i) o[i] = all ? (x[i] && y[i]) : (x[i] || y[i]);
}

template <class T>
ReduceFn reduce_function(ember_reduce_op op) {
  switch (op) {
    case EMBER_REDUCE_SUM:
      return &reduce_elements<T, EMBER_REDUCE_SUM>;
    case EMBER_REDUCE_PRODUCT:
      return &reduce_elements<T, EMBER_REDUCE_PRODUCT>;
    case EMBER_REDUCE_MIN:
      return &reduce_elements<T, EMBER_REDUCE_MIN>;
    case EMBER_REDUCE_MAX:
      return &reduce_elements<T, EMBER_REDUCE_MAX>;
  }
  sdk::fail(EMBER_STATUS_UNIMPLEMENTED, "gloo: unknown reduction " + std::to_string(op));
}

template <>
ReduceFn reduce_function<bool>(ember_reduce_op op) {
  if (op == EMBER_REDUCE_PRODUCT || op == EMBER_REDUCE_MIN) {
    return [](void* o, const void* a, const void* b, size_t n) { reduce_bools(o, a, b, n, true); };
  }
  return [](void* o, const void* a, const void* b, size_t n) { reduce_bools(o, a, b, n, false); };
}

// Gloo's typed setters only use sizeof(T); bool travels as one byte.
template <class T>
using Wire = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;

size_t numel(const DLTensor* t) {
  if (t == nullptr) return 0;
  size_t n = 1;
  for (int d = 0; d < t->ndim; ++d) n *= static_cast<size_t>(t->shape[d]);
  return n;
}

template <class T>
Wire<T>* data_of(const DLTensor* t) {
  if (t == nullptr) return nullptr;
  return reinterpret_cast<Wire<T>*>(static_cast<char*>(t->data) + t->byte_offset);
}

template <class Options>
void tag_and_time(Options& options, const ember_collective_call& call, const Communicator& communicator) {
  options.setTag(static_cast<uint32_t>(call.sequence));
  options.setTimeout(call.timeout_ms > 0 ? std::chrono::milliseconds(call.timeout_ms) : communicator.timeout);
}

// All-reduce on a copy, then this rank's block: Gloo's reduce-scatter
// algorithm needs pre-registered buffers and gives no speed at these sizes.
template <class T>
void reduce_scatter(Communicator& communicator, const ember_collective_call& call) {
  const size_t block = numel(call.output);
  std::vector<Wire<T>> all(data_of<T>(call.input), data_of<T>(call.input) + numel(call.input));
  gloo::AllreduceOptions options(communicator.context);
  options.setOutput(all.data(), all.size());
  options.setReduceFunction(reduce_function<T>(call.reduce_op));
  tag_and_time(options, call, communicator);
  gloo::allreduce(options);
  std::memcpy(data_of<T>(call.output), all.data() + block * communicator.rank, block * sizeof(Wire<T>));
}

// Small all-reduces cost round trips, not bytes: one all-gather (world - 1
// steps of Gloo's ring, against the ring all-reduce's 2 (world - 1)) and a
// reduction here in rank order, which every rank does alike, so that their
// results are bitwise equal.
constexpr size_t kGatheringAllReduceBytes = 64 << 10;

template <class T>
void all_reduce_by_gathering(Communicator& communicator, const ember_collective_call& call) {
  const size_t n = numel(call.output);
  std::vector<Wire<T>> all(n * static_cast<size_t>(communicator.world_size));
  gloo::AllgatherOptions options(communicator.context);
  options.setInput(data_of<T>(call.output), n);
  options.setOutput(all.data(), all.size());
  tag_and_time(options, call, communicator);
  gloo::allgather(options);
  const ReduceFn reduce = reduce_function<T>(call.reduce_op);
  Wire<T>* out = data_of<T>(call.output);
  std::memcpy(out, all.data(), n * sizeof(Wire<T>));
  for (int r = 1; r < communicator.world_size; ++r) reduce(out, out, all.data() + n * static_cast<size_t>(r), n);
}

std::vector<int64_t> splits_or_equal(const int64_t* splits, size_t total, int world_size) {
  if (splits != nullptr) return {splits, splits + world_size};
  return std::vector<int64_t>(world_size, static_cast<int64_t>(total / world_size));
}

template <class T>
void run_typed(Communicator& communicator, const ember_collective_call& call) {
  const std::shared_ptr<gloo::Context>& context = communicator.context;
  switch (call.kind) {
    case EMBER_COLLECTIVE_ALL_REDUCE: {
      if (numel(call.output) * sizeof(Wire<T>) <= kGatheringAllReduceBytes) {
        return all_reduce_by_gathering<T>(communicator, call);
      }
      gloo::AllreduceOptions options(context);
      options.setOutput(data_of<T>(call.output), numel(call.output));
      options.setReduceFunction(reduce_function<T>(call.reduce_op));
      tag_and_time(options, call, communicator);
      gloo::allreduce(options);
      return;
    }
    case EMBER_COLLECTIVE_BROADCAST: {
      gloo::BroadcastOptions options(context);
      options.setRoot(call.root);
      options.setOutput(data_of<T>(call.output), numel(call.output));
      tag_and_time(options, call, communicator);
      gloo::broadcast(options);
      return;
    }
    case EMBER_COLLECTIVE_ALL_GATHER: {
      gloo::AllgatherOptions options(context);
      options.setInput(data_of<T>(call.input), numel(call.input));
      options.setOutput(data_of<T>(call.output), numel(call.output));
      tag_and_time(options, call, communicator);
      gloo::allgather(options);
      return;
    }
    case EMBER_COLLECTIVE_REDUCE_SCATTER:
      reduce_scatter<T>(communicator, call);
      return;
    case EMBER_COLLECTIVE_REDUCE: {
      gloo::ReduceOptions options(context);
      options.setRoot(call.root);
      options.setOutput(data_of<T>(call.output), numel(call.output));
      options.setReduceFunction(reduce_function<T>(call.reduce_op));
      tag_and_time(options, call, communicator);
      gloo::reduce(options);
      return;
    }
    case EMBER_COLLECTIVE_GATHER: {
      gloo::GatherOptions options(context);
      options.setRoot(call.root);
      options.setInput(data_of<T>(call.input), numel(call.input));
      if (communicator.rank == call.root) options.setOutput(data_of<T>(call.output), numel(call.output));
      tag_and_time(options, call, communicator);
      gloo::gather(options);
      return;
    }
    case EMBER_COLLECTIVE_SCATTER: {
      gloo::ScatterOptions options(context);
      options.setRoot(call.root);
      const size_t block = numel(call.output);
      if (communicator.rank == call.root) {
        std::vector<Wire<T>*> blocks;
        for (int r = 0; r < communicator.world_size; ++r) blocks.push_back(data_of<T>(call.input) + block * r);
        options.setInputs(blocks, block);
      }
      options.setOutput(data_of<T>(call.output), block);
      tag_and_time(options, call, communicator);
      gloo::scatter(options);
      return;
    }
    case EMBER_COLLECTIVE_ALL_TO_ALL: {
      if (call.input_splits == nullptr && call.output_splits == nullptr) {
        gloo::AlltoallOptions options(context);
        options.setInput(data_of<T>(call.input), numel(call.input));
        options.setOutput(data_of<T>(call.output), numel(call.output));
        tag_and_time(options, call, communicator);
        gloo::alltoall(options);
        return;
      }
      gloo::AlltoallvOptions options(context);
      options.setInput(data_of<T>(call.input),
                       splits_or_equal(call.input_splits, numel(call.input), communicator.world_size));
      options.setOutput(data_of<T>(call.output),
                        splits_or_equal(call.output_splits, numel(call.output), communicator.world_size));
      tag_and_time(options, call, communicator);
      gloo::alltoallv(options);
      return;
    }
    case EMBER_COLLECTIVE_SEND: {
      auto buffer = context->createUnboundBuffer(data_of<T>(call.input), numel(call.input) * sizeof(Wire<T>));
      buffer->send(call.root, call.user_tag);
      buffer->waitSend(std::chrono::milliseconds(call.timeout_ms > 0 ? call.timeout_ms : communicator.timeout.count()));
      return;
    }
    case EMBER_COLLECTIVE_RECV: {
      auto buffer = context->createUnboundBuffer(data_of<T>(call.output), numel(call.output) * sizeof(Wire<T>));
      buffer->recv(call.root, call.user_tag);
      buffer->waitRecv(std::chrono::milliseconds(call.timeout_ms > 0 ? call.timeout_ms : communicator.timeout.count()));
      return;
    }
    case EMBER_COLLECTIVE_BARRIER: {
      gloo::BarrierOptions options(context);
      tag_and_time(options, call, communicator);
      gloo::barrier(options);
      return;
    }
  }
  sdk::fail(EMBER_STATUS_UNIMPLEMENTED, "gloo: unknown collective " + std::to_string(call.kind));
}

}  // namespace

const char* moved_dtypes() { return "bool uint8 int8 int16 int32 int64 float16 bfloat16 float32 float64"; }

void run_collective(Communicator& communicator, const ember_collective_call& call) {
  const DLTensor* operand = call.output != nullptr ? call.output : call.input;
  const ember_dtype dtype = operand != nullptr ? sdk::dtype_of(*operand) : EMBER_DTYPE_UINT8;
  // Gloo divides by the element count; nothing to move is nothing to do
  // (the core's fingerprints make sure every rank agrees on that).
  if (call.kind != EMBER_COLLECTIVE_BARRIER && numel(call.input) == 0 && numel(call.output) == 0) return;
  const std::string what =
      std::string(sdk::collective_name(call.kind)) + " (sequence " + std::to_string(call.sequence) + ")";
  run_guarded(communicator, what, [&] {
    switch (dtype) {
      case EMBER_DTYPE_BOOL:
        return run_typed<bool>(communicator, call);
      case EMBER_DTYPE_UINT8:
        return run_typed<uint8_t>(communicator, call);
      case EMBER_DTYPE_INT8:
        return run_typed<int8_t>(communicator, call);
      case EMBER_DTYPE_INT16:
        return run_typed<int16_t>(communicator, call);
      case EMBER_DTYPE_INT32:
        return run_typed<int32_t>(communicator, call);
      case EMBER_DTYPE_INT64:
        return run_typed<int64_t>(communicator, call);
      case EMBER_DTYPE_FLOAT16:
        return run_typed<sdk::float16>(communicator, call);
      case EMBER_DTYPE_BFLOAT16:
        return run_typed<sdk::bfloat16>(communicator, call);
      case EMBER_DTYPE_FLOAT32:
        return run_typed<float>(communicator, call);
      case EMBER_DTYPE_FLOAT64:
        return run_typed<double>(communicator, call);
    }
    sdk::fail(EMBER_STATUS_UNIMPLEMENTED, "gloo: unsupported dtype " + std::to_string(dtype));
  });
}

}  // namespace ember::gloo_plugin
