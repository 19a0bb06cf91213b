#include "collectives.h"

#include <ember/sdk/collectives.hpp>
#include <ember/sdk/dtypes.hpp>
#include <ember/sdk/tensor.hpp>

#include <vector>

namespace ember::nccl_plugin {
namespace {

struct Operand {
  void* data = nullptr;
  size_t count = 0;
};

Operand operand_of(const DLTensor* t) {
  if (t == nullptr) return {};
  return {sdk::data_ptr(*t), static_cast<size_t>(sdk::numel(*t))};
}

ncclDataType_t nccl_dtype(ember_dtype dtype) {
  switch (dtype) {
    case EMBER_DTYPE_BOOL:  // one byte; reductions as below
    case EMBER_DTYPE_UINT8:
      return ncclUint8;
    case EMBER_DTYPE_INT8:
      return ncclInt8;
    case EMBER_DTYPE_INT32:
      return ncclInt32;
    case EMBER_DTYPE_INT64:
      return ncclInt64;
    case EMBER_DTYPE_FLOAT16:
      return ncclFloat16;
    case EMBER_DTYPE_BFLOAT16:
      return ncclBfloat16;
    case EMBER_DTYPE_FLOAT32:
      return ncclFloat32;
    case EMBER_DTYPE_FLOAT64:
      return ncclFloat64;
    default:
      break;
  }
  sdk::fail(EMBER_STATUS_UNIMPLEMENTED, std::string("nccl: does not move ") + sdk::dtype_name(dtype) + " tensors");
}

// Booleans reduce as torch's do: sum and max are "any", product and min
// "all", which on bytes of 0 and 1 are max and min.
ncclRedOp_t nccl_op(ember_reduce_op op, ember_dtype dtype) {
  const bool logical = dtype == EMBER_DTYPE_BOOL;
  switch (op) {
    case EMBER_REDUCE_SUM:
      return logical ? ncclMax : ncclSum;
    case EMBER_REDUCE_PRODUCT:
      return logical ? ncclMin : ncclProd;
    case EMBER_REDUCE_MIN:
      return ncclMin;
    case EMBER_REDUCE_MAX:
      return ncclMax;
  }
  sdk::fail(EMBER_STATUS_UNIMPLEMENTED, "nccl: unknown reduction " + std::to_string(op));
}

std::vector<size_t> splits_or_equal(const int64_t* splits, size_t total, int world_size) {
  std::vector<size_t> out(static_cast<size_t>(world_size), total / static_cast<size_t>(world_size));
  if (splits != nullptr) {
    for (int r = 0; r < world_size; ++r) out[static_cast<size_t>(r)] = static_cast<size_t>(splits[r]);
  }
  return out;
}

// Gather, scatter and all-to-all as grouped sends and receives, which
// every NCCL since 2.7 has.
class Group {
 public:
  Group(Communicator& communicator, const std::string& what) : communicator_(communicator), what_(what) {
    check_nccl(communicator_, ncclGroupStart(), what_);
  }
  // A failure inside the group still closes it, or this thread's next
  // NCCL call would join the broken group.
  ~Group() {
    if (!ended_) ncclGroupEnd();
  }
  Group(const Group&) = delete;
  Group& operator=(const Group&) = delete;
  void end() {
    ended_ = true;
    check_nccl(communicator_, ncclGroupEnd(), what_);
  }

