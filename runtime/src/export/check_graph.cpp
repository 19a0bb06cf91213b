// Note [Checking a loaded graph]
// A graph read from a file is not trusted: meta functions and kernels assume
// the arguments an op's public function validated (ops/meta_functions.cpp),
// so a node with a dim out of range or mismatched operands would read past
// its buffers. Before a graph runs, each node is checked at the level the
// kernels see: ids in range and defined before use, the op's arity and
// attributes as its record lists them, the operands its family needs
// (equal shapes for elementwise ops, matching inner sizes for mm, valid
// dims, windows that fit), and then the outputs recorded in the file must
// equal what the op's meta function computes. Views must stay inside their
// base's storage. Only the op families below can be exported; any other op
// is refused by name, at export and at load alike.
#include <algorithm>
#include <numeric>
#include <string>

#include "core/shape.h"
#include "dispatch/op_registry.h"
#include "ember/error.h"
#include "export/program.h"
#include "ops/op_record.h"

namespace ember::exported {

using compile::Attribute;
using compile::Graph;
using compile::Node;
using compile::Value;
using compile::ValueOrigin;
using dispatch::OpId;

namespace {

constexpr int64_t kMaxRank = static_cast<int64_t>(kMaxDims);
// Bounds on a window's sizes and attributes under which its output size
// (H + 2 * padding - dilation * (kernel - 1) - 1) / stride + 1 cannot overflow.
constexpr int64_t kMaxWindow = int64_t{1} << 30;

class NodeCheck {
 public:
  NodeCheck(const Graph& graph, size_t index)
      : graph_(graph), node_(graph.nodes[index]), where_("node " + std::to_string(index)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw_error(ErrorKind::Value, "exported graph: " + where_ + " (" + op_name() + "): " + what);
  }
  void require(bool ok, const std::string& what) const {
    if (!ok) fail(what);
  }
  std::string op_name() const { return graph_.op_of(node_).name(); }
  const Value& in(size_t i) const { return graph_.values[static_cast<size_t>(node_.inputs[i])]; }
  const Value& out(size_t i) const { return graph_.values[static_cast<size_t>(node_.outputs[i])]; }
  int64_t rank(size_t i) const { return static_cast<int64_t>(in(i).sizes.size()); }

  const Attribute& attr(const char* name, ember_attr_kind kind) const {
    const Attribute* a = node_.find(name);
    require(a != nullptr && a->kind == kind, std::string("attribute '") + name + "' is missing or of the wrong kind");
    return *a;
  }
  int64_t dim_attr(const char* name, int64_t rank, bool allow_end = false) const {
    const int64_t d = attr(name, EMBER_ATTR_INT).int_value;
    require(d >= 0 && (d < rank || (allow_end && d == rank)), std::string("attribute '") + name +
                                                                  "' = " + std::to_string(d) +
                                                                  " is out of range for rank " + std::to_string(rank));
    return d;
  }
  void dims_attr(const char* name, int64_t rank, bool permutation) const {
    const std::vector<int64_t>& dims = attr(name, EMBER_ATTR_INTS).ints;
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    for (int64_t d : dims) {
      require(d >= 0 && d < rank && !seen[static_cast<size_t>(d)],
              std::string("attribute '") + name + "' holds a dim out of range or repeated");
      seen[static_cast<size_t>(d)] = true;
    }
    require(std::is_sorted(dims.begin(), dims.end()) || permutation,
            std::string("attribute '") + name + "' is not sorted");
    require(!permutation || static_cast<int64_t>(dims.size()) == rank,
            std::string("attribute '") + name + "' is not a permutation of the dims");
  }
  void pair_attr(const char* name, int64_t least) const {
    const std::vector<int64_t>& v = attr(name, EMBER_ATTR_INTS).ints;
    require(v.size() == 2 && v[0] >= least && v[1] >= least && v[0] <= kMaxWindow && v[1] <= kMaxWindow,
            std::string("attribute '") + name + "' must be two integers >= " + std::to_string(least));
  }
  void same_sizes(size_t a, size_t b) const {
    require(in(a).sizes == in(b).sizes, "operands " + std::to_string(a) + " and " + std::to_string(b) +
                                            " differ in shape " + shape_str(in(a).sizes) + " vs " +
                                            shape_str(in(b).sizes));
  }
  void same_dtype(size_t a, size_t b) const {
    require(in(a).dtype == in(b).dtype,
            "operands " + std::to_string(a) + " and " + std::to_string(b) + " differ in dtype");
  }

