#include "cpp_source.h"

#include <ember/sdk/dtypes.hpp>
#include <ember/sdk/status.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include <ember/kernel_ir/iteration_space.h>

#include "embedded_sources.h"

// Note [Generated loop nest]: the kernel's outer points are split into
// tasks of about kTaskWork element steps, run on the parallel loop the
// plugin hands the kernel (kernel_entry.h) when the kernel has at least
// kParallelWork of them (smaller kernels run on the calling thread). Each
// walk over an iteration space (the outer space, a loop's extents)
// decomposes its first position once and then runs along
// the innermost dimension, so a stride-1 index loads contiguously, a
// stride-0 one broadcasts, and the innermost loop is what GCC vectorises.
// When every loop's extents are [] (a pointwise kernel), the innermost
// outer dimension is that loop; otherwise each outer point runs its loops
// one after another, and those are the vectorised loops.
//
// Note [Reduction chunks]: a reduce accumulates into kLanes independent
// lanes (element j of a run goes to lane j mod kLanes), which vectorises
// without reassociating anything the compiler could not; every
// kPairwiseBlock elements the lanes are folded pairwise into a block
// result, and block results are combined pairwise (ek_pairwise). A kernel
// with fewer than kSplitBelowPoints outer points and a loop of at least
// 2 * kReduceGrain elements splits each such loop into up to kMostPartials
// chunks run on the parallel loop, whose partial results are combined in
// chunk order.
// Lanes, blocks and chunks all depend on the extents alone, never on the
// thread count or on addresses, so every kernel is deterministic in the
// sense of the `deterministic` hint whether or not it asks for it.
//
// Note [Row reuse]: the loops of one outer point may compute the same
// costly value over the same extents: softmax's exp(x - max) is summed in
// one loop and divided by that sum in the next. When such a loop is short
// (at most kRowReuseMost elements, so it runs as one chunk) and its extents
// are static, the first loop keeps the value in a row buffer on the stack
// and the later one reads it there instead of computing it again. A value
// is costly when a libm call (exp, log, sin, ...) goes into it; the later
// loop's instructions that only fed the reused value are left out. The
// bits are the same either way.
//
// Note [Independent loops]: a loop with extents runs in a lambda (a chunk
// of Note [Reduction chunks]) that reaches the buffers through its
// captures, where their __restrict no longer counts; GCC then versions a
// loop over more than a few buffers for aliasing and, past ten run-time
// checks, leaves it scalar (a combo of an optimizer's updates, Note [Combo
// kernels] of the core, ran at a third of the speed). A loop without a
// reduce is marked independent instead (GCC's ivdep, clang's
// assume_safety): EKIR promises that no buffer overlaps another and that
// no iteration reads what another stores.
//
// Note [Kernel faults]: the catalogue's data-dependent errors (an integer
// divisor of 0, an integer to a negative power) cannot stop a kernel
// midway; the element yields 0, the kernel goes on and returns a fault bit,
// and launch reports INVALID_ARGUMENT with the catalogue's message. The
// outputs are then partly written, as for any failed kernel.

namespace ember::cpu_codegen {
namespace {

using kernel_ir::IterationSpace;
using kernel_ir::simplify_space;
using kernel_ir::term_code;

const CppDialect kCpp;

const char* compute_type(ember_dtype dtype) { return kCpp.compute_type(dtype); }
const char* storage_type(ember_dtype dtype) { return kCpp.storage_type(dtype); }

constexpr int kLanes = 64;
constexpr int64_t kPairwiseBlock = 8192;
constexpr int64_t kParallelWork = 32768;
constexpr int64_t kTaskWork = 16384;
constexpr int64_t kSplitBelowPoints = 64;
constexpr int64_t kReduceGrain = 32768;
constexpr int64_t kMostPartials = 64;
constexpr int64_t kColumnRows = 128;
constexpr size_t kColumnBytes = 16384;
constexpr int64_t kMostColumnBlock = 2048;
constexpr int64_t kRowReuseMost = 16384;
static_assert(kRowReuseMost < kReduceGrain, "a loop with a row buffer must run as one chunk");

class Code {
 public:
  void line(const std::string& text) { text_ += std::string(2 * depth_, ' ') + text + "\n"; }
  void open(const std::string& head) {
    line(head.empty() ? "{" : head + " {");
    ++depth_;
  }
  void close(const std::string& tail = "}") {
    --depth_;
    line(tail);
  }
  std::string take() { return std::move(text_); }