 private:
  Communicator& communicator_;
  const std::string& what_;
  bool ended_ = false;
};

char* at(void* base, size_t elements, size_t element_size) {
  return static_cast<char*>(base) + elements * element_size;
}

void enqueue(Communicator& communicator, const ember_collective_call& call, cudaStream_t stream,
             const std::string& what) {
  ncclComm_t comm = communicator.comm;
  if (call.kind == EMBER_COLLECTIVE_BARRIER) {
    check_nccl(
        communicator,
        ncclAllReduce(communicator.barrier_word, communicator.barrier_word, 1, ncclFloat32, ncclSum, comm, stream),
        what);
    return;
  }
  const DLTensor* any = call.output != nullptr ? call.output : call.input;
  const ember_dtype dtype = sdk::dtype_of(*any);
  const ncclDataType_t type = nccl_dtype(dtype);
  const size_t element = static_cast<size_t>(sdk::element_size(dtype));
  const Operand in = operand_of(call.input), out = operand_of(call.output);
  const int world = communicator.world_size;
  switch (call.kind) {
    case EMBER_COLLECTIVE_ALL_REDUCE:
      return check_nccl(communicator,
                        ncclAllReduce(in.data, out.data, out.count, type, nccl_op(call.reduce_op, dtype), comm, stream),
                        what);
    case EMBER_COLLECTIVE_BROADCAST:
      return check_nccl(communicator, ncclBroadcast(in.data, out.data, out.count, type, call.root, comm, stream), what);
    case EMBER_COLLECTIVE_ALL_GATHER:
      return check_nccl(communicator, ncclAllGather(in.data, out.data, in.count, type, comm, stream), what);
    case EMBER_COLLECTIVE_REDUCE_SCATTER:
      return check_nccl(
          communicator,
          ncclReduceScatter(in.data, out.data, out.count, type, nccl_op(call.reduce_op, dtype), comm, stream), what);
    case EMBER_COLLECTIVE_REDUCE:
      return check_nccl(
          communicator,
          ncclReduce(in.data, out.data, out.count, type, nccl_op(call.reduce_op, dtype), call.root, comm, stream),
          what);
    case EMBER_COLLECTIVE_GATHER: {
      Group group(communicator, what);
      if (communicator.rank == call.root) {
        for (int r = 0; r < world; ++r) {
          check_nccl(communicator, ncclRecv(at(out.data, in.count * r, element), in.count, type, r, comm, stream),
                     what);
        }
      }
      check_nccl(communicator, ncclSend(in.data, in.count, type, call.root, comm, stream), what);
      return group.end();
    }
    case EMBER_COLLECTIVE_SCATTER: {
      Group group(communicator, what);
      if (communicator.rank == call.root) {
        for (int r = 0; r < world; ++r) {
          check_nccl(communicator, ncclSend(at(in.data, out.count * r, element), out.count, type, r, comm, stream),
                     what);
        }
      }
      check_nccl(communicator, ncclRecv(out.data, out.count, type, call.root, comm, stream), what);
      return group.end();
    }
    case EMBER_COLLECTIVE_ALL_TO_ALL: {
      const std::vector<size_t> sent = splits_or_equal(call.input_splits, in.count, world);
      const std::vector<size_t> received = splits_or_equal(call.output_splits, out.count, world);
      Group group(communicator, what);
      size_t sent_offset = 0, received_offset = 0;
      for (int r = 0; r < world; ++r) {
        const auto peer = static_cast<size_t>(r);
        check_nccl(communicator, ncclSend(at(in.data, sent_offset, element), sent[peer], type, r, comm, stream), what);
        check_nccl(communicator,
                   ncclRecv(at(out.data, received_offset, element), received[peer], type, r, comm, stream), what);
        sent_offset += sent[peer];
        received_offset += received[peer];
      }
      return group.end();
    }
    case EMBER_COLLECTIVE_SEND:
      return check_nccl(communicator, ncclSend(in.data, in.count, type, call.root, comm, stream), what);
    case EMBER_COLLECTIVE_RECV:
      return check_nccl(communicator, ncclRecv(out.data, out.count, type, call.root, comm, stream), what);
    case EMBER_COLLECTIVE_BARRIER:
      break;
  }
  sdk::fail(EMBER_STATUS_UNIMPLEMENTED, "nccl: unknown collective " + std::to_string(call.kind));
}

}  // namespace

const char* moved_dtypes() { return "bool uint8 int8 int32 int64 float16 bfloat16 float32 float64"; }

void run_collective(Communicator& communicator, const ember_collective_call& call) {
  const std::string what =
      std::string(sdk::collective_name(call.kind)) + " (sequence " + std::to_string(call.sequence) + ")";
  fail_if_broken(communicator, what);
  // NCCL's send and receive tag nothing: a user's tag other than 0 cannot
  // be honoured, and is refused rather than ignored.
  if ((call.kind == EMBER_COLLECTIVE_SEND || call.kind == EMBER_COLLECTIVE_RECV) && call.user_tag != 0) {
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "nccl " + what +
                                                 ": NCCL has no message tags; send and recv take tag 0 (got " +
                                                 std::to_string(call.user_tag) + ")");
  }
  const DLTensor* any = call.output != nullptr ? call.output : call.input;
  if (call.kind != EMBER_COLLECTIVE_BARRIER && (any == nullptr || sdk::numel(*any) == 0) &&
      (call.input == nullptr || sdk::numel(*call.input) == 0)) {
    return;  // nothing to move on any rank: the core's checks make them agree
  }
  void* native = nullptr;
  sdk::check(communicator.handles.native_stream(communicator.device_index, call.stream, &native));
  auto stream = static_cast<cudaStream_t>(native);
  const auto deadline =
      Clock::now() + (call.timeout_ms > 0 ? std::chrono::milliseconds(call.timeout_ms) : communicator.timeout);
  communicator.in_run = true;
  struct LeaveRun {
    Communicator& c;
    ~LeaveRun() { c.in_run = false; }
  } leave{communicator};
  check_cuda(cudaSetDevice(communicator.ordinal), what + ": cudaSetDevice");
  enqueue(communicator, call, stream, what);
  wait_while_in_progress(communicator, what, deadline);
  wait_for_stream(communicator, stream, what, deadline);
}

}  // namespace ember::nccl_plugin
