#include "distributed/inline_collectives.h"

#include <cstring>

#include "ember/ops.h"

namespace ember::distributed {
namespace {

size_t bytes_of(const Tensor& t) { return static_cast<size_t>(t.numel()) * t.element_size(); }

const uint8_t* payload_of(const uint8_t* slots, int rank) {
  return slots + static_cast<size_t>(rank) * kSlotBytes + kFingerprintBytes;
}

// Every rank's operand in rank order, as the rows of one tensor.
Tensor gathered_rows(const uint8_t* slots, int world_size, const Tensor& like) {
  Tensor rows = empty({world_size, like.numel()}, TensorOptions(like.dtype()));
  const size_t bytes = bytes_of(like);
  auto* out = static_cast<uint8_t*>(rows.data_ptr());
  for (int r = 0; r < world_size; ++r) std::memcpy(out + r * bytes, payload_of(slots, r), bytes);
  return rows;
}

Tensor combine(ReduceOp op, const Tensor& a, const Tensor& b) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Avg:  // divided by the caller, as after an engine's sum
      return add(a, b);
    case ReduceOp::Product:
      return mul(a, b);
    case ReduceOp::Min:
      return minimum(a, b);
    case ReduceOp::Max:
      return maximum(a, b);
  }
  return a;
}

}  // namespace

std::optional<Tensor> inline_operand(const CollectiveArgs& args, const std::optional<Tensor>& input,
                                     const std::optional<Tensor>& output) {
  switch (args.kind) {
    case EMBER_COLLECTIVE_BARRIER:
      return Tensor();
    case EMBER_COLLECTIVE_ALL_GATHER:
      if (input && input->defined() && bytes_of(*input) <= kInlineBytes) return *input;
      return std::nullopt;
    case EMBER_COLLECTIVE_ALL_REDUCE:
    case EMBER_COLLECTIVE_REDUCE:
    case EMBER_COLLECTIVE_BROADCAST:
      if (output && output->defined() && bytes_of(*output) <= kInlineBytes) return *output;
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

Tensor slot_of(const Fingerprint& fingerprint, const std::optional<Tensor>& carried) {
  Tensor slot = zeros({static_cast<int64_t>(kSlotBytes)}, TensorOptions(DType::UInt8));
  auto* bytes = slot.data<uint8_t>();
  std::memcpy(bytes, fingerprint.data(), kFingerprintBytes);
  if (carried && carried->defined() && carried->numel() > 0) {
    std::memcpy(bytes + kFingerprintBytes, carried->data_ptr(), bytes_of(*carried));
  }
  return slot;
}

Fingerprint fingerprint_in(const uint8_t* slots, int rank) {
  Fingerprint fingerprint;
  std::memcpy(fingerprint.data(), slots + static_cast<size_t>(rank) * kSlotBytes, kFingerprintBytes);
  return fingerprint;
}

void finish_inline(const CollectiveArgs& args, int rank, int world_size, const uint8_t* slots,
                   const std::optional<Tensor>& output) {
  if (args.kind == EMBER_COLLECTIVE_BARRIER || !output || !output->defined() || output->numel() == 0) return;
  auto* out = static_cast<uint8_t*>(output->data_ptr());
  switch (args.kind) {
    case EMBER_COLLECTIVE_ALL_GATHER: {
      const size_t bytes = bytes_of(*output) / static_cast<size_t>(world_size);
      for (int r = 0; r < world_size; ++r) std::memcpy(out + r * bytes, payload_of(slots, r), bytes);
      return;
    }
    case EMBER_COLLECTIVE_BROADCAST:
      if (rank != args.root) std::memcpy(out, payload_of(slots, args.root), bytes_of(*output));
      return;
    case EMBER_COLLECTIVE_REDUCE:
    case EMBER_COLLECTIVE_ALL_REDUCE: {
      if (args.kind == EMBER_COLLECTIVE_REDUCE && rank != args.root) return;
      const Tensor rows = gathered_rows(slots, world_size, *output);
      Tensor result = rows.select(0, 0);
      for (int r = 1; r < world_size; ++r) result = combine(args.op, result, rows.select(0, r));
      std::memcpy(out, result.data_ptr(), bytes_of(*output));
      return;
    }
    default:
      return;
  }
}

}  // namespace ember::distributed