 private:
  std::string text_;
  int depth_ = 0;
};

std::string value_name(ValueRef ref) { return "v" + std::to_string(ref.loop) + "_" + std::to_string(ref.index); }

std::string index_code(const std::string& base, const std::string& stride, const std::string& position) {
  if (stride == "0LL") return base;
  if (stride == "1LL") return base + " + " + position;
  return base + " + " + stride + " * " + position;
}

// "fused_cos_sin" -> "ember_kernel_fused_cos_sin": the name's letters,
// digits and underscores, so that any name gives a valid symbol.
std::string symbol_for(const std::string& name) {
  std::string symbol = "ember_kernel_";
  for (char c : name.substr(0, 64)) {
    const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    symbol += word ? c : '_';
  }
  return symbol;
}

// The C prototype of a math function the source calls ("sinf", "pow").
std::string math_declaration(const std::string& function) {
  for (const MathFunction& math : kMathFunctions) {
    const std::string name = math.name;
    const bool single = function == name + "f";
    if (!single && function != name) continue;
    const std::string type = single ? "float" : "double";
    const std::string params = math.arity == 2 ? type + ", " + type : type;
    return type + " " + function + "(" + params + ") noexcept";
  }
  sdk::fail(EMBER_STATUS_INTERNAL, "no declaration for " + function);
}

class Generator {
 public:
  Generator(const Kernel& kernel, const std::set<std::string>& simd_functions)
      : kernel_(kernel), simd_functions_(simd_functions) {
    std::vector<std::vector<Term>> outer_strides;
    inner_.resize(kernel.loops.size());
    loop_accesses_.resize(kernel.loops.size());
    for (size_t l = 0; l < kernel.loops.size(); ++l) {
      const Loop& loop = kernel.loops[l];
      std::vector<std::vector<Term>> inner_strides;
      for (size_t i = 0; i < loop.body.size(); ++i) {
        const Instruction& ins = loop.body[i];
        if (ins.op != Op::load && ins.op != Op::store) continue;
        const ValueRef ref{static_cast<int>(l), static_cast<int>(i)};
        access_of_[key(ref)] = static_cast<int>(outer_strides.size());
        inner_of_[key(ref)] = static_cast<int>(loop_accesses_[l].size());
        loop_accesses_[l].push_back(ref);
        const auto split = ins.strides.begin() + static_cast<std::ptrdiff_t>(kernel.outer.size());
        outer_strides.emplace_back(ins.strides.begin(), split);
        inner_strides.emplace_back(split, ins.strides.end());
      }
      inner_[l] = simplify_space(loop.extents, inner_strides);
      pointwise_ = pointwise_ && inner_[l].extents.empty();
    }
    outer_ = simplify_space(kernel.outer, outer_strides);
    choose_schedule();
    if (!pointwise_ && !column_) find_row_reuse();
  }

  CppSource generate() {
    Code body;
    emit_points_function(body);
    emit_entry(body);
    CppSource source;
    source.symbol = symbol_for(kernel_.name);
    source.text = header() + body.take();
    source.requirements = req_;
    return source;
  }

 private:
  static int64_t key(ValueRef ref) { return (int64_t{ref.loop} << 32) | ref.index; }
  int access_index(ValueRef ref) const { return access_of_.at(key(ref)); }
  int inner_index(ValueRef ref) const { return inner_of_.at(key(ref)); }

  std::string header() const {
    std::string text = "// Generated by the cpu_codegen plugin from EKIR kernel '" + symbol_for(kernel_.name) +
                       "'.\n#include <stdint.h>\n";
    if (req_.scalar_rules) text += "#include <ember/sdk/scalar_rules.hpp>\n";
    text += "#if defined(__GNUC__) && !defined(__clang__)\n#define EK_SIMD __attribute__((simd(\"notinbranch\")))\n";
    text += "#else\n#define EK_SIMD\n#endif\n";
    // Note [Independent loops].
    text +=
        "#if defined(__clang__)\n#define EK_INDEPENDENT _Pragma(\"clang loop vectorize(assume_safety)\")\n"
        "#elif defined(__GNUC__)\n#define EK_INDEPENDENT _Pragma(\"GCC ivdep\")\n#else\n#define EK_INDEPENDENT\n"
        "#endif\nextern \"C\" {\n";
    for (const std::string& function : req_.math_functions) {
      text += math_declaration(function) + (simd_functions_.count(function) ? " EK_SIMD" : "") + ";\n";
    }
    text += "}\n";
    text +=
        "static constexpr unsigned ek_fault_integer_division_by_zero = " + std::to_string(kFaultIntegerDivisionByZero) +
        "u;\n";
    text +=
        "static constexpr unsigned ek_fault_negative_integer_power = " + std::to_string(kFaultNegativeIntegerPower) +
        "u;\n";
    return text + embedded::kKernelEntry + embedded::kKernelPrelude;
  }

  std::string buffer_parameters() const {
    std::string list;
    for (size_t b = 0; b < kernel_.buffers.size(); ++b) {
      const Buffer& buffer = kernel_.buffers[b];
      list += std::string(buffer.role == BufferRole::input ? "const " : "") + storage_type(buffer.dtype) +
              "* __restrict b" + std::to_string(b) + ", ";
    }
    return list;
  }

  std::string buffer_arguments() const {
    std::string list;
    for (size_t b = 0; b < kernel_.buffers.size(); ++b) list += "b" + std::to_string(b) + ", ";
    return list;
  }

  // Declares the launch parameters the kernel uses and every extent.
  void emit_extents(Code& c) const {
    std::set<int64_t> params;
    auto note = [&](const Term& t) {
      if (t.is_param) params.insert(t.value);
    };
    for (const Term& t : kernel_.outer) note(t);
    for (const Loop& loop : kernel_.loops) {
      for (const Term& t : loop.extents) note(t);
      for (const Instruction& ins : loop.body) {
        note(ins.offset);
        for (const Term& t : ins.strides) note(t);
        if (ins.op == Op::constant && ins.constant.param) params.insert(*ins.constant.param);
      }
    }
    for (int64_t k : params) c.line("const int64_t p" + std::to_string(k) + " = ek_params[" + std::to_string(k) + "];");
    c.line("const int64_t o_points = " + declare_space(c, "o_", outer_) + ";");
    for (size_t l = 0; l < inner_.size(); ++l) {
      if (inner_[l].extents.empty()) continue;
      const std::string prefix = "l" + std::to_string(l) + "_";
      c.line("const int64_t " + prefix + "points = " + declare_space(c, prefix, inner_[l]) + ";");
    }
  }

