// The split of a joint graph into forward and backward (Note [Compiled
// training]).
#include "compile/partition.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/boykov_kolmogorov_max_flow.hpp>

#include <deque>
#include <limits>
#include <unordered_map>

#include "compile/fusion.h"
#include "compile/passes.h"
#include "core/shape.h"
#include "ember/error.h"

namespace ember::compile {
namespace {

using FlowTraits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
using FlowGraph = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS,
    boost::property<
        boost::vertex_index_t, long,
        boost::property<boost::vertex_color_t, boost::default_color_type,
                        boost::property<boost::vertex_distance_t, long,
                                        boost::property<boost::vertex_predecessor_t, FlowTraits::edge_descriptor>>>>,
    boost::property<boost::edge_capacity_t, int64_t,
                    boost::property<boost::edge_residual_capacity_t, int64_t,
                                    boost::property<boost::edge_reverse_t, FlowTraits::edge_descriptor>>>>;

// Larger than any finite cut (the bytes of every value of a graph), small
// enough that sums of a few never overflow.
constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max() / 8;

class MinCut {
 public:
  explicit MinCut(size_t num_vertices) : graph_(num_vertices) {}

  void add_edge(size_t from, size_t to, int64_t capacity) {
    auto forward = boost::add_edge(from, to, graph_).first;
    auto backward = boost::add_edge(to, from, graph_).first;
    boost::put(boost::edge_capacity, graph_, forward, capacity);
    boost::put(boost::edge_capacity, graph_, backward, 0);
    boost::put(boost::edge_reverse, graph_, forward, backward);
    boost::put(boost::edge_reverse, graph_, backward, forward);
  }

  // The vertices on the source's side of a minimum cut: those the source
  // still reaches through edges with residual capacity.
  std::vector<bool> source_side(size_t source, size_t sink) {
    boost::boykov_kolmogorov_max_flow(graph_, source, sink);
    std::vector<bool> reached(boost::num_vertices(graph_), false);
    std::deque<size_t> queue{source};
    reached[source] = true;
    while (!queue.empty()) {
      const size_t v = queue.front();
      queue.pop_front();
      for (auto [e, end] = boost::out_edges(v, graph_); e != end; ++e) {
        const size_t to = boost::target(*e, graph_);
        if (!reached[to] && boost::get(boost::edge_residual_capacity, graph_, *e) > 0) {
          reached[to] = true;
          queue.push_back(to);
        }
      }
    }
    return reached;
  }

