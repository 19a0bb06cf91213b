// Grouping of roots into kernels and their EKIR (Note [Fusion];
// sdk/docs/kernel-ir.md).
#include "compile/fusion.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "dispatch/op_id.h"

namespace ember::compile {

using dispatch::OpId;
using Json = nlohmann::ordered_json;

namespace {

// erfinv, lgamma and digamma have no EKIR op (C math lacks the first two;
// glibc's lgamma writes a global): they run as extern kernels between fused
// ones.
bool has_ekir_op(OpId id) { return id != OpId::Erfinv && id != OpId::Lgamma && id != OpId::Digamma; }

bool is_pointwise_op(OpId id) {
  return ((id >= OpId::Neg && id <= OpId::LogicalNot) || (id >= OpId::Add && id <= OpId::Where)) && has_ekir_op(id);
}

bool is_reduction_op(OpId id) {
  return id == OpId::Sum || id == OpId::Prod || id == OpId::Mean || id == OpId::Amax || id == OpId::Amin;
}

OpId id_of(const Node& node) { return static_cast<OpId>(node.op); }

}  // namespace

NodeKind node_kind(const Graph& graph, const Node& node) {
  const OpId id = id_of(node);
  if (graph.op_of(node).schema().is_view()) return NodeKind::View;
  if (is_pointwise_op(id)) return NodeKind::Pointwise;
  if ((id == OpId::Copy || id == OpId::Fill) && node.writes_output) return NodeKind::Pointwise;
  if (is_reduction_op(id)) return NodeKind::Reduction;
  return NodeKind::Extern;
}

namespace {

// The dims a reduction node reduces (its "dims" attribute; empty: all).
std::vector<int64_t> reduced_dims(const Graph& graph, const Node& node) {
  const Value& x = graph.values[static_cast<size_t>(node.inputs[0])];
  const Attribute* dims = node.find("dims");
  std::vector<int64_t> out;
  if (dims == nullptr || dims->ints.empty()) {
    for (size_t d = 0; d < x.sizes.size(); ++d) out.push_back(static_cast<int64_t>(d));
  } else {
    out = dims->ints;
    std::sort(out.begin(), out.end());
  }
  return out;
}

DimVector squeezed(const DimVector& sizes) {
  DimVector out;
  for (int64_t s : sizes) {
    if (s != 1) out.push_back(s);
  }
  return out;
}

// The strides of `v` over an iteration space whose shape equals v's up to
// dims of size 1 (a reduction's keepdim result read as a 0-d value, say);
// dims of size 1 in the space get stride 0 (they index nothing). Empty
// when they do not align.
std::optional<DimVector> aligned_strides(const Value& v, const DimVector& space) {
  DimVector out(space.size(), 0);
  if (v.sizes == space) {
    for (size_t i = 0; i < space.size(); ++i) out[i] = space[i] == 1 ? 0 : v.strides[i];
    return out;
  }
  size_t j = 0;
  for (size_t i = 0; i < space.size(); ++i) {
    if (space[i] == 1) continue;
    while (j < v.sizes.size() && v.sizes[j] == 1) ++j;
    if (j >= v.sizes.size() || v.sizes[j] != space[i]) return std::nullopt;
    out[i] = v.strides[j++];
  }
  while (j < v.sizes.size() && v.sizes[j] == 1) ++j;
  if (j != v.sizes.size()) return std::nullopt;
  return out;
}

// One kernel being formed.
struct Group {
  bool reduction = false;
  DimVector shape;               // the iteration space, in the roots' own dims
  std::vector<int64_t> reduced;  // reduction groups: the reduced dims
  std::vector<int> roots;        // in order
  bool closed = false;

  // The shape of the group's reduced values (size 1 on reduced dims).
  DimVector reduced_shape() const {
    DimVector out = shape;
    for (int64_t d : reduced) out[static_cast<size_t>(d)] = 1;
    return out;
  }
};

class Fuser {
 public:
  Fuser(const Graph& graph, const PlanOptions& options) : g_(graph), options_(options) {
    kinds_.reserve(g_.nodes.size());
    for (const Node& n : g_.nodes) kinds_.push_back(node_kind(g_, n));
  }

