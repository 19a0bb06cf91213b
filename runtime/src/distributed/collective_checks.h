#pragma once
// What the core checks before an engine sees a collective: the operands on
// this rank, and (Note [Collective fingerprints]) that every rank called the
// same collective.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "distributed/process_group.h"

namespace ember::distributed {

// "float32 [4, 4]", or "no tensor".
std::string describe_operand(const std::optional<Tensor>& t);

// Throws ErrorKind::Value naming the collective, rank, shapes and dtypes
// when the operands cannot go together on this rank.
void check_operands(const CollectiveArgs& args, const std::optional<Tensor>& input, const std::optional<Tensor>& output,
                    int rank, int world_size);

// Note [Collective fingerprints]
// Gloo terminates the process when a peer sends more bytes than a buffer
// holds, and a collective of another kind only times out, naming nobody.
// So before each collective the ranks all-gather a fingerprint of it
// (kind, reduction, root, dtype and sizes, sequence number): 16 int64s,
// in a slot that may carry a small operand as well
// (Note [Collectives inside the check]). Every rank compares all of them
// and, on a mismatch, fails with the same message naming what each rank
// called, before any operand moves. EMBER_DISTRIBUTED_DEBUG=OFF skips it.
using Fingerprint = std::array<int64_t, 16>;

Fingerprint fingerprint_of(const CollectiveArgs& args, uint64_t sequence, const std::optional<Tensor>& input,
                           const std::optional<Tensor>& output);
std::string describe_fingerprint(const Fingerprint& fingerprint);
// Empty when all ranks agree; else the error text.
std::string compare_fingerprints(const std::vector<Fingerprint>& all, int world_size);

}  // namespace ember::distributed
