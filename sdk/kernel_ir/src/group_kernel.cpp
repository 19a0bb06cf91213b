#include <ember/kernel_ir/group_kernel.h>
#include <ember/kernel_ir/iteration_space.h>

#include <functional>

#include <ember/sdk/status.hpp>

// Note [Group kernels]: a kernel whose loops all have extents [] (pointwise)
// runs one thread per outer point. Any other runs one group of kGroupSize
// threads per outer point: every thread computes the loops without extents
// (their stores are written by thread 0 alone), and in a loop with extents
// thread w takes the elements w, w + kGroupSize, ... in order,
// accumulating each reduce in its own registers; the group's partial
// results are then combined in shared memory by a tree of halving strides. Both orders depend on the
// extents alone, so every kernel is deterministic in the sense of the
// `deterministic` hint. A fault (an integer division by zero, an integer
// to a negative power) yields 0 for its element and is or-ed into a fault
// word the launch reads back and reports.
//
// Note [Vector pointwise kernels]
// A driver that runs work-items on CPU cores (PoCL) vectorises a kernel
// across work-items only where it can see through every call: its sin and
// cos are opaque, so a scalar sin(cos(x)) ran one element at a time, 17
// times slower than the same chain on float8 values. So a dialect may ask
// for a vector width W: a pointwise kernel whose every value is float32,
// whose every op has a lane-wise form in the language (arithmetic, the math
// functions, maximum and minimum; not comparisons, where, casts or
// integers) and whose every access walks the innermost dimension with
// stride 1 (a load may also have stride 0, a value repeated) has each
// thread compute W neighbouring points. Where the thread's W points lie in
// one row of the innermost dimension it loads, computes and stores them as
// vectors; at a row's end or the last points it walks them one by one, as
// the scalar kernel does. The values are the language's lane-wise
// functions, within the same error bounds as the scalar ones.

namespace ember::kernel_ir {
namespace {

class Code {
 public:
  void line(const std::string& text) { text_ += std::string(2 * depth_, ' ') + text + "\n"; }
  void open(const std::string& head) {
    line(head + " {");
    ++depth_;
  }
  void close() {
    --depth_;
    line("}");
  }
  std::string take() { return std::move(text_); }

 private:
  std::string text_;
  int depth_ = 0;
};

std::string value_name(ValueRef ref) { return "v" + std::to_string(ref.loop) + "_" + std::to_string(ref.index); }

bool can_fault(const Instruction& ins, ember_dtype operand) {
  const bool integer_op = ins.op == Op::floor_divide || ins.op == Op::remainder || ins.op == Op::pow;
  return integer_op && is_integer(operand);
}

class Generator {
 public:
  Generator(const Kernel& kernel, const GroupDialect& dialect) : kernel_ir_(kernel), d_(dialect) {
    std::vector<std::vector<Term>> outer_strides;
    inner_.resize(kernel.loops.size());
    accesses_.resize(kernel.loops.size());
    for (size_t l = 0; l < kernel.loops.size(); ++l) {
      std::vector<std::vector<Term>> inner_strides;
      for (size_t i = 0; i < kernel.loops[l].body.size(); ++i) {
        const Instruction& ins = kernel.loops[l].body[i];
        for (ValueRef arg : ins.args) kernel_.uses_fp64 |= kernel.at(arg).dtype == EMBER_DTYPE_FLOAT64;
        kernel_.uses_fp64 |= ins.dtype == EMBER_DTYPE_FLOAT64;
        if (!ins.args.empty()) kernel_.can_fault |= can_fault(ins, kernel.at(ins.args[0]).dtype);
        if (ins.op != Op::load && ins.op != Op::store) continue;
        accesses_[l].push_back({static_cast<int>(l), static_cast<int>(i)});
        const auto split = ins.strides.begin() + static_cast<std::ptrdiff_t>(kernel.outer.size());
        outer_strides.emplace_back(ins.strides.begin(), split);
        inner_strides.emplace_back(split, ins.strides.end());
      }
      inner_[l] = simplify_space(kernel.loops[l].extents, inner_strides);
      kernel_.group_per_point |= !inner_[l].extents.empty();
    }
    outer_ = simplify_space(kernel.outer, outer_strides);
    const int width = dialect.pointwise_vector_width();
    if (width > 1 && !kernel_.group_per_point && !kernel_.can_fault && !outer_.extents.empty() && lane_wise()) {
      kernel_.points_per_thread = width;
    }
  }