  Fusion run() {
    mark_materialized();
    form_groups();
    Fusion fusion;
    fusion.materialized = materialized_;
    for (size_t i = 0; i < groups_.size(); ++i) fusion.kernels.push_back(emit(static_cast<int>(i)));
    return fusion;
  }

 private:
  const Value& value(int id) const { return g_.values[static_cast<size_t>(id)]; }
  const Node* producer(int id) const {
    const Value& v = value(id);
    return v.origin == ValueOrigin::Node ? &g_.nodes[static_cast<size_t>(v.producer)] : nullptr;
  }
  NodeKind kind_of_value(int id) const {
    const Value& v = value(id);
    return v.origin == ValueOrigin::Node ? kinds_[static_cast<size_t>(v.producer)] : NodeKind::Extern;
  }
  int root_of(int id) const { return value(id).storage_of; }

  void mark_materialized() {
    materialized_.assign(g_.values.size(), false);
    for (size_t id = 0; id < g_.values.size(); ++id) {
      const Value& v = g_.values[id];
      if (v.origin == ValueOrigin::Input) materialized_[id] = true;
    }
    for (size_t n = 0; n < g_.nodes.size(); ++n) {
      const Node& node = g_.nodes[n];
      const NodeKind kind = kinds_[n];
      if (kind == NodeKind::Extern) {
        for (int out : node.outputs) materialized_[static_cast<size_t>(out)] = true;
        for (int in : node.inputs) materialized_[static_cast<size_t>(root_of(in))] = true;
      } else if (kind == NodeKind::Reduction) {
        for (int out : node.outputs) materialized_[static_cast<size_t>(out)] = true;
      } else if (kind == NodeKind::View) {
        materialized_[static_cast<size_t>(root_of(node.inputs[0]))] = true;
      }
    }
    for (int out : g_.outputs) materialized_[static_cast<size_t>(root_of(out))] = true;
    // Constants fold into kernels; they are never buffers.
    for (size_t id = 0; id < g_.values.size(); ++id) {
      if (g_.values[id].origin == ValueOrigin::Constant) materialized_[id] = false;
    }
  }

  bool is_root(int id) const {
    const Value& v = value(id);
    if (v.origin != ValueOrigin::Node || !materialized_[static_cast<size_t>(id)]) return false;
    const NodeKind k = kinds_[static_cast<size_t>(v.producer)];
    return k == NodeKind::Pointwise || k == NodeKind::Reduction;
  }

  // Does view value `v` (shape `shape`) read reduction root `r` broadcast
  // back over the reduced dims, index for index on the others?
  bool reads_broadcast(const Group& group, int v, int r) const {
    const Value& view = value(v);
    const Value& root = value(r);
    const auto over_rows = aligned_strides(view, group.shape);
    const auto own = aligned_strides(root, group.reduced_shape());
    if (!over_rows || !own || view.storage_offset != root.storage_offset) return false;
    for (size_t d = 0; d < group.shape.size(); ++d) {
      const bool is_reduced =
          std::find(group.reduced.begin(), group.reduced.end(), static_cast<int64_t>(d)) != group.reduced.end();
      if (is_reduced ? (*over_rows)[d] != 0 && group.shape[d] != 1 : (*over_rows)[d] != (*own)[d]) return false;
    }
    return true;
  }

  // Does `v` read root `r` (of the reduced shape) at its own index?
  bool reads_reduced_in_place(const Group& group, int v, int r) const {
    const auto a = aligned_strides(value(v), group.reduced_shape());
    const auto b = aligned_strides(value(r), group.reduced_shape());
    return a && b && *a == *b && value(v).storage_offset == value(r).storage_offset;
  }

  // Walks the inlined expression of value `id`: every materialized value it
  // loads, with the value it loads through.
  void loads_of(int id, std::vector<std::pair<int, int>>& loads, std::set<int>& seen) const {
    if (!seen.insert(id).second) return;
    const Value& v = value(id);
    if (v.origin == ValueOrigin::Constant) return;
    if (v.origin == ValueOrigin::Input || kind_of_value(id) == NodeKind::View ||
        (materialized_[static_cast<size_t>(id)] && !seen_roots_.count(id))) {
      loads.emplace_back(root_of(id), id);
      return;
    }
    const Node* node = producer(id);
    for (int in : node->inputs) loads_of(in, loads, seen);
  }

