// Combining independent pointwise kernels into one (Note [Combo kernels]).
#include "compile/combo.h"

#include <algorithm>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace ember::compile {

using Json = nlohmann::ordered_json;

namespace {

bool is_pointwise(const Json& doc) {
  return std::all_of(doc["loops"].begin(), doc["loops"].end(),
                     [](const Json& loop) { return loop["extents"].empty(); });
}

// "pK", where a number may stand (a const's value is also "inf" or "nan").
bool is_parameter(const Json& value) { return value.is_string() && value.get<std::string>().starts_with("p"); }

// An index term or constant of a kernel whose launch parameters now start at `first`.
Json shifted_term(const Json& term, size_t first) {
  if (!is_parameter(term)) return term;
  std::string name = "p";
  name += std::to_string(std::stoll(term.get<std::string>().substr(1)) + static_cast<long long>(first));
  return name;
}

Json shifted_terms(const Json& terms, size_t first) {
  Json out = Json::array();
  for (const Json& t : terms) out.push_back(shifted_term(t, first));
  return out;
}

// One kernel whose loops are the pointwise kernels' outer spaces, in order.
FusedKernel combined(const std::vector<FusedKernel>& parts, const std::vector<Json>& docs) {
  FusedKernel k;
  Json buffers = Json::array();
  Json loops = Json::array();
  int64_t next_id = 0;
  for (size_t p = 0; p < parts.size(); ++p) {
    const FusedKernel& part = parts[p];
    const size_t first_param = k.params.size();
    k.params.insert(k.params.end(), part.params.begin(), part.params.end());
    std::vector<int> index(part.buffers.size());
    for (size_t b = 0; b < part.buffers.size(); ++b) {
      const auto same = std::find(k.buffers.begin(), k.buffers.end(), part.buffers[b]);
      if (same != k.buffers.end()) {
        index[b] = static_cast<int>(same - k.buffers.begin());
        continue;
      }
      index[b] = static_cast<int>(k.buffers.size());
      k.buffers.push_back(part.buffers[b]);
      k.buffer_is_output.push_back(part.buffer_is_output[b]);
      buffers.push_back(docs[p]["buffers"][b]);
    }
    const int64_t id_base = next_id;
    for (const Json& loop : docs[p]["loops"]) {
      Json body = Json::array();
      for (Json ins : loop["body"]) {
        if (ins.contains("id")) {
          ins["id"] = ins["id"].get<int64_t>() + id_base;
          next_id = std::max(next_id, ins["id"].get<int64_t>() + 1);
        }
        if (ins.contains("args")) {
          for (Json& a : ins["args"]) a = a.get<int64_t>() + id_base;
        }
        if (ins.contains("buffer")) {
          ins["buffer"] = index[ins["buffer"].get<size_t>()];
          ins["offset"] = shifted_term(ins["offset"], first_param);
          ins["strides"] = shifted_terms(ins["strides"], first_param);
        }
        if (ins["op"] == "const") ins["value"] = shifted_term(ins["value"], first_param);
        body.push_back(std::move(ins));
      }
      Json combined_loop;
      combined_loop["extents"] = shifted_terms(docs[p]["outer"], first_param);
      combined_loop["body"] = std::move(body);
      loops.push_back(std::move(combined_loop));
    }
    k.nodes.insert(k.nodes.end(), part.nodes.begin(), part.nodes.end());
    k.roots.insert(k.roots.end(), part.roots.begin(), part.roots.end());
    for (const std::string& op : part.ops) {
      if (std::find(k.ops.begin(), k.ops.end(), op) == k.ops.end()) k.ops.push_back(op);
    }
    for (const std::string& dtype : part.dtypes) {
      if (std::find(k.dtypes.begin(), k.dtypes.end(), dtype) == k.dtypes.end()) k.dtypes.push_back(dtype);
    }
  }
  std::sort(k.nodes.begin(), k.nodes.end());
  k.position = parts.back().position;
  const std::string& first = parts.front().name;  // "fused_mul_add"
  k.name = "combo" + std::to_string(parts.size()) + first.substr(std::min(first.find('_'), first.size()));
  if (k.name.size() > 60) k.name.resize(60);
  for (const FusedKernel& part : parts) k.ir_version = later_ir_version(k.ir_version, part.ir_version);
  Json doc;
  doc["ekir"] = k.ir_version;
  doc["name"] = k.name;
  doc["params"] = static_cast<int64_t>(k.params.size());
  doc["buffers"] = std::move(buffers);
  doc["outer"] = Json::array();
  doc["loops"] = std::move(loops);
  doc["hints"] = docs.front()["hints"];
  k.ekir = doc.dump();
  return k;
}

}  // namespace

std::vector<FusedKernel> combine_kernels(const Graph& graph, std::vector<FusedKernel> kernels) {
  std::stable_sort(kernels.begin(), kernels.end(),
                   [](const FusedKernel& a, const FusedKernel& b) { return a.position < b.position; });
  std::vector<FusedKernel> out;
  // The open combos, by level: a kernel's level is one more than the
  // highest level whose values it reads.
  struct Level {
    std::vector<FusedKernel> kernels;
    std::vector<Json> docs;
  };
  std::vector<Level> levels;
  std::map<int, size_t> level_of;  // value stored by an open combo -> its level
  const auto close = [&] {
    int position = -1;
    for (Level& level : levels) {
      FusedKernel k =
          level.kernels.size() == 1 ? std::move(level.kernels.front()) : combined(level.kernels, level.docs);
      // A level runs after the levels it reads.
      k.position = std::max(k.position, position);
      position = k.position;
      out.push_back(std::move(k));
    }
    levels.clear();
    level_of.clear();
  };
  const auto reads_open = [&](const std::vector<int>& values) {
    return std::any_of(values.begin(), values.end(), [&](int v) { return level_of.count(v) > 0; });
  };
  int previous = -1;
  for (FusedKernel& k : kernels) {
    // Extern calls between the last kernel and this one.
    for (int n = previous + 1; n < k.position; ++n) {
      const Node& node = graph.nodes[static_cast<size_t>(n)];
      if (node_kind(graph, node) != NodeKind::Extern) continue;
      std::vector<int> roots;
      for (int in : node.inputs) roots.push_back(graph.values[static_cast<size_t>(in)].storage_of);
      if (reads_open(roots)) close();
    }
    previous = k.position;
    std::vector<int> inputs;
    for (size_t i = 0; i < k.buffers.size(); ++i) {
      if (!k.buffer_is_output[i]) inputs.push_back(k.buffers[i]);
    }
    Json doc = Json::parse(k.ekir);
    if (!is_pointwise(doc)) {
      if (reads_open(inputs)) close();
      out.push_back(std::move(k));
      continue;
    }
    size_t level = 0;
    for (int v : inputs) {
      if (auto it = level_of.find(v); it != level_of.end()) level = std::max(level, it->second + 1);
    }
    if (level < levels.size() && levels[level].kernels.size() == kComboMostLoops) {
      close();
      level = 0;
    }
    if (level == levels.size()) levels.emplace_back();
    for (size_t i = 0; i < k.buffers.size(); ++i) {
      if (k.buffer_is_output[i]) level_of[k.buffers[i]] = level;
    }
    levels[level].kernels.push_back(std::move(k));
    levels[level].docs.push_back(std::move(doc));
  }
  close();
  std::stable_sort(out.begin(), out.end(),
                   [](const FusedKernel& a, const FusedKernel& b) { return a.position < b.position; });
  return out;
}

}  // namespace ember::compile