  GroupKernel generate() {
    Code c;
    emit_kernel(c);
    kernel_.text = "// EKIR kernel '" + kernel_ir_.name + "'\n" + c.take();
    return kernel_;
  }

 private:
  void emit_kernel(Code& c) {
    std::string params;
    for (size_t b = 0; b < kernel_ir_.buffers.size(); ++b) {
      const Buffer& buffer = kernel_ir_.buffers[b];
      const std::string n = std::to_string(b);
      params += d_.buffer_parameter(d_.storage_type(buffer.dtype), buffer.role == BufferRole::input, "b" + n) +
                ", const long ek_o" + n + ", ";
    }
    for (int64_t k = 0; k < kernel_ir_.params; ++k) params += "const long p" + std::to_string(k) + ", ";
    if (kernel_.can_fault) params += d_.fault_parameter("ek_fault_word") + ", ";
    params.resize(params.size() - 2);
    c.open(d_.kernel_head(params));
    if (kernel_.group_per_point) declare_scratch(c);
    const int width = kernel_.points_per_thread;
    std::string first_point = kernel_.group_per_point ? d_.group_index() : d_.global_index();
    if (width > 1) first_point += " * " + std::to_string(width);
    c.line("const long ek_point = " + first_point + ";");
    c.line("const int ek_lid = " + d_.local_index() + ";");
    c.line("(void)ek_lid;");
    c.line("const long o_points = " + declare_space(c, "o_", outer_) + ";");
    for (size_t l = 0; l < inner_.size(); ++l) {
      if (inner_[l].extents.empty()) continue;
      const std::string prefix = "l" + std::to_string(l) + "_";
      c.line("const long " + prefix + "points = " + declare_space(c, prefix, inner_[l]) + ";");
    }
    if (!kernel_.group_per_point) c.line("if (ek_point >= o_points) return;");
    c.line("unsigned int fault = 0;");
    // Each access's element at this outer point.
    std::vector<std::string> bases;
    for (const std::vector<ValueRef>& loop : accesses_) {
      for (ValueRef ref : loop) {
        const Instruction& ins = kernel_ir_.at(ref);
        bases.push_back("ek_o" + std::to_string(ins.buffer) + " + " + term_code(ins.offset));
      }
    }
    emit_position(c, "o_", outer_, "ek_point", bases, "ob_");
    if (width > 1) {
      emit_vector_points(c, bases);
      c.close();
      return;
    }
    for (size_t l = 0; l < kernel_ir_.loops.size(); ++l) {
      const int loop = static_cast<int>(l);
      if (inner_[l].extents.empty()) {
        emit_element(
            c, loop, [](ValueRef ref) { return "ob_" + value_name(ref); }, kernel_.group_per_point);
      } else {
        emit_group_loop(c, loop);
      }
    }
    if (kernel_.can_fault) c.line("if (fault != 0) " + d_.atomic_or("ek_fault_word", "fault"));
    c.close();
  }

  // Whether every value is float32 and every op and access has a lane-wise
  // form (Note [Vector pointwise kernels]).
  bool lane_wise() const {
    for (size_t l = 0; l < kernel_ir_.loops.size(); ++l) {
      for (size_t i = 0; i < kernel_ir_.loops[l].body.size(); ++i) {
        const Instruction& ins = kernel_ir_.loops[l].body[i];
        if (ins.dtype != EMBER_DTYPE_FLOAT32 || !has_lane_wise_form(ins.op)) return false;
        for (ValueRef arg : ins.args) {
          if (kernel_ir_.at(arg).dtype != EMBER_DTYPE_FLOAT32) return false;
        }
        if (ins.op != Op::load && ins.op != Op::store) continue;
        const std::string& stride = innermost_stride({static_cast<int>(l), static_cast<int>(i)});
        if (stride != "1LL" && !(ins.op == Op::load && stride == "0LL")) return false;
      }
    }
    return true;
  }