  void check_operands() const;
  void check_window(bool pooling) const;
  void check_attention() const;

 private:
  const Graph& graph_;
  const Node& node_;
  std::string where_;
};

void NodeCheck::check_window(bool pooling) const {
  require(rank(0) == 4, "the input must be 4-d [N, C, H, W]");
  require(in(0).sizes[2] <= kMaxWindow && in(0).sizes[3] <= kMaxWindow, "the input's spatial sizes are too large");
  pair_attr("stride", 1);
  pair_attr("padding", 0);
  if (pooling) {
    pair_attr("kernel_size", 1);
    const std::vector<int64_t>& k = node_.find("kernel_size")->ints;
    const std::vector<int64_t>& p = node_.find("padding")->ints;
    require(p[0] * 2 <= k[0] && p[1] * 2 <= k[1], "padding must be at most half the kernel size");
  } else {
    require(rank(1) == 4 && in(1).sizes[2] <= kMaxWindow && in(1).sizes[3] <= kMaxWindow,
            "the weight must be 4-d [C_out, C_in / groups, kH, kW] with kernel sizes up to 2^30");
    const int64_t groups = attr("groups", EMBER_ATTR_INT).int_value;
    require(groups >= 1 && in(1).sizes[0] % groups == 0 && in(1).sizes[1] * groups == in(0).sizes[1],
            "groups do not divide the channels of input and weight");
    same_dtype(0, 1);
  }
  if (node_.find("dilation") != nullptr) pair_attr("dilation", 1);
}

void NodeCheck::check_attention() const {
  require(node_.inputs.size() == 3 || node_.inputs.size() == 4, "operands are not q, k, v and an optional mask");
  attr("is_causal", EMBER_ATTR_BOOL);
  attr("scale", EMBER_ATTR_FLOAT);
  for (size_t i = 0; i < node_.inputs.size(); ++i) {
    require(rank(i) == 4, "operand " + std::to_string(i) + " is not 4-d");
    require(is_floating(in(i).dtype), "operand " + std::to_string(i) + " is not floating");
    same_dtype(0, i);
  }
  for (size_t i = 0; i < 3; ++i) {
    require(in(i).sizes[3] <= 1 || in(i).strides[3] == 1, "q, k and v need unit stride along their last dim");
  }
  const DimVector& q = in(0).sizes;
  const DimVector& k = in(1).sizes;
  const DimVector& v = in(2).sizes;
  require(k[0] == q[0] && v[0] == q[0] && k[1] == q[1] && v[1] == q[1] && v[2] == k[2] && k[3] == q[3],
          "q, k and v are not [N, H, L, E], [N, H, S, E] and [N, H, S, Ev]");
  if (node_.inputs.size() == 4) {
    const int64_t scores[4] = {q[0], q[1], q[2], k[2]};
    for (size_t d = 0; d < 4; ++d) {
      require(in(3).sizes[d] == 1 || in(3).sizes[d] == scores[d], "the mask does not broadcast to the scores");
    }
  }
}

void NodeCheck::check_operands() const {
  const ops::OpRecord& rec = ops::record(static_cast<OpId>(node_.op));
  const OpId id = rec.id;
  for (size_t i = 0; i + 1 < node_.inputs.size(); ++i) {
    require(in(i).device == in(i + 1).device, "operands live on different devices");
  }
  if (rec.dtype_rule != ops::DTypeRule::Custom || id == OpId::Where) {
    // Elementwise: the public function broadcast and converted the operands.
    for (size_t i = 1; i < node_.inputs.size(); ++i) same_sizes(0, i);
    if (id == OpId::Where) {
      require(in(0).dtype == DType::Bool, "the condition must be bool");
      same_dtype(1, 2);
    } else if (node_.inputs.size() == 2) {
      same_dtype(0, 1);
    }
    return;
  }
  switch (id) {
    case OpId::Copy:
      require(node_.writes_output && node_.inputs.size() == 1 && in(0).sizes == out(0).sizes,
              "copy must write an output of its input's shape");
      return;
    case OpId::Sum:
    case OpId::Prod:
    case OpId::Mean:
    case OpId::Amax:
    case OpId::Amin:
      dims_attr("dims", rank(0), false);
      attr("keepdim", EMBER_ATTR_BOOL);
      return;
    case OpId::Argmax:
    case OpId::Argmin:
      if (attr("dim", EMBER_ATTR_INT).int_value != -1) dim_attr("dim", rank(0));
      attr("keepdim", EMBER_ATTR_BOOL);
      return;
    case OpId::Cumsum:
      dim_attr("dim", rank(0));
      return;
    case OpId::Mm:
      require(rank(0) == 2 && rank(1) == 2 && in(0).sizes[1] == in(1).sizes[0], "operands are not [n, k] @ [k, m]");
      same_dtype(0, 1);
      return;
    case OpId::Bmm:
      require(rank(0) == 3 && rank(1) == 3 && in(0).sizes[0] == in(1).sizes[0] && in(0).sizes[2] == in(1).sizes[1],
              "operands are not [b, n, k] @ [b, k, m]");
      same_dtype(0, 1);
      return;
    case OpId::Cat: {
      const int64_t d = dim_attr("dim", rank(0));
      for (size_t i = 1; i < node_.inputs.size(); ++i) {
        require(rank(i) == rank(0), "operands differ in rank");
        same_dtype(0, i);
        for (int64_t k = 0; k < rank(0); ++k) {
          require(k == d || in(i).sizes[static_cast<size_t>(k)] == in(0).sizes[static_cast<size_t>(k)],
                  "operands differ outside the cat dim");
        }
      }
      return;
    }
    case OpId::IndexSelect:
      require(rank(0) >= 1 && rank(1) == 1 && (in(1).dtype == DType::Int64 || in(1).dtype == DType::Int32),
              "operands are not a tensor of at least one dim and a 1-d int64 or int32 index");
      dim_attr("dim", rank(0));
      return;
    case OpId::ScaledDotProductAttention:
      check_attention();
      return;
    case OpId::Conv2d:
      check_window(false);
      return;
    case OpId::Conv2dBias:
      check_window(false);
      require(rank(2) == 1 && in(2).sizes[0] == in(1).sizes[0], "the bias must be 1-d [C_out]");
      same_dtype(0, 2);
      return;
    case OpId::MaxPool2d:
      attr("dilation", EMBER_ATTR_INTS);
      check_window(true);
      return;
    case OpId::AvgPool2d:
      attr("count_include_pad", EMBER_ATTR_BOOL);
      check_window(true);
      return;
    case OpId::View: {
      const std::vector<int64_t>& sizes = attr("sizes", EMBER_ATTR_INTS).ints;
      require(static_cast<int64_t>(sizes.size()) <= kMaxRank &&
                  std::all_of(sizes.begin(), sizes.end(), [](int64_t s) { return s >= 0; }),
              "sizes must be non-negative, at most " + std::to_string(kMaxRank));
      require(numel_of(sizes) == numel_of(in(0).sizes), "sizes do not hold the input's elements");
      return;
    }
    case OpId::Permute:
      dims_attr("dims", rank(0), true);
      return;
    case OpId::Transpose:
      dim_attr("dim0", rank(0));
      dim_attr("dim1", rank(0));
      return;
    case OpId::Expand: {
      const std::vector<int64_t>& sizes = attr("sizes", EMBER_ATTR_INTS).ints;
      const int64_t lead = static_cast<int64_t>(sizes.size()) - rank(0);
      require(lead >= 0 && static_cast<int64_t>(sizes.size()) <= kMaxRank, "sizes have fewer dims than the input");
      for (size_t i = 0; i < sizes.size(); ++i) {
        const int64_t from = static_cast<int64_t>(i) < lead ? 1 : in(0).sizes[i - static_cast<size_t>(lead)];
        require(sizes[i] >= 0 && (from == sizes[i] || from == 1), "the input does not expand to the sizes");
      }
      return;
    }
    case OpId::Squeeze: {
      dims_attr("dims", rank(0), false);
      for (int64_t d : node_.find("dims")->ints)
        require(in(0).sizes[static_cast<size_t>(d)] == 1, "squeezes a dim of size != 1");
      return;
    }
    case OpId::Unsqueeze:
      require(rank(0) < kMaxRank, "too many dims");
      dim_attr("dim", rank(0), true);
      return;
    case OpId::Slice: {
      const int64_t d = dim_attr("dim", rank(0));
      const int64_t size = in(0).sizes[static_cast<size_t>(d)];
      const int64_t start = attr("start", EMBER_ATTR_INT).int_value;
      const int64_t end = attr("end", EMBER_ATTR_INT).int_value;
      const int64_t step = attr("step", EMBER_ATTR_INT).int_value;
      require(start >= 0 && start <= end && end <= size && step >= 1, "start, end and step do not fit the dim");
      return;
    }
    case OpId::Select: {
      const int64_t d = dim_attr("dim", rank(0));
      const int64_t index = attr("index", EMBER_ATTR_INT).int_value;
      require(index >= 0 && index < in(0).sizes[static_cast<size_t>(d)], "index out of range");
      return;
    }
    case OpId::AsStrided: {
      const std::vector<int64_t>& sizes = attr("sizes", EMBER_ATTR_INTS).ints;
      const std::vector<int64_t>& strides = attr("strides", EMBER_ATTR_INTS).ints;
      require(sizes.size() == strides.size() && static_cast<int64_t>(sizes.size()) <= kMaxRank &&
                  attr("storage_offset", EMBER_ATTR_INT).int_value >= 0 &&
                  std::all_of(sizes.begin(), sizes.end(), [](int64_t s) { return s >= 0; }) &&
                  std::all_of(strides.begin(), strides.end(), [](int64_t s) { return s >= 0; }),
              "sizes, strides and offset must be non-negative and of one length");
      return;
    }
    default:
      fail(
          "this op cannot be exported (export takes elementwise ops, reductions, mm/bmm, cat, index_select, conv2d, "
          "conv2d_bias, pooling, scaled_dot_product_attention and views)");
  }
}

// Strides of dims of size 0 or 1 never address an element: layouts that
// differ only there are the same (a batch of 1 expands with either stride).
bool same_strides(const Value& v, IntArrayRef strides) {
  if (strides.size() != v.strides.size()) return false;
  for (size_t d = 0; d < strides.size(); ++d) {
    if (v.sizes[d] > 1 && strides[d] != v.strides[d]) return false;
  }
  return true;
}

bool is_contiguous_layout(const Value& v) {
  return v.storage_offset == 0 && same_strides(v, contiguous_strides(v.sizes));
}

// The span of elements a value's layout reaches, from its storage's start.
int64_t reach(const Value& v) {
  const int64_t span = span_elements(v.sizes, v.strides);
  const std::optional<int64_t> end = checked_add(v.storage_offset, span);
  if (!end) throw_error(ErrorKind::Value, "exported graph: a value's layout overflows int64");
  return span == 0 ? 0 : *end;
}

Tensor meta_tensor(const Value& v) {
  auto storage = std::make_shared<Storage>(
      nullptr, static_cast<size_t>(storage_nbytes(v.sizes, v.strides, v.storage_offset, itemsize(v.dtype))),
      Device("meta"), nullptr, nullptr);
  return Tensor(std::make_shared<TensorImpl>(storage, v.dtype, v.sizes, v.strides, v.storage_offset));
}

void check_values(const Graph& graph, size_t num_inputs) {
  const size_t n = graph.values.size();
  auto fail = [](size_t id, const std::string& what) {
    throw_error(ErrorKind::Value, "exported graph: value " + compile::value_name(static_cast<int>(id)) + ": " + what);
  };
  if (graph.inputs.size() != num_inputs) {
    throw_error(ErrorKind::Value, "exported graph: " + std::to_string(graph.inputs.size()) +
                                      " graph inputs, but the specs name " + std::to_string(num_inputs));
  }
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    const int id = graph.inputs[i];
    if (id < 0 || static_cast<size_t>(id) >= n || graph.values[static_cast<size_t>(id)].origin != ValueOrigin::Input ||
        graph.values[static_cast<size_t>(id)].input_index != static_cast<int>(i)) {
      throw_error(ErrorKind::Value, "exported graph: input " + std::to_string(i) + " is not an input value");
    }
  }
  for (size_t id = 0; id < n; ++id) {
    const Value& v = graph.values[id];
    if (static_cast<int64_t>(v.sizes.size()) > kMaxRank || v.sizes.size() != v.strides.size()) {
      fail(id, "rank or strides do not match");
    }
    for (size_t d = 0; d < v.sizes.size(); ++d) {
      if (v.sizes[d] < 0 || v.strides[d] < 0) fail(id, "negative size or stride");
    }
    if (v.storage_offset < 0) fail(id, "negative storage offset");
    if (v.storage_of < 0 || static_cast<size_t>(v.storage_of) >= n) fail(id, "storage_of out of range");
    if (graph.values[static_cast<size_t>(v.storage_of)].storage_of != v.storage_of) fail(id, "storage_of not a base");
    (void)storage_nbytes(v.sizes, v.strides, v.storage_offset, itemsize(v.dtype));
    if (v.origin != ValueOrigin::Node) {
      if (v.storage_of != static_cast<int>(id) || !is_contiguous_layout(v) || v.producer != -1) {
        fail(id, "an input or constant must be contiguous and own its storage");
      }
      if (v.origin == ValueOrigin::Constant && !v.sizes.empty()) fail(id, "a constant must be 0-d");
      if (v.origin == ValueOrigin::Input &&
          (v.input_index < 0 || static_cast<size_t>(v.input_index) >= num_inputs ||
           graph.inputs[static_cast<size_t>(v.input_index)] != static_cast<int>(id))) {
        fail(id, "input_index does not match the graph's inputs");
      }
    } else if (v.producer < 0 || static_cast<size_t>(v.producer) >= graph.nodes.size()) {
      fail(id, "producer out of range");
    }
  }
}

}  // namespace