 private:
  FlowGraph graph_;
};

int64_t value_bytes(const Value& v) { return numel_of(v.sizes) * static_cast<int64_t>(itemsize(v.dtype)); }

// A graph of the joint graph's `nodes` (in order), reading `inputs` and
// returning `outputs`; every other value it reads is a constant.
//
// An input is a tensor of its own, whatever it viewed in the joint graph:
// its first element is offset 0 of its storage, as the tracer records
// inputs. A view the part computes stands over the storage of the value it
// views, and its offset moves by that storage's first element in the joint
// graph.
Graph extract(const Graph& joint, const std::vector<int>& inputs, const std::vector<int>& nodes,
              const std::vector<int>& outputs) {
  Graph g;
  std::unordered_map<int, int> id;
  std::vector<int64_t> joint_offset;  // per value of g: the joint storage offset of its first element
  auto add_value = [&](int old, ValueOrigin origin, int viewed) {
    Value v = joint.values[static_cast<size_t>(old)];
    const int now = static_cast<int>(g.values.size());
    joint_offset.push_back(v.storage_offset);
    v.origin = origin;
    v.producer = -1;
    v.input_index = -1;
    if (viewed >= 0) {
      v.storage_of = g.values[static_cast<size_t>(viewed)].storage_of;
      v.storage_offset -= joint_offset[static_cast<size_t>(v.storage_of)];
    } else {
      v.storage_of = now;
      v.storage_offset = 0;
    }
    g.values.push_back(std::move(v));
    id[old] = now;
    return now;
  };
  for (int in : inputs) {
    const int now = add_value(in, ValueOrigin::Input, -1);
    g.values[static_cast<size_t>(now)].input_index = static_cast<int>(g.inputs.size());
    g.inputs.push_back(now);
  }
  auto read = [&](int old) {
    auto it = id.find(old);
    if (it != id.end()) return it->second;
    if (joint.values[static_cast<size_t>(old)].origin != ValueOrigin::Constant) {
      throw_error(ErrorKind::Runtime, "compile: the partition of a joint graph lost value " + value_name(old));
    }
    return add_value(old, ValueOrigin::Constant, -1);
  };
  for (int n : nodes) {
    Node node = joint.nodes[static_cast<size_t>(n)];
    for (int& in : node.inputs) in = read(in);
    const int index = static_cast<int>(g.nodes.size());
    const bool is_view = node_kind(joint, node) == NodeKind::View;
    for (int& out : node.outputs) {
      out = add_value(out, ValueOrigin::Node, is_view ? node.inputs[0] : -1);
      g.values[static_cast<size_t>(out)].producer = index;
    }
    g.nodes.push_back(std::move(node));
  }
  for (int out : outputs) g.outputs.push_back(read(out));
  return g;
}

bool may_recompute(const Graph& graph, const Node& node) {
  const NodeKind kind = node_kind(graph, node);
  return kind == NodeKind::Pointwise || kind == NodeKind::View;
}

}  // namespace

Partition partition(const JointGraph& joint_in) {
  const Graph joint = simplify(joint_in.graph);
  const size_t num_values = joint.values.size();

  // Values that depend on a tangent belong to the backward.
  std::vector<bool> backward_value(num_values, false);
  std::vector<int> primals, tangents;
  for (size_t k = 0; k < joint.inputs.size(); ++k) {
    const int v = joint.inputs[k];
    if (joint_in.roles[k] == JointInput::Tangent) {
      backward_value[static_cast<size_t>(v)] = true;
      tangents.push_back(v);
    } else {
      primals.push_back(v);
    }
  }
  std::vector<bool> backward_node(joint.nodes.size(), false);
  for (size_t n = 0; n < joint.nodes.size(); ++n) {
    const Node& node = joint.nodes[n];
    bool reads_tangent = false;
    for (int in : node.inputs) reads_tangent |= backward_value[static_cast<size_t>(in)];
    backward_node[n] = reads_tangent;
    for (int out : node.outputs) backward_value[static_cast<size_t>(out)] = reads_tangent;
  }
  auto is_forward_value = [&](int v) {
    return !backward_value[static_cast<size_t>(v)] &&
           joint.values[static_cast<size_t>(v)].origin != ValueOrigin::Constant;
  };

  // The flow network: value v is the edge in(v) -> out(v), as heavy as its
  // bytes; reads are unbounded edges; the backward's reads lead to the sink.
  const size_t source = 2 * num_values, sink = source + 1;
  auto in_vertex = [](int v) { return 2 * static_cast<size_t>(v); };
  auto out_vertex = [](int v) { return 2 * static_cast<size_t>(v) + 1; };
  MinCut cut(sink + 1);
  std::vector<bool> forward_output(num_values, false);
  for (int i = 0; i < joint_in.num_forward_outputs; ++i) forward_output[static_cast<size_t>(joint.outputs[i])] = true;
  std::vector<bool> read_by_backward(num_values, false);
  for (size_t v = 0; v < num_values; ++v) {
    if (!is_forward_value(static_cast<int>(v))) continue;
    const Value& value = joint.values[v];
    // Ties go to values alive anyway: primals and the forward's outputs.
    const bool alive_anyway = value.origin == ValueOrigin::Input || forward_output[v];
    cut.add_edge(in_vertex(static_cast<int>(v)), out_vertex(static_cast<int>(v)),
                 2 * value_bytes(value) + (alive_anyway ? 0 : 1));
    if (value.origin == ValueOrigin::Input) cut.add_edge(source, in_vertex(static_cast<int>(v)), kUnbounded);
  }
  for (size_t n = 0; n < joint.nodes.size(); ++n) {
    const Node& node = joint.nodes[n];
    for (int in : node.inputs) {
      if (!is_forward_value(in)) continue;
      if (backward_node[n]) {
        read_by_backward[static_cast<size_t>(in)] = true;
        cut.add_edge(out_vertex(in), sink, kUnbounded);
        continue;
      }
      for (int out : node.outputs) cut.add_edge(out_vertex(in), in_vertex(out), kUnbounded);
    }
    if (!backward_node[n] && !may_recompute(joint, node)) {
      for (int out : node.outputs) cut.add_edge(source, in_vertex(out), kUnbounded);
    }
  }
  // Gradients that are forward values (a gradient that does not depend on
  // the tangents) are read by the backward too.
  for (size_t i = static_cast<size_t>(joint_in.num_forward_outputs); i < joint.outputs.size(); ++i) {
    const int v = joint.outputs[i];
    if (!is_forward_value(v)) continue;
    read_by_backward[static_cast<size_t>(v)] = true;
    cut.add_edge(out_vertex(v), sink, kUnbounded);
  }
  const std::vector<bool> source_side = cut.source_side(source, sink);

  Partition result;
  std::vector<bool> saved(num_values, false);
  std::vector<int> saved_values;
  for (size_t v = 0; v < num_values; ++v) {
    if (!is_forward_value(static_cast<int>(v))) continue;
    if (source_side[in_vertex(static_cast<int>(v))] && !source_side[out_vertex(static_cast<int>(v))]) {
      saved[v] = true;
      if (joint.values[v].origin == ValueOrigin::Node) {
        saved_values.push_back(static_cast<int>(v));
        result.saved_bytes += value_bytes(joint.values[v]);
      }
    }
    if (read_by_backward[v] && joint.values[v].origin == ValueOrigin::Node) {
      result.save_everything_bytes += value_bytes(joint.values[v]);
    }
  }

  // The backward: its own nodes and the forward nodes it recomputes, found
  // from the gradients back to saved values, primals and tangents.
  std::vector<bool> in_backward(joint.nodes.size(), false);
  std::vector<bool> primal_saved(num_values, false);
  std::vector<int> stack(joint.outputs.begin() + joint_in.num_forward_outputs, joint.outputs.end());
  std::vector<bool> visited(num_values, false);
  while (!stack.empty()) {
    const int v = stack.back();
    stack.pop_back();
    if (visited[static_cast<size_t>(v)]) continue;
    visited[static_cast<size_t>(v)] = true;
    const Value& value = joint.values[static_cast<size_t>(v)];
    if (value.origin == ValueOrigin::Input) {
      if (!backward_value[static_cast<size_t>(v)]) primal_saved[static_cast<size_t>(v)] = true;
      continue;
    }
    if (value.origin == ValueOrigin::Constant ||
        (saved[static_cast<size_t>(v)] && !backward_value[static_cast<size_t>(v)])) {
      continue;
    }
    in_backward[static_cast<size_t>(value.producer)] = true;
    for (int in : joint.nodes[static_cast<size_t>(value.producer)].inputs) stack.push_back(in);
    // A view's base is read through the view's storage.
    if (value.storage_of != v) stack.push_back(value.storage_of);
  }

  // The forward: what its outputs and the saved values need.
  std::vector<bool> in_forward(joint.nodes.size(), false);
  stack.assign(joint.outputs.begin(), joint.outputs.begin() + joint_in.num_forward_outputs);
  stack.insert(stack.end(), saved_values.begin(), saved_values.end());
  std::fill(visited.begin(), visited.end(), false);
  while (!stack.empty()) {
    const int v = stack.back();
    stack.pop_back();
    if (visited[static_cast<size_t>(v)]) continue;
    visited[static_cast<size_t>(v)] = true;
    const Value& value = joint.values[static_cast<size_t>(v)];
    if (value.origin != ValueOrigin::Node) continue;
    in_forward[static_cast<size_t>(value.producer)] = true;
    for (int in : joint.nodes[static_cast<size_t>(value.producer)].inputs) stack.push_back(in);
    if (value.storage_of != v) stack.push_back(value.storage_of);
  }

  std::vector<int> forward_nodes, backward_nodes;
  for (size_t n = 0; n < joint.nodes.size(); ++n) {
    if (in_forward[n]) {
      if (backward_node[n]) {
        throw_error(ErrorKind::Runtime, "compile: a forward output of a joint graph depends on a tangent");
      }
      forward_nodes.push_back(static_cast<int>(n));
    }
    if (in_backward[n]) backward_nodes.push_back(static_cast<int>(n));
  }
  std::vector<int> forward_outputs(joint.outputs.begin(), joint.outputs.begin() + joint_in.num_forward_outputs);
  forward_outputs.insert(forward_outputs.end(), saved_values.begin(), saved_values.end());
  result.forward = extract(joint, primals, forward_nodes, forward_outputs);
  // Updated inputs are primals ahead of every tangent, so their positions
  // among the primals are their positions among the joint graph's inputs.
  result.forward.input_updates = joint.input_updates;

  std::vector<int> backward_inputs = saved_values;
  for (size_t p = 0; p < primals.size(); ++p) {
    if (!primal_saved[static_cast<size_t>(primals[p])]) continue;
    result.saved_primals.push_back(static_cast<int>(p));
    backward_inputs.push_back(primals[p]);
  }
  backward_inputs.insert(backward_inputs.end(), tangents.begin(), tangents.end());
  result.num_saved_values = static_cast<int>(saved_values.size());
  result.backward =
      extract(joint, backward_inputs, backward_nodes,
              std::vector<int>(joint.outputs.begin() + joint_in.num_forward_outputs, joint.outputs.end()));
  return result;
}

}  // namespace ember::compile