  static bool has_lane_wise_form(Op op) {
    if (is_math_function(op)) return true;
    switch (op) {
      case Op::load:
      case Op::store:
      case Op::constant:
      case Op::neg:
      case Op::abs:
      case Op::sqrt:
      case Op::rsqrt:
      case Op::reciprocal:
      case Op::floor:
      case Op::ceil:
      case Op::trunc:
      case Op::round:
      case Op::add:
      case Op::sub:
      case Op::mul:
      case Op::div:
      case Op::maximum:
      case Op::minimum:
        return true;
      default:
        return false;
    }
  }

  // An access's stride along the outer space's innermost dimension.
  const std::string& innermost_stride(ValueRef access) const {
    size_t ordinal = 0;
    for (const std::vector<ValueRef>& loop : accesses_) {
      for (ValueRef ref : loop) {
        if (ref.loop == access.loop && ref.index == access.index) return outer_.strides[ordinal].back();
        ++ordinal;
      }
    }
    sdk::fail(EMBER_STATUS_INTERNAL, "innermost_stride of an instruction that is no access");
  }

  // The thread's points from ek_point on, as vectors where they share a
  // row, else one by one.
  void emit_vector_points(Code& c, const std::vector<std::string>& bases) {
    const std::string width = std::to_string(kernel_.points_per_thread);
    const std::string innermost = std::to_string(outer_.extents.size() - 1);
    c.open("if (o_i" + innermost + " + " + width + " <= o_e" + innermost + ")");
    for (size_t l = 0; l < kernel_ir_.loops.size(); ++l) emit_vector_element(c, static_cast<int>(l));
    c.close();
    c.open("else");
    c.open("for (long ek_next = ek_point; ek_next < ek_point + " + width + " && ek_next < o_points; ++ek_next)");
    emit_position(c, "o_", outer_, "ek_next", bases, "ob_");
    for (size_t l = 0; l < kernel_ir_.loops.size(); ++l) {
      emit_element(
          c, static_cast<int>(l), [](ValueRef ref) { return "ob_" + value_name(ref); }, false);
    }
    c.close();
    c.close();
  }

  // The instructions of loop `l` for the thread's points as vectors.
  void emit_vector_element(Code& c, int l) {
    const Loop& loop = kernel_ir_.loops[l];
    const std::string type = d_.vector_type();
    for (size_t i = 0; i < loop.body.size(); ++i) {
      const ValueRef ref{l, static_cast<int>(i)};
      const Instruction& ins = loop.body[i];
      const std::string name = value_name(ref);
      const std::string buffer = "b" + std::to_string(ins.buffer);
      const std::string index = "ob_" + name;
      switch (ins.op) {
        case Op::load: {
          const bool repeated = innermost_stride(ref) == "0LL";
          const std::string value = repeated ? d_.vector_splat(d_.load(ins.dtype, buffer, index, req_))
                                             : d_.vector_load(buffer, index);
          c.line("const " + type + " " + name + " = " + value + ";");
          break;
        }
        case Op::store:
          c.line(d_.vector_store(buffer, index, value_name(ins.args[0])));
          break;
        default: {
          std::vector<std::string> args;
          for (ValueRef arg : ins.args) args.push_back(value_name(arg));
          std::string value = op_expression(d_, ins, ins.dtype, args, "&fault", req_);
          if (ins.op == Op::constant) value = d_.vector_splat(value);
          c.line("const " + type + " " + name + " = " + value + ";");
        }
      }
    }
  }

  // Declares a space's extents as <prefix>e0, ...; returns their product.
  static std::string declare_space(Code& c, const std::string& prefix, const IterationSpace& space) {
    std::string product = "1";
    for (size_t d = 0; d < space.extents.size(); ++d) {
      const std::string name = prefix + "e" + std::to_string(d);
      c.line("const long " + name + " = " + space.extents[d] + ";");
      product = d == 0 ? name : product + " * " + name;
    }
    return product;
  }