  // The operand expressions of root `r` (a reduction reads its input).
  std::vector<int> operands(int r) const {
    const Node* node = producer(r);
    return node->inputs;
  }

  // A value of a reduction group at the reduced shape: a reduction, or a
  // pointwise epilogue over reductions.
  bool is_reduced_value(const Group& group, int root) const {
    return squeezed(value(root).sizes) == squeezed(group.reduced_shape()) &&
           std::find(group.roots.begin(), group.roots.end(), root) != group.roots.end();
  }

  bool can_join(const Group& group, int r) const {
    if (group.closed) return false;
    const Node* node = producer(r);
    const bool reduction = kinds_[static_cast<size_t>(value(r).producer)] == NodeKind::Reduction;
    const DimVector& shape = reduction ? value(node->inputs[0]).sizes : value(r).sizes;
    // A pointwise root over the reduced values is the kernel's epilogue.
    const bool epilogue = !reduction && group.reduction && squeezed(shape) == squeezed(group.reduced_shape()) &&
                          squeezed(shape) != squeezed(group.shape);
    if (shape != group.shape && !epilogue) return false;
    if (reduction && (!group.reduction || reduced_dims(g_, *node) != group.reduced)) return false;
    std::vector<std::pair<int, int>> loads;
    std::set<int> seen;
    seen_roots_ = {r};
    for (int in : node->inputs) loads_of(in, loads, seen);
    for (const auto& [root, through] : loads) {
      if (std::find(group.roots.begin(), group.roots.end(), root) == group.roots.end()) continue;
      if (!group.reduction) {
        // One point loop: a root of the group is read at the same index.
        const Value& t = value(through);
        if (t.strides != value(root).strides || t.storage_offset != value(root).storage_offset ||
            t.sizes != value(root).sizes) {
          return false;
        }
      } else if (epilogue) {
        // Reads the reduced values at their own index.
        if (!is_reduced_value(group, root) || !reads_reduced_in_place(group, through, root)) return false;
      } else if (!is_reduced_value(group, root) || !reads_broadcast(group, through, root)) {
        return false;
      }
    }
    return true;
  }

  void form_groups() {
    group_of_.assign(g_.values.size(), -1);
    for (size_t n = 0; n < g_.nodes.size(); ++n) {
      const Node& node = g_.nodes[n];
      // Whatever reads a group's values from outside closes it.
      if (kinds_[n] == NodeKind::Extern) {
        for (int in : node.inputs) close_group_of(root_of(in));
      }
      for (int out : node.outputs) {
        if (!is_root(out)) continue;
        int joined = -1;
        for (int gi = static_cast<int>(groups_.size()) - 1; gi >= 0 && joined < 0; --gi) {
          if (can_join(groups_[static_cast<size_t>(gi)], out)) joined = gi;
        }
        // Kernels read from before a root joins a later kernel are closed
        // for it: their values must exist when it runs.
        std::vector<std::pair<int, int>> loads;
        std::set<int> seen;
        seen_roots_ = {out};
        for (int in : operands(out)) loads_of(in, loads, seen);
        for (const auto& [root, through] : loads) {
          if (group_of_[static_cast<size_t>(root)] != joined) close_group_of(root);
        }
        if (joined < 0) {
          Group fresh;
          const bool reduction = kinds_[n] == NodeKind::Reduction;
          fresh.reduction = reduction;
          fresh.shape = reduction ? value(node.inputs[0]).sizes : value(out).sizes;
          if (reduction) fresh.reduced = reduced_dims(g_, node);
          groups_.push_back(std::move(fresh));
          joined = static_cast<int>(groups_.size()) - 1;
        }
        groups_[static_cast<size_t>(joined)].roots.push_back(out);
        group_of_[static_cast<size_t>(out)] = joined;
      }
    }
  }

  void close_group_of(int value_id) {
    const int gi = group_of_[static_cast<size_t>(value_id)];
    if (gi >= 0) groups_[static_cast<size_t>(gi)].closed = true;
  }

  // --- EKIR emission -------------------------------------------------------

  struct Emitter {
    Json body = Json::array();
    std::map<int, int> ssa;  // value id -> instruction id, in this loop
  };