  // Declares a space's extents as <prefix>e0, ...; returns their product.
  static std::string declare_space(Code& c, const std::string& prefix, const IterationSpace& space) {
    std::string product = "1";
    for (size_t d = 0; d < space.extents.size(); ++d) {
      const std::string name = prefix + "e" + std::to_string(d);
      c.line("const int64_t " + name + " = " + space.extents[d] + ";");
      product = d == 0 ? name : product + " * " + name;
    }
    return product;
  }

  // Walks positions [from, to) of `space` (Note [Generated loop nest]): for
  // each run along its innermost dimension, defines every access's base
  // `out[a]` (from `in[a]`) and emits row(run length).
  static void emit_walk(Code& c, const std::string& prefix, const IterationSpace& space,
                        const std::vector<std::string>& in, const std::vector<std::string>& out,
                        const std::string& from, const std::string& to,
                        const std::function<void(const std::string&)>& row) {
    const size_t k = space.extents.size();
    c.open("if (" + from + " < " + to + ")");
    if (k == 0) {
      for (size_t a = 0; a < in.size(); ++a) c.line("const int64_t " + out[a] + " = " + in[a] + ";");
      row("1");
      c.close();
      return;
    }
    auto idx = [&](size_t d) { return prefix + "i" + std::to_string(d); };
    auto ext = [&](size_t d) { return prefix + "e" + std::to_string(d); };
    std::string indices;
    for (size_t d = 0; d < k; ++d) indices += (d > 0 ? ", " : "") + idx(d);
    c.line("int64_t " + indices + ";");
    c.line("int64_t " + prefix + "rest = " + from + ";");
    for (size_t d = k - 1; d > 0; --d) {
      c.line(idx(d) + " = " + prefix + "rest % " + ext(d) + ";");
      c.line(prefix + "rest /= " + ext(d) + ";");
    }
    c.line(idx(0) + " = " + prefix + "rest;");
    c.open("for (int64_t " + prefix + "f = " + from + "; " + prefix + "f < " + to + ";)");
    const std::string n = prefix + "n";
    c.line("const int64_t " + n + " = ek_min(" + ext(k - 1) + " - " + idx(k - 1) + ", " + to + " - " + prefix + "f);");
    for (size_t a = 0; a < in.size(); ++a) {
      std::string base = in[a];
      for (size_t d = 0; d < k; ++d) {
        const std::string& s = space.strides[a][d];
        if (s != "0LL") base += " + " + (s == "1LL" ? idx(d) : s + " * " + idx(d));
      }
      c.line("const int64_t " + out[a] + " = " + base + ";");
    }
    row(n);
    c.line(prefix + "f += " + n + ";");
    if (k == 1) {
      c.line(idx(0) + " += " + n + ";");
    } else {
      c.line(idx(k - 1) + " = 0;");
      for (size_t d = k - 1; d-- > 1;) {
        c.open("if (++" + idx(d) + " == " + ext(d) + ")");
        c.line(idx(d) + " = 0;");
      }
      c.line("++" + idx(0) + ";");
      for (size_t d = k - 1; d-- > 1;) c.close();
    }
    c.close();
    c.close();
  }

  // An operand's expression: its local value, or in a column block (Note
  // [Column blocks]) the current point's entry of an earlier loop's value.
  std::string operand_name(const Instruction& ins, size_t a, int l) const {
    const ValueRef ref = ins.args[a];
    if (column_ && ref.loop != l) return "ek_xs_" + value_name(ref) + "[ek_p]";
    return value_name(ref);
  }

  // The instructions of loop `l` for one element; `index(ref)` is the
  // element index of an access, and a reduce accumulates into entry `lane`
  // of array `accumulators` + its name ("" lane: a loop without extents).
  void emit_element(Code& c, int l, const std::function<std::string(ValueRef)>& index, const std::string& lane,
                    const std::string& accumulators) {
    const Loop& loop = kernel_.loops[l];
    for (size_t i = 0; i < loop.body.size(); ++i) {
      const ValueRef ref{l, static_cast<int>(i)};
      const Instruction& ins = loop.body[i];
      const std::string type = compute_type(ins.dtype);
      const std::string name = value_name(ref);
      const std::string buffer = "b" + std::to_string(ins.buffer);
      if (left_out_.count(key(ref)) != 0) continue;
      if (auto source = reuse_.find(key(ref)); source != reuse_.end()) {
        c.line("const " + type + " " + name + " = ek_row_" + value_name(source->second) + "[" + row_position_ + "];");
        continue;
      }
      switch (ins.op) {
        case Op::load:
          c.line("const " + type + " " + name + " = " + kCpp.load(ins.dtype, buffer, index(ref), req_) + ";");
          break;
        case Op::store:
          c.line(kCpp.store(ins.dtype, buffer, index(ref), operand_name(ins, 0, l), req_));
          break;
        case Op::reduce:
          if (lane.empty()) {
            // extents [] (or all 1): the reduce of one element
            std::string value = reduce_combine(kCpp, ins.kind, ins.dtype, reduce_identity(kCpp, ins.kind, ins.dtype),
                                               operand_name(ins, 0, l), req_);
            if (is_reduced_float(ins.dtype)) value = kCpp.round_to_dtype(ins.dtype, value, req_);
            c.line("const " + type + " " + name + " = " + value + ";");
          } else {
            const std::string acc = accumulators + name + "[" + lane + "]";
            c.line(acc + " = " + reduce_combine(kCpp, ins.kind, ins.dtype, acc, operand_name(ins, 0, l), req_) + ";");
          }
          break;
        default: {
          std::vector<std::string> args;
          for (size_t a = 0; a < ins.args.size(); ++a) args.push_back(operand_name(ins, a, l));
          const bool own_dtype = ins.args.empty() || ins.op == Op::where;
          const ember_dtype operand = own_dtype ? ins.dtype : kernel_.at(ins.args[0]).dtype;
          c.line("const " + type + " " + name + " = " + op_expression(kCpp, ins, operand, args, "fault", req_) + ";");
        }
      }
      if (column_ && lane.empty() && crosses_.count(key(ref)) != 0) c.line("ek_xs_" + name + "[ek_p] = " + name + ";");
      if (row_kept_.count(key(ref)) != 0) c.line("ek_row_" + name + "[" + row_position_ + "] = " + name + ";");
    }
  }

