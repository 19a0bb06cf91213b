#pragma once
// Small collectives finished inside the fingerprint exchange.
//
// Note [Collectives inside the check]
// The check of Note [Collective fingerprints] is a round trip of its own,
// and for a small collective a round trip is the whole cost: a 4 KiB
// all_reduce took twice as long with the check as without. So every rank's
// fingerprint travels in a slot of fixed size, kSlotBytes, and a collective
// whose operand fits behind it (kInlineBytes, 4 KiB) sends its operand in
// the same all-gather: all_reduce, reduce, broadcast, all_gather and
// barrier then need no second exchange, the reduction running here in rank
// order, alike on every rank, so results stay bitwise equal across ranks.
// Operands on a device with an engine of its own keep the two exchanges.
//
// The slot's size never depends on the call. Ranks that disagree about a
// size therefore still exchange messages of one length, which Gloo accepts
// (a longer message than a buffer holds terminates the process), and find
// the disagreement in the fingerprints before using any payload. Whether a
// call fits depends only on what the fingerprint holds (kind, dtype,
// sizes), so ranks whose fingerprints agree also agree on the path.
//
// Every checked collective sends the whole slot, so the slot is kept to a
// page of operand: larger collectives pay 4 KiB more for their check than
// the 128-byte fingerprint alone, a few microseconds. A 16 KiB slot was
// measured too: it cost every small collective 10 to 30 us more over
// loopback than the 4 KiB one, a third of a 4 KiB all_reduce.
#include <cstddef>
#include <cstdint>
#include <optional>

#include "distributed/collective_checks.h"

namespace ember::distributed {

inline constexpr size_t kFingerprintBytes = sizeof(Fingerprint);
inline constexpr size_t kInlineBytes = size_t{4} << 10;
inline constexpr size_t kSlotBytes = kFingerprintBytes + kInlineBytes;

// The operand this rank sends in its slot, or nullopt when the collective
// does not finish in the exchange: its kind is not one of the five above,
// or its operand is larger than kInlineBytes. Operands are host tensors.
std::optional<Tensor> inline_operand(const CollectiveArgs& args, const std::optional<Tensor>& input,
                                     const std::optional<Tensor>& output);

// This rank's slot: its fingerprint, then the carried operand if any.
Tensor slot_of(const Fingerprint& fingerprint, const std::optional<Tensor>& carried);
// The fingerprint in rank `rank`'s slot of `slots`.
Fingerprint fingerprint_in(const uint8_t* slots, int rank);

// Writes this rank's result from every rank's slot (`slots`, world_size ×
// kSlotBytes, in rank order), after the fingerprints were found to agree.
void finish_inline(const CollectiveArgs& args, int rank, int world_size, const uint8_t* slots,
                   const std::optional<Tensor>& output);

}  // namespace ember::distributed