  Json term(int64_t v, FusedKernel& k) const {
    if (!options_.dynamic || v == 0 || v == 1) return v;
    k.params.push_back(v);
    return "p" + std::to_string(k.params.size() - 1);
  }

  int buffer_index(int value_id, bool output, FusedKernel& k) const {
    for (size_t i = 0; i < k.buffers.size(); ++i) {
      if (k.buffers[i] == value_id) return static_cast<int>(i);
    }
    k.buffers.push_back(value_id);
    k.buffer_is_output.push_back(output);
    return static_cast<int>(k.buffers.size()) - 1;
  }

  static void use(std::vector<std::string>& list, const std::string& item) {
    if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
  }

  int add(Emitter& e, Json inst, FusedKernel& k) {
    const int id = next_id_++;
    Json full;
    full["id"] = id;
    for (auto& [key, val] : inst.items()) full[key] = val;
    use(k.ops, full["op"].get<std::string>());
    if (full.contains("dtype")) use(k.dtypes, full["dtype"].get<std::string>());
    e.body.push_back(std::move(full));
    return id;
  }

  Json strides_in_loop_order(const Value& v, FusedKernel& k) const {
    const auto strides = aligned_strides(v, space_);
    if (!strides) throw std::logic_error("fusion: a value does not align with its kernel's iteration space");
    Json s = Json::array();
    for (int64_t d : loop_dims_) s.push_back(term((*strides)[static_cast<size_t>(d)], k));
    return s;
  }

  // Note [Constants as parameters]
  // A dynamic variant traces again for every new integer argument (a
  // decoder's position), and the integer often reaches a kernel as a scalar
  // operand (`x + start`), where it would be a literal and each value would
  // compile a kernel. So in a dynamic plan, whose kernels already take
  // their sizes as launch parameters, an integer-valued constant that its
  // dtype holds exactly is a launch parameter as well (EKIR 1.2), and so is
  // the element count a mean divides by. 0 and 1 stay literals, as sizes
  // 0 and 1 stay specialized.
  bool as_parameter(double c, DType dtype) const {
    constexpr double kExactInFloat32 = 16777216.0;  // 2^24
    const bool dtype_takes = dtype == DType::Float32 || dtype == DType::Float64 || dtype == DType::Int32 ||
                             dtype == DType::Int64;
    return options_.parameter_constants && dtype_takes && c == std::trunc(c) && std::abs(c) <= kExactInFloat32 &&
           c != 0.0 && c != 1.0;
  }

  int emit_const(Emitter& e, double c, DType dtype, FusedKernel& k) {
    Json inst;
    inst["op"] = "const";
    inst["dtype"] = std::string(dtype_name(dtype));
    if (as_parameter(c, dtype)) {
      k.params.push_back(static_cast<int64_t>(c));
      inst["value"] = "p" + std::to_string(k.params.size() - 1);
      k.ir_version = "1.2";
      return add(e, std::move(inst), k);
    }
    if (dtype == DType::Bool) {
      inst["value"] = c != 0.0;
    } else if (std::isnan(c)) {
      inst["value"] = "nan";
    } else if (std::isinf(c)) {
      inst["value"] = c > 0 ? "inf" : "-inf";
    } else if (is_floating(dtype)) {
      inst["value"] = c;
    } else {
      inst["value"] = static_cast<int64_t>(c);
    }
    return add(e, std::move(inst), k);
  }

  int emit_binary(Emitter& e, const char* op, DType dtype, int a, int b, FusedKernel& k) {
    Json inst;
    inst["op"] = op;
    inst["dtype"] = std::string(dtype_name(dtype));
    inst["args"] = Json::array({a, b});
    return add(e, std::move(inst), k);
  }

  int emit_cast(Emitter& e, int arg, DType from, DType to, FusedKernel& k) {
    if (from == to) return arg;
    Json inst;
    inst["op"] = "cast";
    inst["dtype"] = std::string(dtype_name(to));
    inst["args"] = Json::array({arg});
    return add(e, std::move(inst), k);
  }