  // The number of elements of loop `l`, when its extents are all static.
  std::optional<int64_t> static_points(int l) const {
    int64_t points = 1;
    for (const Term& t : kernel_.loops[l].extents) {
      if (t.is_param || __builtin_mul_overflow(points, t.value, &points)) return std::nullopt;
    }
    return points;
  }

  // What instruction `i` of loop `l` computes, as a string equal for equal
  // computations over the same extents: operands of the loop by what they
  // compute, operands of earlier loops by name. A load of a buffer the
  // kernel stores to is never equal to another.
  std::string structural_key(int l, int i, const std::vector<std::string>& earlier,
                             const std::set<int>& stored_buffers) const {
    const Instruction& ins = kernel_.loops[l].body[i];
    std::string k = std::to_string(static_cast<int>(ins.op)) + "/" + std::to_string(static_cast<int>(ins.dtype)) +
                    "/" + std::to_string(static_cast<int>(ins.kind));
    if (ins.op == Op::load) {
      if (stored_buffers.count(ins.buffer) != 0) return "#" + value_name({l, i});
      k += "/b" + std::to_string(ins.buffer) + "@" + term_code(ins.offset);
      for (const Term& t : ins.strides) k += "," + term_code(t);
    } else if (ins.op == Op::constant) {
      k += ins.constant.param ? "/p" + std::to_string(*ins.constant.param)
                              : "/" + std::to_string(ins.constant.number) + "/" + std::to_string(ins.constant.integer);
    }
    for (ValueRef arg : ins.args) {
      k += arg.loop == l ? "(" + earlier[static_cast<size_t>(arg.index)] + ")" : " " + value_name(arg);
    }
    return k;
  }

  // Finds the values of Note [Row reuse].
  void find_row_reuse() {
    std::set<int> stored_buffers;
    for (const Loop& loop : kernel_.loops) {
      for (const Instruction& ins : loop.body) {
        if (ins.op == Op::store) stored_buffers.insert(ins.buffer);
      }
    }
    std::map<std::string, ValueRef> first;
    for (size_t lu = 0; lu < kernel_.loops.size(); ++lu) {
      const int l = static_cast<int>(lu);
      const std::optional<int64_t> points = static_points(l);
      if (inner_[lu].extents.empty() || !points || *points > kRowReuseMost) continue;
      std::string extents;
      for (const Term& t : kernel_.loops[lu].extents) extents += term_code(t) + ",";
      const std::vector<Instruction>& body = kernel_.loops[lu].body;
      std::vector<std::string> keys(body.size());
      std::vector<bool> costly(body.size(), false);
      std::map<int, ValueRef> matched;
      for (size_t i = 0; i < body.size(); ++i) {
        keys[i] = structural_key(l, static_cast<int>(i), keys, stored_buffers);
        costly[i] = is_math_function(body[i].op);  // Note [Row reuse]
        for (ValueRef arg : body[i].args) costly[i] = costly[i] || (arg.loop == l && costly[arg.index]);
        const Op op = body[i].op;
        if (op == Op::load || op == Op::store || op == Op::reduce) continue;
        const auto [it, fresh] = first.emplace(extents + keys[i], ValueRef{l, static_cast<int>(i)});
        if (!fresh) matched[static_cast<int>(i)] = it->second;
      }
      // Reuse the largest matched values: those some unmatched instruction,
      // or a later loop, reads.
      std::vector<bool> needed(body.size(), false);
      bool reuses = false;
      for (size_t i = body.size(); i-- > 0;) {
        const ValueRef ref{l, static_cast<int>(i)};
        const bool kept_for_later = crosses_.count(key(ref)) != 0;
        needed[i] = needed[i] || kept_for_later || body[i].op == Op::store || body[i].op == Op::reduce;
        auto match = matched.find(static_cast<int>(i));
        if (needed[i] && match != matched.end() && costly[i]) {
          reuses = true;
          reuse_[key(ref)] = match->second;
          row_kept_.insert(key(match->second));
          continue;
        }
        if (!needed[i]) continue;
        for (ValueRef arg : body[i].args) {
          if (arg.loop == l) needed[static_cast<size_t>(arg.index)] = true;
        }
      }
      if (!reuses) continue;
      for (size_t i = 0; i < body.size(); ++i) {
        if (!needed[i]) left_out_.insert(key(ValueRef{l, static_cast<int>(i)}));
      }
    }
  }