  // Defines <out><value name> for every access of `bases` (all accesses
  // of the kernel for the outer space, the loop's own otherwise), the element at
  // row-major position `position` of `space`, whose strides are per access.
  void emit_position(Code& c, const std::string& prefix, const IterationSpace& space, const std::string& position,
                     const std::vector<std::string>& bases, const std::string& out) {
    const size_t k = space.extents.size();
    if (k > 0) {
      c.line("long " + prefix + "rest = " + position + ";");
      for (size_t d = k; d-- > 0;) {
        const std::string idx = prefix + "i" + std::to_string(d);
        if (d == 0) {
          c.line("const long " + idx + " = " + prefix + "rest;");
        } else {
          c.line("const long " + idx + " = " + prefix + "rest % " + prefix + "e" + std::to_string(d) + ";");
          c.line(prefix + "rest /= " + prefix + "e" + std::to_string(d) + ";");
        }
      }
    }
    const bool outer = prefix == "o_";
    std::vector<ValueRef> refs;
    for (const std::vector<ValueRef>& loop : accesses_) refs.insert(refs.end(), loop.begin(), loop.end());
    for (size_t a = 0; a < bases.size(); ++a) {
      std::string index = bases[a];
      const std::vector<std::string>& strides = space.strides[a];
      for (size_t d = 0; d < k; ++d) {
        if (strides[d] != "0LL") index += " + " + strides[d] + " * " + prefix + "i" + std::to_string(d);
      }
      const ValueRef ref = outer ? refs[a] : current_loop_accesses_[a];
      c.line("const long " + out + value_name(ref) + " = " + index + ";");
    }
  }

  // The instructions of loop `l` for one element. In a loop over extents a
  // reduce accumulates into ek_acc_<name>; with `guard_stores`, stores are
  // written by work-item 0 only.
  void emit_element(Code& c, int l, const std::function<std::string(ValueRef)>& index, bool guard_stores,
                    bool accumulate = false) {
    const Loop& loop = kernel_ir_.loops[l];
    for (size_t i = 0; i < loop.body.size(); ++i) {
      const ValueRef ref{l, static_cast<int>(i)};
      const Instruction& ins = loop.body[i];
      const std::string type = d_.compute_type(ins.dtype);
      const std::string name = value_name(ref);
      const std::string buffer = "b" + std::to_string(ins.buffer);
      switch (ins.op) {
        case Op::load:
          c.line("const " + type + " " + name + " = " + d_.load(ins.dtype, buffer, index(ref), req_) + ";");
          break;
        case Op::store: {
          const std::string store = d_.store(ins.dtype, buffer, index(ref), value_name(ins.args[0]), req_);
          c.line(guard_stores ? "if (ek_lid == 0) " + store : store);
          break;
        }
        case Op::reduce:
          if (accumulate) {
            const std::string acc = "ek_acc_" + name;
            c.line(acc + " = " + reduce_combine(d_, ins.kind, ins.dtype, acc, value_name(ins.args[0]), req_) + ";");
          } else {
            std::string value = reduce_combine(d_, ins.kind, ins.dtype, reduce_identity(d_, ins.kind, ins.dtype),
                                               value_name(ins.args[0]), req_);
            if (is_reduced_float(ins.dtype)) value = d_.round_to_dtype(ins.dtype, value, req_);
            c.line("const " + type + " " + name + " = " + value + ";");
          }
          break;
        default: {
          std::vector<std::string> args;
          for (ValueRef arg : ins.args) args.push_back(value_name(arg));
          const bool own_dtype = ins.args.empty() || ins.op == Op::where;
          const ember_dtype operand = own_dtype ? ins.dtype : kernel_ir_.at(ins.args[0]).dtype;
          c.line("const " + type + " " + name + " = " + op_expression(d_, ins, operand, args, "&fault", req_) + ";");
        }
      }
    }
  }