  // The instruction computing value `id` at the loop's index.
  int emit_value(Emitter& e, int id, FusedKernel& k) {
    if (auto it = e.ssa.find(id); it != e.ssa.end()) return it->second;
    if (auto it = group_results_.find(id); it != group_results_.end()) return it->second;
    const Value& v = value(id);
    int result = -1;
    if (v.origin == ValueOrigin::Constant) {
      result = emit_const(e, v.constant, v.dtype, k);
    } else if (v.origin == ValueOrigin::Input || kind_of_value(id) == NodeKind::View ||
               (materialized_[static_cast<size_t>(id)] && current_root_ != id)) {
      const int root = root_of(id);
      if (value(root).origin == ValueOrigin::Constant) {
        result = emit_const(e, value(root).constant, v.dtype, k);  // a broadcast constant
      } else if (auto it = group_results_.find(root); it != group_results_.end() && current_group_reduction_) {
        result = it->second;  // this kernel's reduced value, read broadcast or at its own index
      } else if (auto same = e.ssa.find(root);
                 same != e.ssa.end() && id != root && v.sizes == value(root).sizes &&
                 v.strides == value(root).strides && v.storage_offset == value(root).storage_offset) {
        result = same->second;  // a value of this loop read at its own index (not transposed, say)
      } else {
        Json inst;
        inst["op"] = "load";
        inst["dtype"] = std::string(dtype_name(v.dtype));
        inst["buffer"] = buffer_index(root, false, k);
        inst["offset"] = term(v.storage_offset, k);
        inst["strides"] = strides_in_loop_order(v, k);
        result = add(e, std::move(inst), k);
      }
    } else {
      const Node& node = *producer(id);
      add_node(k, v.producer);
      const OpId op = id_of(node);
      if (op == OpId::Fill) {
        const Attribute* a = node.find("value");
        result =
            emit_const(e, a->kind == EMBER_ATTR_FLOAT ? a->float_value : static_cast<double>(a->int_value), v.dtype, k);
      } else if (op == OpId::Copy) {
        const int arg = emit_value(e, node.inputs[0], k);
        result = emit_cast(e, arg, value(node.inputs[0]).dtype, v.dtype, k);
      } else {
        Json args = Json::array();
        for (int in : node.inputs) args.push_back(emit_value(e, in, k));
        Json inst;
        inst["op"] = g_.op_of(node).name();
        inst["dtype"] = std::string(dtype_name(v.dtype));
        inst["args"] = std::move(args);
        result = add(e, std::move(inst), k);
      }
    }
    e.ssa[id] = result;
    return result;
  }

  void add_node(FusedKernel& k, int node_index) const {
    if (std::find(k.nodes.begin(), k.nodes.end(), node_index) == k.nodes.end()) k.nodes.push_back(node_index);
  }

  void emit_store(Emitter& e, int root, int ssa, FusedKernel& k) {
    const Value& v = value(root);
    Json inst;
    inst["op"] = "store";
    inst["buffer"] = buffer_index(root, true, k);
    inst["offset"] = term(v.storage_offset, k);
    inst["strides"] = strides_in_loop_order(v, k);
    inst["args"] = Json::array({ssa});
    add(e, std::move(inst), k);
    k.roots.push_back(root);
  }

  bool stored(int root) const {
    if (needed_outside_.count(root) > 0) return true;
    const int gi = group_of_[static_cast<size_t>(root)];
    const bool reduced_value =
        gi >= 0 && groups_[static_cast<size_t>(gi)].reduction &&
        squeezed(value(root).sizes) == squeezed(groups_[static_cast<size_t>(gi)].reduced_shape());
    return !reduced_value;
  }

  void find_needed_outside() {
    needed_outside_.clear();
    for (size_t n = 0; n < g_.nodes.size(); ++n) {
      if (kinds_[n] != NodeKind::Extern) continue;
      for (int in : g_.nodes[n].inputs) needed_outside_.insert(root_of(in));
    }
    for (int out : g_.outputs) needed_outside_.insert(root_of(out));
    for (size_t gi = 0; gi < groups_.size(); ++gi) {
      for (int r : groups_[gi].roots) {
        std::vector<std::pair<int, int>> loads;
        std::set<int> seen;
        seen_roots_ = {r};
        for (int in : operands(r)) loads_of(in, loads, seen);
        for (const auto& [root, through] : loads) {
          const int owner = group_of_[static_cast<size_t>(root)];
          if (owner != static_cast<int>(gi)) {
            needed_outside_.insert(root);
          } else if (!groups_[gi].reduction && through != root) {
            needed_outside_.insert(root);
          }
        }
      }
    }
  }