  std::vector<ValueRef> reduces_of(int l) const {
    std::vector<ValueRef> reduces;
    for (size_t i = 0; i < kernel_.loops[l].body.size(); ++i) {
      if (kernel_.loops[l].body[i].op == Op::reduce) reduces.push_back({l, static_cast<int>(i)});
    }
    return reduces;
  }

  // A loop with extents at one outer point (Note [Reduction chunks]).
  void emit_inner_loop(Code& c, int l) {
    const std::string prefix = "l" + std::to_string(l) + "_";
    const std::string points = prefix + "points";
    const IterationSpace& space = inner_[l];
    const std::vector<ValueRef> reduces = reduces_of(l);
    const std::string lanes = std::to_string(kLanes);
    for (ValueRef r : reduces) c.line(std::string(compute_type(kernel_.at(r).dtype)) + " " + value_name(r) + ";");
    c.open("");
    c.line("const int64_t ek_chunks = ek_split ? ek_chunk_count(" + points + ", " + std::to_string(kReduceGrain) +
           ", " + std::to_string(kMostPartials) + ") : 1;");
    for (ValueRef r : reduces) {
      const Instruction& ins = kernel_.at(r);
      const std::string type = compute_type(ins.dtype);
      c.line(type + " ek_partial_" + value_name(r) + "[" + std::to_string(kMostPartials) + "];");
      c.line("const auto ek_combine_" + value_name(r) + " = [](" + type + " acc, " + type + " value) { return " +
             reduce_combine(kCpp, ins.kind, ins.dtype, "acc", "value", req_) + "; };");
    }
    c.open("const auto ek_chunk = [&](int64_t ek_c, int64_t ek_from, int64_t ek_to) -> unsigned");
    c.line("(void)ek_c;");
    c.line("unsigned fault = 0;");
    for (ValueRef r : reduces) {
      const Instruction& ins = kernel_.at(r);
      const std::string type = compute_type(ins.dtype);
      c.line(type + " ek_lanes_" + value_name(r) + "[" + lanes + "];");
      c.line("for (int l = 0; l < " + lanes + "; ++l) ek_lanes_" + value_name(r) +
             "[l] = " + reduce_identity(kCpp, ins.kind, ins.dtype) + ";");
      c.line("ek_pairwise<" + type + "> ek_blocks_" + value_name(r) + ";");
    }
    std::string flush;
    for (ValueRef r : reduces) {
      const std::string n = value_name(r);
      const Instruction& ins = kernel_.at(r);
      flush += "ek_blocks_" + n + ".push(ek_fold_lanes<" + compute_type(ins.dtype) + ", " + lanes + ">(ek_lanes_" + n +
               ", ek_combine_" + n + "), ek_combine_" + n + "); for (int l = 0; l < " + lanes + "; ++l) ek_lanes_" + n +
               "[l] = " + reduce_identity(kCpp, ins.kind, ins.dtype) + "; ";
    }
    if (!reduces.empty()) c.line("int64_t ek_filled = 0;");
    std::vector<std::string> in, out;
    for (ValueRef ref : loop_accesses_[l]) {
      in.push_back("pb_" + value_name(ref));
      out.push_back(prefix + "b_" + value_name(ref));
    }
    const std::string j = prefix + "j";
    auto index_at = [&](const std::string& position) {
      return [this, &space, prefix, position](ValueRef ref) {
        return index_code(prefix + "b_" + value_name(ref), space.strides[inner_index(ref)].back(), position);
      };
    };
    emit_walk(c, prefix, space, in, out, "ek_from", "ek_to", [&](const std::string& n) {
      if (reduces.empty()) {
        c.line("EK_INDEPENDENT");
        c.open("for (int64_t " + j + " = 0; " + j + " < " + n + "; ++" + j + ")");
        row_position_ = prefix + "f + " + j;
        emit_element(c, l, index_at(j), "", "");
        c.close();
        return;
      }
      c.open("for (int64_t " + j + " = 0; " + j + " < " + n + ";)");
      c.line("const int64_t ek_end = " + j + " + ek_min(" + n + " - " + j + ", " + std::to_string(kPairwiseBlock) +
             " - ek_filled);");
      c.line("ek_filled += ek_end - " + j + ";");
      c.open("for (; " + j + " + " + lanes + " <= ek_end; " + j + " += " + lanes + ")");
      c.open("for (int ek_l = 0; ek_l < " + lanes + "; ++ek_l)");
      c.line("const int64_t ek_jj = " + j + " + ek_l;");
      row_position_ = prefix + "f + ek_jj";
      emit_element(c, l, index_at("ek_jj"), "ek_l", "ek_lanes_");
      c.close();
      c.close();
      c.open("for (int ek_l = 0; " + j + " < ek_end; ++" + j + ", ++ek_l)");
      row_position_ = prefix + "f + " + j;
      emit_element(c, l, index_at(j), "ek_l", "ek_lanes_");
      c.close();
      c.open("if (ek_filled == " + std::to_string(kPairwiseBlock) + ")");
      c.line(flush + "ek_filled = 0;");
      c.close();
      c.close();
    });
    if (!reduces.empty()) c.line("if (ek_filled > 0) { " + flush + "}");
    for (ValueRef r : reduces) {
      const Instruction& ins = kernel_.at(r);
      c.line("ek_partial_" + value_name(r) + "[ek_c] = ek_blocks_" + value_name(r) + ".total(" +
             reduce_identity(kCpp, ins.kind, ins.dtype) + ", ek_combine_" + value_name(r) + ");");
    }
    c.line("return fault;");
    c.close("};");
    c.open("if (ek_chunks == 1)");
    c.line("fault |= ek_chunk(0, 0, " + points + ");");
    c.close();
    c.open("else");
    c.open("const auto ek_chunks_from = [&](int64_t ek_c0, int64_t ek_c1)");
    c.line("unsigned ek_fault = 0;");
    c.line("for (int64_t ek_c = ek_c0; ek_c < ek_c1; ++ek_c) ek_fault |= ek_chunk(ek_c, ek_chunk_begin(" + points +
           ", ek_chunks, ek_c), ek_chunk_begin(" + points + ", ek_chunks, ek_c + 1));");
    c.line("ek_merge_fault(fault, ek_fault);");
    c.close("};");
    c.line("ek_parallel_for(ek_pool, ek_chunks, ek_chunks_from);");
    c.close();
    for (ValueRef r : reduces) {
      const Instruction& ins = kernel_.at(r);
      const std::string n = value_name(r);
      c.line(std::string(compute_type(ins.dtype)) + " ek_acc_" + n + " = ek_partial_" + n + "[0];");
      c.line("for (int64_t c = 1; c < ek_chunks; ++c) ek_acc_" + n + " = ek_combine_" + n + "(ek_acc_" + n +
             ", ek_partial_" + n + "[c]);");
      const std::string acc = "ek_acc_" + n;
      c.line(n + " = " + (is_reduced_float(ins.dtype) ? kCpp.round_to_dtype(ins.dtype, acc, req_) : acc) + ";");
    }
    c.close();
  }