void check_graph(const Graph& graph, size_t num_inputs) {
  check_values(graph, num_inputs);
  const size_t n = graph.values.size();
  std::vector<bool> defined(n, false);
  for (size_t id = 0; id < n; ++id) defined[id] = graph.values[id].origin != ValueOrigin::Node;
  const auto& registry = dispatch::OpRegistry::get();
  const auto records = ops::op_records();
  for (size_t index = 0; index < graph.nodes.size(); ++index) {
    const Node& node = graph.nodes[index];
    const std::string where = "exported graph: node " + std::to_string(index);
    if (node.op >= records.size()) throw_error(ErrorKind::Value, where + ": unknown op");
    const ops::OpRecord& rec = records[node.op];
    const dispatch::OpSchema& schema = registry.at(node.op).schema();
    NodeCheck check(graph, index);
    if (rec.num_inputs >= 0 ? node.inputs.size() != static_cast<size_t>(rec.num_inputs) : node.inputs.empty()) {
      check.fail("takes " + std::to_string(rec.num_inputs) + " inputs, the node has " +
                 std::to_string(node.inputs.size()));
    }
    check.require(node.outputs.size() == static_cast<size_t>(rec.num_outputs), "wrong number of outputs");
    for (int in : node.inputs) {
      check.require(in >= 0 && static_cast<size_t>(in) < n && defined[static_cast<size_t>(in)],
                    "reads a value out of range or not yet computed");
    }
    for (int out : node.outputs) {
      check.require(out >= 0 && static_cast<size_t>(out) < n && !defined[static_cast<size_t>(out)] &&
                        graph.values[static_cast<size_t>(out)].producer == static_cast<int>(index),
                    "writes a value out of range, computed before, or produced elsewhere");
    }
    // The attributes are the record's, each once.
    std::vector<std::string> expected;
    for (const char* p = rec.attributes; *p != '\0';) {
      const char* e = p;
      while (*e != '\0' && *e != ' ') ++e;
      expected.emplace_back(p, e);
      p = *e == ' ' ? e + 1 : e;
    }
    for (const Attribute& a : node.attrs) {
      check.require(std::count(expected.begin(), expected.end(), a.name) == 1 && node.find(a.name) == &a,
                    "unexpected or repeated attribute '" + a.name + "'");
    }
    check.check_operands();

    std::vector<Tensor> inputs;
    for (int in : node.inputs) inputs.push_back(meta_tensor(graph.values[static_cast<size_t>(in)]));
    std::vector<Tensor> outputs(node.outputs.size());
    std::vector<ember_attr> attrs;
    for (const Attribute& a : node.attrs) attrs.push_back(a.view());
    dispatch::OpCall call;
    call.inputs = inputs.data();
    call.num_inputs = static_cast<int64_t>(inputs.size());
    call.outputs = outputs.data();
    call.num_outputs = static_cast<int64_t>(outputs.size());
    call.attrs = attrs.data();
    call.num_attrs = static_cast<int64_t>(attrs.size());
    std::vector<dispatch::TensorMeta> metas(node.outputs.size());
    if (node.writes_output) {
      // copy: the output keeps its recorded dtype (a conversion).
      metas[0] = dispatch::TensorMeta{check.in(0).sizes, check.out(0).dtype, {}, 0};
    } else {
      schema.meta(call, metas.data());
    }
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      const Value& v = check.out(i);
      check.require(metas[i].sizes == v.sizes && metas[i].dtype == v.dtype,
                    "output " + std::to_string(i) + " is recorded as " + std::string(dtype_name(v.dtype)) +
                        shape_str(v.sizes) + ", the op gives " + std::string(dtype_name(metas[i].dtype)) +
                        shape_str(metas[i].sizes));
      check.require(v.device == check.in(0).device || node.inputs.empty(), "output on another device");
      if (schema.is_view()) {
        const Value& base = check.in(0);
        check.require(v.storage_of == base.storage_of && same_strides(v, metas[i].strides) &&
                          metas[i].storage_offset == v.storage_offset,
                      "the view's layout differs from the op's");
        check.require(reach(v) <= reach(graph.values[static_cast<size_t>(v.storage_of)]) || numel_of(v.sizes) == 0,
                      "the view reaches outside its base");
      } else {
        check.require(v.storage_of == node.outputs[i] && is_contiguous_layout(v),
                      "an op's output must be contiguous and own its storage");
      }
      defined[static_cast<size_t>(node.outputs[i])] = true;
    }
  }
  for (int out : graph.outputs) {
    if (out < 0 || static_cast<size_t>(out) >= n || !defined[static_cast<size_t>(out)]) {
      throw_error(ErrorKind::Value, "exported graph: an output names a value out of range");
    }
  }
}

}  // namespace ember::exported