  FusedKernel emit(int gi) {
    if (gi == 0) find_needed_outside();
    const Group& group = groups_[static_cast<size_t>(gi)];
    FusedKernel k;
    next_id_ = 0;
    group_results_.clear();
    current_group_reduction_ = group.reduction;
    // Loop order: kept dims outside, reduced dims inside.
    std::vector<int64_t> kept;
    for (size_t d = 0; d < group.shape.size(); ++d) {
      if (std::find(group.reduced.begin(), group.reduced.end(), static_cast<int64_t>(d)) == group.reduced.end()) {
        kept.push_back(static_cast<int64_t>(d));
      }
    }
    Json outer = Json::array();
    Json inner = Json::array();
    for (int64_t d : kept) outer.push_back(term(group.shape[static_cast<size_t>(d)], k));
    for (int64_t d : group.reduced) inner.push_back(term(group.shape[static_cast<size_t>(d)], k));
    Json loops = Json::array();
    auto flush = [&](Emitter& e, const Json& extents) {
      if (e.body.empty()) return;
      Json loop;
      loop["extents"] = extents;
      loop["body"] = std::move(e.body);
      loops.push_back(std::move(loop));
      e = Emitter{};
    };
    Emitter e;
    std::vector<std::string> names;
    if (!group.reduction) {
      loop_dims_ = kept;
      space_ = group.shape;
      for (int r : group.roots) {
        current_root_ = r;
        const int ssa = emit_value(e, r, k);
        add_node(k, value(r).producer);
        emit_store(e, r, ssa, k);
        names.push_back(g_.op_of(*producer(r)).name());
      }
      flush(e, Json::array());
    } else {
      bool in_pointwise_loop = false;
      for (int r : group.roots) {
        current_root_ = r;
        const Node& node = *producer(r);
        add_node(k, value(r).producer);
        names.push_back(g_.op_of(node).name());
        loop_dims_ = kept;
        loop_dims_.insert(loop_dims_.end(), group.reduced.begin(), group.reduced.end());
        space_ = group.shape;
        if (kind_of_value(r) == NodeKind::Pointwise && squeezed(value(r).sizes) == squeezed(group.reduced_shape()) &&
            squeezed(group.reduced_shape()) != squeezed(group.shape)) {
          flush(e, in_pointwise_loop ? inner : Json::array());
          in_pointwise_loop = false;
          loop_dims_ = kept;
          space_ = group.reduced_shape();
          const int result = emit_value(e, r, k);
          group_results_[r] = result;
          if (stored(r)) emit_store(e, r, result, k);
          flush(e, Json::array());
          continue;
        }
        if (kind_of_value(r) == NodeKind::Pointwise) {
          if (!in_pointwise_loop) flush(e, inner);
          in_pointwise_loop = true;
          const int ssa = emit_value(e, r, k);
          emit_store(e, r, ssa, k);
          continue;
        }
        flush(e, in_pointwise_loop ? inner : Json::array());
        in_pointwise_loop = false;
        const int reduce_id = emit_reduction(e, node, r, k);
        flush(e, inner);
        // The epilogue, at each outer point: visible to later loops.
        loop_dims_ = kept;
        space_ = group.reduced_shape();
        const int result = emit_epilogue(e, node, r, reduce_id, k);
        group_results_[r] = result;
        if (stored(r)) emit_store(e, r, result, k);
        flush(e, Json::array());
      }
      flush(e, in_pointwise_loop ? inner : Json::array());
    }
    std::sort(k.nodes.begin(), k.nodes.end());
    k.position = k.nodes.empty() ? 0 : k.nodes.back();
    k.name = "fused";
    for (const std::string& n : names) k.name += "_" + n;
    if (k.name.size() > 60) k.name.resize(60);
    Json doc;
    doc["ekir"] = k.ir_version;
    doc["name"] = k.name;
    doc["params"] = static_cast<int64_t>(k.params.size());
    Json buffers = Json::array();
    for (size_t i = 0; i < k.buffers.size(); ++i) {
      Json b;
      b["dtype"] = std::string(dtype_name(value(k.buffers[i]).dtype));
      b["role"] = k.buffer_is_output[i] ? "output" : "input";
      buffers.push_back(std::move(b));
      use(k.dtypes, std::string(dtype_name(value(k.buffers[i]).dtype)));
    }
    doc["buffers"] = std::move(buffers);
    doc["outer"] = std::move(outer);
    doc["loops"] = std::move(loops);
    Json hints;
    hints["deterministic"] = options_.deterministic;
    doc["hints"] = std::move(hints);
    k.ekir = doc.dump();
    return k;
  }