  // Note [Column blocks]: when a kernel's loops read along the innermost
  // outer dimension (x.sum(0) of a row-major matrix: outer stride 1, loop
  // stride a row), walking one outer point at a time would gather. The
  // kernel then runs a block of neighbouring outer points together: each
  // loop walks its extents once, and at each element the innermost loop
  // runs over the block's points, so it loads contiguously and vectorises.
  // A reduce keeps one accumulator per point, summed in order over blocks
  // of kColumnRows elements (blocked summation bounds a long column's
  // rounding error); values later loops use are kept per point. Every
  // point's result depends on the extents alone.
  void choose_schedule() {
    for (size_t l = 0; l < kernel_.loops.size(); ++l) {
      for (const Instruction& ins : kernel_.loops[l].body) {
        for (ValueRef arg : ins.args) {
          if (arg.loop != static_cast<int>(l)) crosses_.insert(key(arg));
        }
      }
    }
    if (pointwise_ || outer_.extents.empty()) return;
    int along_loop = 0, along_outer = 0;
    for (size_t l = 0; l < kernel_.loops.size(); ++l) {
      if (inner_[l].extents.empty()) continue;
      for (ValueRef ref : loop_accesses_[l]) {
        if (inner_[l].strides[inner_index(ref)].back() == "1LL") {
          ++along_loop;
        } else if (outer_.strides[access_index(ref)].back() == "1LL") {
          ++along_outer;
        }
      }
    }
    column_ = along_outer > along_loop;
    // Accumulators and kept values of a block stay in the L1 cache.
    size_t bytes = 1;
    for (size_t l = 0; l < kernel_.loops.size(); ++l) {
      for (ValueRef r : reduces_of(static_cast<int>(l))) bytes += 2 * sdk::element_size(kernel_.at(r).dtype);
    }
    for (int64_t k : crosses_) {
      bytes +=
          sdk::element_size(kernel_.at(ValueRef{static_cast<int>(k >> 32), static_cast<int>(k & 0xffffffff)}).dtype);
    }
    column_block_ = std::clamp<int64_t>(static_cast<int64_t>(kColumnBytes / bytes) / 16 * 16, 16, kMostColumnBlock);
  }

  std::string point_stride(ValueRef ref) const {
    const std::vector<std::string>& strides = outer_.strides[access_index(ref)];
    return strides.empty() ? "0LL" : strides.back();
  }

  // The blocks of a run of `n` outer points (Note [Column blocks]).
  void emit_column_blocks(Code& c, const std::string& n, const std::vector<ValueRef>& all) {
    const std::string block = std::to_string(column_block_);
    c.open("for (int64_t ek_j0 = 0; ek_j0 < " + n + "; ek_j0 += " + block + ")");
    c.line("const int64_t ek_nb = ek_min(" + block + ", " + n + " - ek_j0);");
    for (ValueRef ref : all) {
      c.line("const int64_t pb_" + value_name(ref) + " = " +
             index_code("ob_" + value_name(ref), point_stride(ref), "ek_j0") + ";");
    }
    for (int64_t k : crosses_) {
      const ValueRef ref{static_cast<int>(k >> 32), static_cast<int>(k & 0xffffffff)};
      c.line(std::string(compute_type(kernel_.at(ref).dtype)) + " ek_xs_" + value_name(ref) + "[" + block + "];");
    }
    for (size_t l = 0; l < kernel_.loops.size(); ++l) {
      const int loop = static_cast<int>(l);
      if (!inner_[l].extents.empty()) {
        emit_column_loop(c, loop);
        continue;
      }
      c.open("for (int64_t ek_p = 0; ek_p < ek_nb; ++ek_p)");
      emit_element(
          c, loop, [&](ValueRef ref) { return index_code("pb_" + value_name(ref), point_stride(ref), "ek_p"); }, "",
          "");
      c.close();
    }
    c.close();
  }