  std::vector<ValueRef> reduces_of(int l) const {
    std::vector<ValueRef> reduces;
    for (size_t i = 0; i < kernel_ir_.loops[l].body.size(); ++i) {
      if (kernel_ir_.loops[l].body[i].op == Op::reduce) reduces.push_back({l, static_cast<int>(i)});
    }
    return reduces;
  }

  // bool has no place in OpenCL's local memory: its partials are stored
  // as bool's storage type there.
  std::string scratch_type(ember_dtype dtype) const {
    return dtype == EMBER_DTYPE_BOOL ? d_.storage_type(dtype) : d_.compute_type(dtype);
  }

  // OpenCL 1.2 declares local memory at the kernel's outermost scope.
  void declare_scratch(Code& c) const {
    for (size_t l = 0; l < kernel_ir_.loops.size(); ++l) {
      if (inner_[l].extents.empty()) continue;
      for (ValueRef r : reduces_of(static_cast<int>(l))) {
        c.line(d_.shared_array(scratch_type(kernel_ir_.at(r).dtype), "ek_scratch_" + value_name(r), kGroupSize));
      }
    }
  }

  // A loop over extents at one outer point, split across the work-group.
  void emit_group_loop(Code& c, int l) {
    const std::string prefix = "l" + std::to_string(l) + "_";
    const std::string group = std::to_string(kGroupSize);
    const std::vector<ValueRef> reduces = reduces_of(l);
    for (ValueRef r : reduces) {
      const Instruction& ins = kernel_ir_.at(r);
      c.line(std::string(d_.compute_type(ins.dtype)) + " ek_acc_" + value_name(r) + " = " +
             reduce_identity(d_, ins.kind, ins.dtype) + ";");
    }
    c.open("for (long ek_j = ek_lid; ek_j < " + prefix + "points; ek_j += " + group + ")");
    current_loop_accesses_ = accesses_[l];
    std::vector<std::string> bases;
    for (ValueRef ref : accesses_[l]) bases.push_back("ob_" + value_name(ref));
    emit_position(c, prefix, inner_[l], "ek_j", bases, "lb_");
    emit_element(
        c, l, [](ValueRef ref) { return "lb_" + value_name(ref); }, false, true);
    c.close();
    for (ValueRef r : reduces) {
      const Instruction& ins = kernel_ir_.at(r);
      const std::string n = value_name(r);
      const std::string scratch = "ek_scratch_" + n;
      c.line(scratch + "[ek_lid] = ek_acc_" + n + ";");
      c.line(d_.barrier());
      c.open("for (int ek_s = " + std::to_string(kGroupSize / 2) + "; ek_s > 0; ek_s >>= 1)");
      c.line("if (ek_lid < ek_s) " + scratch + "[ek_lid] = " +
             reduce_combine(d_, ins.kind, ins.dtype, scratch + "[ek_lid]", scratch + "[ek_lid + ek_s]", req_) + ";");
      c.line(d_.barrier());
      c.close();
      std::string result = scratch + "[0]";
      if (ins.dtype == EMBER_DTYPE_BOOL) result = "(" + result + " != 0)";
      if (is_reduced_float(ins.dtype)) result = d_.round_to_dtype(ins.dtype, result, req_);
      c.line("const " + std::string(d_.compute_type(ins.dtype)) + " " + n + " = " + result + ";");
    }
  }

  const Kernel& kernel_ir_;
  const GroupDialect& d_;
  GroupKernel kernel_;
  Requirements req_;
  IterationSpace outer_;
  std::vector<IterationSpace> inner_;
  std::vector<std::vector<ValueRef>> accesses_;  // per loop, its loads and stores
  std::vector<ValueRef> current_loop_accesses_;
};

}  // namespace

GroupKernel generate_group_kernel(const Kernel& kernel, const GroupDialect& dialect) {
  return Generator(kernel, dialect).generate();
}

int64_t groups_to_launch(const GroupKernel& kernel, int64_t points) {
  if (kernel.group_per_point) return points;
  const int64_t threads = (points + kernel.points_per_thread - 1) / kernel.points_per_thread;
  return (threads + kGroupSize - 1) / kGroupSize;
}

}  // namespace ember::kernel_ir