  // Note [Accumulation dtype]: a float32 (or narrower) sum or mean over a
  // row of up to kFloat32SumMost elements (softmax's, layer_norm's, a mean
  // over the last dim) accumulates in float32, as eager kernels do: a
  // generator's lanes or work-items keep its rounding error near float32's
  // own. A longer one accumulates in float64, whose error stays below
  // float32's whatever order a generator adds in.
  static constexpr int64_t kFloat32SumMost = int64_t{1} << 16;

  // How many input elements each result of reduction `node` combines.
  int64_t reduced_elements(const Node& node) const {
    int64_t n = 1;
    for (int64_t d : reduced_dims(g_, node)) n *= value(node.inputs[0]).sizes[static_cast<size_t>(d)];
    return n;
  }

  DType accumulation_dtype(const Node& node, DType out) const {
    const OpId op = id_of(node);
    if (op != OpId::Sum && op != OpId::Mean) return out;
    if (out != DType::Float32 && out != DType::Float16 && out != DType::BFloat16) return out;
    return reduced_elements(node) <= kFloat32SumMost ? DType::Float32 : DType::Float64;
  }

  int emit_reduction(Emitter& e, const Node& node, int r, FusedKernel& k) {
    const OpId op = id_of(node);
    const Value& out = value(r);
    const Value& in = value(node.inputs[0]);
    const DType acc = accumulation_dtype(node, out.dtype);
    const int x = emit_cast(e, emit_value(e, node.inputs[0], k), in.dtype, acc, k);
    Json inst;
    inst["op"] = "reduce";
    inst["dtype"] = std::string(dtype_name(acc));
    inst["kind"] = op == OpId::Amax ? "max" : op == OpId::Amin ? "min" : op == OpId::Prod ? "prod" : "sum";
    inst["args"] = Json::array({x});
    return add(e, std::move(inst), k);
  }

  int emit_epilogue(Emitter& e, const Node& node, int r, int reduced, FusedKernel& k) {
    const OpId op = id_of(node);
    const Value& out = value(r);
    const DType acc = accumulation_dtype(node, out.dtype);
    int result = reduced;
    if (op == OpId::Mean) {
      const int64_t n = reduced_elements(node);
      const int inv = as_parameter(static_cast<double>(n), acc)
                          ? emit_binary(e, "div", acc, emit_const(e, 1.0, acc, k),
                                        emit_const(e, static_cast<double>(n), acc, k), k)
                          : emit_const(e, n == 0 ? std::numeric_limits<double>::infinity() : 1.0 / static_cast<double>(n),
                                       acc, k);
      result = emit_binary(e, "mul", acc, result, inv, k);
    }
    return emit_cast(e, result, acc, out.dtype, k);
  }

  const Graph& g_;
  PlanOptions options_;
  std::vector<NodeKind> kinds_;
  std::vector<bool> materialized_;
  std::vector<Group> groups_;
  std::vector<int> group_of_;
  std::set<int> needed_outside_;
  mutable std::set<int> seen_roots_;
  std::map<int, int> group_results_;
  std::vector<int64_t> loop_dims_;
  DimVector space_;  // the shape the current loop's dims index
  int current_root_ = -1;
  bool current_group_reduction_ = false;
  int next_id_ = 0;
};

}  // namespace

Fusion fuse(const Graph& graph, const PlanOptions& options) { return Fuser(graph, options).run(); }

std::string later_ir_version(const std::string& a, const std::string& b) {
  const auto minor = [](const std::string& v) { return std::stoi(v.substr(v.find('.') + 1)); };
  return minor(a) >= minor(b) ? a : b;
}

}  // namespace ember::compile