  void emit_column_loop(Code& c, int l) {
    const std::string prefix = "l" + std::to_string(l) + "_";
    const IterationSpace& space = inner_[l];
    const std::vector<ValueRef> reduces = reduces_of(l);
    const std::string block = std::to_string(column_block_);
    c.open("");
    std::string flush;
    for (ValueRef r : reduces) {
      const Instruction& ins = kernel_.at(r);
      const std::string type = compute_type(ins.dtype);
      const std::string n = value_name(r);
      const std::string identity = reduce_identity(kCpp, ins.kind, ins.dtype);
      c.line(type + " ek_total_" + n + "[" + block + "], ek_block_" + n + "[" + block + "];");
      c.line("for (int64_t ek_p = 0; ek_p < ek_nb; ++ek_p) ek_total_" + n + "[ek_p] = ek_block_" + n +
             "[ek_p] = " + identity + ";");
      flush += "for (int64_t ek_p = 0; ek_p < ek_nb; ++ek_p) { ek_total_" + n + "[ek_p] = " +
               reduce_combine(kCpp, ins.kind, ins.dtype, "ek_total_" + n + "[ek_p]", "ek_block_" + n + "[ek_p]", req_) +
               "; ek_block_" + n + "[ek_p] = " + identity + "; } ";
    }
    if (!reduces.empty()) c.line("int64_t ek_rows = 0;");
    std::vector<std::string> in, out;
    for (ValueRef ref : loop_accesses_[l]) {
      in.push_back("pb_" + value_name(ref));
      out.push_back(prefix + "b_" + value_name(ref));
    }
    const std::string j = prefix + "j";
    emit_walk(c, prefix, space, in, out, "0", prefix + "points", [&](const std::string& n) {
      c.open("for (int64_t " + j + " = 0; " + j + " < " + n + "; ++" + j + ")");
      c.open("for (int64_t ek_p = 0; ek_p < ek_nb; ++ek_p)");
      emit_element(
          c, l,
          [&](ValueRef ref) {
            const std::string row =
                index_code(prefix + "b_" + value_name(ref), space.strides[inner_index(ref)].back(), j);
            return index_code(row, point_stride(ref), "ek_p");
          },
          "ek_p", "ek_block_");
      c.close();
      if (!reduces.empty()) {
        c.line("if (++ek_rows == " + std::to_string(kColumnRows) + ") { " + flush + "ek_rows = 0; }");
      }
      c.close();
    });
    for (ValueRef r : reduces) {
      if (crosses_.count(key(r)) == 0) continue;
      const Instruction& ins = kernel_.at(r);
      const std::string n = value_name(r);
      std::string result =
          reduce_combine(kCpp, ins.kind, ins.dtype, "ek_total_" + n + "[ek_p]", "ek_block_" + n + "[ek_p]", req_);
      if (is_reduced_float(ins.dtype)) result = kCpp.round_to_dtype(ins.dtype, result, req_);
      c.line("for (int64_t ek_p = 0; ek_p < ek_nb; ++ek_p) ek_xs_" + n + "[ek_p] = " + result + ";");
    }
    c.close();
  }

  // ek_points: outer points [ek_lo, ek_hi), each running every loop.
  void emit_points_function(Code& c) {
    c.open("static unsigned ek_points(" + buffer_parameters() +
           "const int64_t* __restrict ek_params, const ek_parallel* ek_pool, int64_t ek_lo, int64_t ek_hi, "
           "bool ek_split)");
    c.line("(void)ek_params;");
    c.line("(void)ek_pool;");
    c.line("(void)ek_split;");
    c.line("unsigned fault = 0;");
    emit_extents(c);
    std::vector<std::string> in, out;
    std::vector<ValueRef> all;
    for (const std::vector<ValueRef>& list : loop_accesses_) all.insert(all.end(), list.begin(), list.end());
    for (ValueRef ref : all) {
      in.push_back(term_code(kernel_.at(ref).offset));
      out.push_back("ob_" + value_name(ref));
    }
    if (column_) {
      emit_walk(c, "o_", outer_, in, out, "ek_lo", "ek_hi",
                [&](const std::string& n) { emit_column_blocks(c, n, all); });
      c.line("return fault;");
      c.close();
      return;
    }
    const std::string j = "o_j";
    emit_walk(c, "o_", outer_, in, out, "ek_lo", "ek_hi", [&](const std::string& n) {
      c.open("for (int64_t " + j + " = 0; " + j + " < " + n + "; ++" + j + ")");
      auto point_index = [&](ValueRef ref) {
        const std::vector<std::string>& strides = outer_.strides[access_index(ref)];
        return index_code("ob_" + value_name(ref), strides.empty() ? "0LL" : strides.back(), j);
      };
      if (pointwise_) {
        for (size_t l = 0; l < kernel_.loops.size(); ++l) emit_element(c, static_cast<int>(l), point_index, "", "");
      } else {
        for (ValueRef ref : all) c.line("const int64_t pb_" + value_name(ref) + " = " + point_index(ref) + ";");
        for (int64_t k : row_kept_) {
          const ValueRef ref{static_cast<int>(k >> 32), static_cast<int>(k & 0xffffffff)};
          c.line("alignas(64) " + std::string(compute_type(kernel_.at(ref).dtype)) + " ek_row_" + value_name(ref) +
                 "[" + std::to_string(*static_points(ref.loop)) + "];");
        }
        for (size_t l = 0; l < kernel_.loops.size(); ++l) {
          const int loop = static_cast<int>(l);
          if (inner_[l].extents.empty()) {
            emit_element(
                c, loop, [](ValueRef ref) { return "pb_" + value_name(ref); }, "", "");
          } else {
            emit_inner_loop(c, loop);
          }
        }
      }
      c.close();
    });
    c.line("return fault;");
    c.close();
  }

