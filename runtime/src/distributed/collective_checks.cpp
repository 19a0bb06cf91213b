#include "distributed/collective_checks.h"

#include "ember/dim_vector.h"
#include "ember/error.h"

namespace ember::distributed {
namespace {

enum Field { kKind, kOp, kRoot, kDtype, kInputNumel, kOutputNumel, kInputDims, kSequence, kFirstDim, kNumDims = 8 };

std::string where(const CollectiveArgs& args, int rank, int world_size) {
  return std::string(collective_name(args.kind)) + " on rank " + std::to_string(rank) + " of " +
         std::to_string(world_size);
}

[[noreturn]] void bad(const CollectiveArgs& args, int rank, int world_size, const std::string& what) {
  throw_error(ErrorKind::Value, where(args, rank, world_size) + ": " + what);
}

const char* reduce_name(int64_t op) {
  static const char* names[] = {"sum", "product", "min", "max", "avg"};
  return op >= 0 && op < 5 ? names[op] : "?";
}

}  // namespace

std::string describe_operand(const std::optional<Tensor>& t) {
  if (!t || !t->defined()) return "no tensor";
  return std::string(dtype_name(t->dtype())) + " " + shape_str(t->sizes()) + " on " + t->device().str();
}

void check_operands(const CollectiveArgs& args, const std::optional<Tensor>& input, const std::optional<Tensor>& output,
                    int rank, int world_size) {
  const bool rooted = args.kind == EMBER_COLLECTIVE_BROADCAST || args.kind == EMBER_COLLECTIVE_REDUCE ||
                      args.kind == EMBER_COLLECTIVE_GATHER || args.kind == EMBER_COLLECTIVE_SCATTER;
  const bool p2p = args.kind == EMBER_COLLECTIVE_SEND || args.kind == EMBER_COLLECTIVE_RECV;
  if ((rooted || p2p) && (args.root < 0 || args.root >= world_size)) {
    bad(args, rank, world_size,
        std::string(p2p ? "peer " : "root ") + std::to_string(args.root) + " is not a rank of the group");
  }
  if (p2p && args.root == rank) bad(args, rank, world_size, "a rank cannot send to or receive from itself");
  if (input && output && input->defined() && output->defined()) {
    if (input->dtype() != output->dtype()) {
      bad(args, rank, world_size,
          "input " + describe_operand(input) + " and output " + describe_operand(output) + " differ in dtype");
    }
    if (!(input->device() == output->device())) {
      bad(args, rank, world_size,
          "input " + describe_operand(input) + " and output " + describe_operand(output) + " are on different devices");
    }
  }
  const int64_t in = input && input->defined() ? input->numel() : 0;
  const int64_t out = output && output->defined() ? output->numel() : 0;
  auto need = [&](bool ok, const std::string& rule) {
    if (!ok) {
      bad(args, rank, world_size,
          rule + "; got input " + describe_operand(input) + " and output " + describe_operand(output));
    }
  };
  switch (args.kind) {
    case EMBER_COLLECTIVE_ALL_GATHER:
      need(out == in * world_size, "the output must hold world_size (" + std::to_string(world_size) + ") inputs");
      break;
    case EMBER_COLLECTIVE_REDUCE_SCATTER:
      need(in == out * world_size, "the input must hold world_size (" + std::to_string(world_size) + ") outputs");
      break;
    case EMBER_COLLECTIVE_GATHER:
      if (rank == args.root) {
        need(out == in * world_size, "root's output must hold world_size (" + std::to_string(world_size) + ") inputs");
      }
      break;
    case EMBER_COLLECTIVE_SCATTER:
      if (rank == args.root) {
        need(in == out * world_size, "root's input must hold world_size (" + std::to_string(world_size) + ") outputs");
      }
      break;
    case EMBER_COLLECTIVE_ALL_TO_ALL: {
      // Split sizes count rows (the first dimension), as torch's do.
      const auto rows_of = [](const std::optional<Tensor>& t) -> int64_t {
        if (!t || !t->defined()) return 0;
        return t->dim() > 0 ? t->sizes()[0] : 1;
      };
      const auto check_splits = [&](const std::vector<int64_t>& splits, int64_t numel, int64_t rows, const char* name) {
        if (splits.empty()) {
          need(numel % world_size == 0, std::string("the ") + name + " must split into world_size (" +
                                            std::to_string(world_size) + ") equal blocks");
          return;
        }
        need(static_cast<int>(splits.size()) == world_size,
             std::string(name) + "_split_sizes must have world_size (" + std::to_string(world_size) + ") entries");
        int64_t sum = 0;
        for (int64_t s : splits) {
          need(s >= 0, std::string(name) + "_split_sizes must not be negative");
          sum += s;
        }
        need(sum == rows,
             std::string(name) + "_split_sizes must add up to the " + name + "'s " + std::to_string(rows) + " rows");
      };
      check_splits(args.input_splits, in, rows_of(input), "input");
      check_splits(args.output_splits, out, rows_of(output), "output");
      if (args.input_splits.empty() && args.output_splits.empty()) need(in == out, "input and output must match");
      break;
    }
    default:
      break;
  }
  if (args.op == ReduceOp::Avg) {
    const std::optional<Tensor>& t = output ? output : input;
    if (t && t->defined() && !is_floating(t->dtype())) {
      bad(args, rank, world_size, "ReduceOp.AVG needs a floating-point tensor; got " + describe_operand(t));
    }
  }
}

Fingerprint fingerprint_of(const CollectiveArgs& args, uint64_t sequence, const std::optional<Tensor>& input,
                           const std::optional<Tensor>& output) {
  Fingerprint f;
  f.fill(-1);
  f[kKind] = args.kind;
  f[kOp] = static_cast<int64_t>(args.op);
  f[kRoot] = args.root;
  const std::optional<Tensor>& typed = output && output->defined() ? output : input;
  f[kDtype] = typed && typed->defined() ? static_cast<int64_t>(typed->dtype()) : -1;
  f[kInputNumel] = input && input->defined() ? input->numel() : 0;
  f[kOutputNumel] = output && output->defined() ? output->numel() : 0;
  f[kSequence] = static_cast<int64_t>(sequence);
  const std::optional<Tensor>& shaped = input && input->defined() ? input : output;
  if (shaped && shaped->defined()) {
    f[kInputDims] = shaped->dim();
    for (int64_t d = 0; d < std::min<int64_t>(shaped->dim(), kNumDims); ++d) f[kFirstDim + d] = shaped->sizes()[d];
  }
  return f;
}

std::string describe_fingerprint(const Fingerprint& f) {
  std::string text = collective_name(static_cast<ember_collective_kind>(f[kKind]));
  const auto kind = static_cast<ember_collective_kind>(f[kKind]);
  if (kind == EMBER_COLLECTIVE_ALL_REDUCE || kind == EMBER_COLLECTIVE_REDUCE ||
      kind == EMBER_COLLECTIVE_REDUCE_SCATTER) {
    text += std::string("(") + reduce_name(f[kOp]) + ")";
  }
  if (f[kDtype] >= 0) text += std::string(" ") + std::string(dtype_name(static_cast<DType>(f[kDtype])));
  if (f[kInputDims] >= 0) {
    text += " [";
    for (int64_t d = 0; d < std::min<int64_t>(f[kInputDims], kNumDims); ++d) {
      text += (d > 0 ? ", " : "") + std::to_string(f[kFirstDim + d]);
    }
    text += f[kInputDims] > kNumDims ? ", ...]" : "]";
  }
  if (kind == EMBER_COLLECTIVE_BROADCAST || kind == EMBER_COLLECTIVE_REDUCE || kind == EMBER_COLLECTIVE_GATHER ||
      kind == EMBER_COLLECTIVE_SCATTER) {
    text += " root " + std::to_string(f[kRoot]);
  }
  text += " (sequence " + std::to_string(f[kSequence]) + ")";
  return text;
}

std::string compare_fingerprints(const std::vector<Fingerprint>& all, int world_size) {
  bool same = true;
  for (const Fingerprint& f : all) {
    // Gather and scatter leave the output (input) empty off root: compare
    // what every rank has in common.
    Fingerprint a = f, b = all[0];
    const auto kind = static_cast<ember_collective_kind>(a[kKind]);
    if (kind == EMBER_COLLECTIVE_GATHER || kind == EMBER_COLLECTIVE_SCATTER || kind == EMBER_COLLECTIVE_ALL_TO_ALL) {
      a[kInputNumel] = a[kOutputNumel] = b[kInputNumel] = b[kOutputNumel] = 0;
      for (int d = kInputDims; d < 16; ++d) {
        if (d != kSequence) a[d] = b[d] = 0;
      }
    }
    if (a != b) same = false;
  }
  if (same) return {};
  std::string text = "ranks called different collectives (or the same with other operands):";
  for (int r = 0; r < world_size; ++r)
    text += " rank " + std::to_string(r) + " called " + describe_fingerprint(all[r]) + ";";
  text.pop_back();
  return text;
}

}  // namespace ember::distributed
