#include "compile/passes.h"

#include <map>
#include <string>

namespace ember::compile {
namespace {

std::string node_key(const Node& node, const std::vector<int>& replaced) {
  std::string key = std::to_string(node.op) + (node.writes_output ? "w" : "") + "(";
  for (int in : node.inputs) key += std::to_string(replaced[static_cast<size_t>(in)]) + ",";
  key += ")";
  for (const Attribute& a : node.attrs) key += a.str() + ";";
  return key;
}

}  // namespace

Graph simplify(const Graph& graph) {
  // Common subexpressions: later duplicates read the first one's outputs.
  std::vector<int> replaced(graph.values.size());
  for (size_t v = 0; v < replaced.size(); ++v) replaced[v] = static_cast<int>(v);
  std::map<std::string, int> first;
  std::vector<bool> keep(graph.nodes.size(), true);
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    auto [it, inserted] = first.emplace(node_key(node, replaced), static_cast<int>(n));
    if (inserted) continue;
    const Node& original = graph.nodes[static_cast<size_t>(it->second)];
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      replaced[static_cast<size_t>(node.outputs[i])] = replaced[static_cast<size_t>(original.outputs[i])];
    }
    keep[n] = false;
  }
  // Dead code: a node none of whose values is read.
  std::vector<bool> read(graph.values.size(), false);
  for (int out : graph.outputs) read[static_cast<size_t>(replaced[static_cast<size_t>(out)])] = true;
  for (size_t n = graph.nodes.size(); n-- > 0;) {
    if (!keep[n]) continue;
    const Node& node = graph.nodes[n];
    bool live = false;
    for (int out : node.outputs) live |= read[static_cast<size_t>(out)];
    // A view's storage is its base's: reading the view keeps the base's producer.
    if (!live) {
      keep[n] = false;
      continue;
    }
    for (int in : node.inputs) {
      const int v = replaced[static_cast<size_t>(in)];
      read[static_cast<size_t>(v)] = true;
      read[static_cast<size_t>(graph.values[static_cast<size_t>(v)].storage_of)] = true;
    }
  }
  // Renumber: inputs and constants stay, values of dropped nodes go.
  std::vector<int> renumbered(graph.values.size(), -1);
  Graph out;
  auto add_value = [&](int v) {
    if (renumbered[static_cast<size_t>(v)] < 0) {
      renumbered[static_cast<size_t>(v)] = static_cast<int>(out.values.size());
      out.values.push_back(graph.values[static_cast<size_t>(v)]);
    }
    return renumbered[static_cast<size_t>(v)];
  };
  for (int in : graph.inputs) out.inputs.push_back(add_value(in));
  for (size_t v = 0; v < graph.values.size(); ++v) {
    if (graph.values[v].origin == ValueOrigin::Constant && read[v]) add_value(static_cast<int>(v));
  }
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (!keep[n]) continue;
    Node node = graph.nodes[n];
    for (int& in : node.inputs) in = add_value(replaced[static_cast<size_t>(in)]);
    for (int& o : node.outputs) {
      o = add_value(o);
      out.values[static_cast<size_t>(o)].producer = static_cast<int>(out.nodes.size());
    }
    out.nodes.push_back(std::move(node));
  }
  for (Value& v : out.values) {
    v.storage_of = renumbered[static_cast<size_t>(replaced[static_cast<size_t>(v.storage_of)])];
  }
  for (int o : graph.outputs) out.outputs.push_back(add_value(replaced[static_cast<size_t>(o)]));
  out.input_updates = graph.input_updates;
  return out;
}

}  // namespace ember::compile