  void emit_entry(Code& c) {
    const std::string symbol = symbol_for(kernel_.name);
    c.open("extern \"C\" __attribute__((visibility(\"default\"))) unsigned " + symbol +
           "(void* const* ek_buffers, const int64_t* ek_params, const ek_parallel* ek_pool)");
    for (size_t b = 0; b < kernel_.buffers.size(); ++b) {
      const Buffer& buffer = kernel_.buffers[b];
      const std::string type =
          std::string(buffer.role == BufferRole::input ? "const " : "") + storage_type(buffer.dtype);
      c.line(type + "* const b" + std::to_string(b) + " = static_cast<" + type + "*>(ek_buffers[" + std::to_string(b) +
             "]);");
    }
    emit_extents(c);
    c.line("if (o_points == 0) return 0;");
    std::string point_work = "1";
    std::string longest = "0";
    for (size_t l = 0; l < inner_.size(); ++l) {
      if (inner_[l].extents.empty()) continue;
      const std::string points = "l" + std::to_string(l) + "_points";
      point_work += " + " + points;
      // Nested calls, not conditionals naming `longest` twice: those double
      // the text with every loop (a combo of 24 loops wrote 500 MB).
      longest = "ek_max(" + points + ", " + longest + ")";
    }
    c.line("const int64_t ek_point_work = " + point_work + ";");
    if (column_) {
      // Blocks of a few per thread: the results do not depend on the split.
      const std::string block = std::to_string(column_block_);
      c.line("const bool ek_split = false;");
      c.line("const int64_t ek_share = (o_points + 4 * ek_pool->threads - 1) / (4 * ek_pool->threads);");
      c.line("const int64_t ek_per_task = ek_share >= " + block + " ? " + block + " : (ek_share + 15) / 16 * 16;");
    } else {
      c.line("const bool ek_split = o_points < " + std::to_string(kSplitBelowPoints) + " && " + longest +
             " >= " + std::to_string(2 * kReduceGrain) + ";");
      c.line("const int64_t ek_per_task = ek_point_work >= " + std::to_string(kTaskWork) +
             " ? 1 : " + std::to_string(kTaskWork) + " / ek_point_work;");
    }
    c.line("const int64_t ek_tasks = (o_points + ek_per_task - 1) / ek_per_task;");
    c.line("unsigned fault = 0;");
    c.open("if (!ek_split && ek_tasks > 1 && o_points * ek_point_work >= " + std::to_string(kParallelWork) + ")");
    c.open("const auto ek_tasks_from = [&](int64_t ek_t0, int64_t ek_t1)");
    c.line("ek_merge_fault(fault, ek_points(" + buffer_arguments() +
           "ek_params, ek_pool, ek_t0 * ek_per_task, ek_min(ek_t1 * ek_per_task, o_points), false));");
    c.close("};");
    c.line("ek_parallel_for(ek_pool, ek_tasks, ek_tasks_from);");
    c.close();
    c.open("else");
    c.line("fault = ek_points(" + buffer_arguments() + "ek_params, ek_pool, 0, o_points, ek_split);");
    c.close();
    c.line("return fault;");
    c.close();
  }

  const Kernel& kernel_;
  const std::set<std::string>& simd_functions_;
  Requirements req_;
  IterationSpace outer_;                              // strides per access, in kernel order
  std::vector<IterationSpace> inner_;                 // per loop, strides per access of the loop
  std::vector<std::vector<ValueRef>> loop_accesses_;  // per loop, its loads and stores
  std::map<int64_t, int> access_of_;                  // key(ref) -> position in the outer space
  std::map<int64_t, int> inner_of_;                   // key(ref) -> position in its loop's space
  bool pointwise_ = true;
  bool column_ = false;        // Note [Column blocks]
  int64_t column_block_ = 0;   // outer points per block
  std::set<int64_t> crosses_;  // key(ref) of values later loops use
  // For Note [Row reuse]: key(ref) of a later loop's value -> the earlier
  // loop's value it reads from a row buffer; key(ref) of the values kept in
  // row buffers; key(ref) of instructions that only fed reused values; and
  // the flat position in its loop of the element being emitted.
  std::map<int64_t, ValueRef> reuse_;
  std::set<int64_t> row_kept_;
  std::set<int64_t> left_out_;
  std::string row_position_;
};

}  // namespace

CppSource generate_cpp_source(const Kernel& kernel, const std::set<std::string>& simd_functions) {
  return Generator(kernel, simd_functions).generate();
}

}  // namespace ember::cpu_codegen
