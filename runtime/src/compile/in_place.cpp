// Kernels that write graph inputs' updates in place (Note [In-place updates]).
#include "compile/in_place.h"

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

namespace ember::compile {

using Json = nlohmann::ordered_json;

namespace {

bool is_floating_name(const std::string& dtype) {
  return dtype == "float16" || dtype == "bfloat16" || dtype == "float32" || dtype == "float64";
}

// An integer divisor of 0 or an integer to a negative power makes a
// generated kernel report a fault after it ran (Note [Kernel faults]).
bool can_fault(const Json& doc) {
  for (const Json& loop : doc["loops"]) {
    for (const Json& ins : loop["body"]) {
      const std::string op = ins["op"].get<std::string>();
      const bool integer_math = op == "div" || op == "floor_divide" || op == "remainder" || op == "pow";
      if (integer_math && !is_floating_name(ins["dtype"].get<std::string>())) return true;
    }
  }
  return false;
}

int buffer_of(const FusedKernel& kernel, int value, bool output) {
  for (size_t i = 0; i < kernel.buffers.size(); ++i) {
    if (kernel.buffers[i] == value && kernel.buffer_is_output[i] == output) return static_cast<int>(i);
  }
  return -1;
}

// Does the kernel load `input` only at the element it stores `output`, before
// that store, and never load `output`?
bool reads_only_where_it_writes(const Json& doc, int input, int output) {
  for (const Json& loop : doc["loops"]) {
    const Json* store = nullptr;
    for (const Json& ins : loop["body"]) {
      if (ins["op"] == "store" && ins["buffer"] == output) store = &ins;
    }
    bool stored = false;
    for (const Json& ins : loop["body"]) {
      if (&ins == store) stored = true;
      if (ins["op"] != "load") continue;
      if (ins["buffer"] == output) return false;
      if (ins["buffer"] != input) continue;
      if (store == nullptr || stored || ins["offset"] != (*store)["offset"] || ins["strides"] != (*store)["strides"]) {
        return false;
      }
    }
  }
  return true;
}

bool same_layout(const Value& a, const Value& b) {
  return a.dtype == b.dtype && a.sizes == b.sizes && a.strides == b.strides && a.storage_offset == b.storage_offset;
}

// Does step `s` read the storage of graph value `root`?
bool reads_storage(const Graph& graph, const StepView& s, int root) {
  if (s.kernel != nullptr) return buffer_of(*s.kernel, root, false) >= 0;
  for (int in : graph.nodes[static_cast<size_t>(s.node)].inputs) {
    if (graph.values[static_cast<size_t>(in)].storage_of == root) return true;
  }
  return false;
}

}  // namespace

InPlacePlan plan_in_place(const Graph& graph, const std::vector<StepView>& steps) {
  InPlacePlan plan;
  plan.writes.resize(steps.size());
  std::vector<Json> docs(steps.size());
  plan.commit = steps.size();
  while (plan.commit > 0) {
    const StepView& s = steps[plan.commit - 1];
    if (s.kernel == nullptr) break;
    docs[plan.commit - 1] = Json::parse(s.kernel->ekir);
    if (can_fault(docs[plan.commit - 1])) break;
    --plan.commit;
  }
  for (const InputUpdate& u : graph.input_updates) {
    const int input = graph.inputs[static_cast<size_t>(u.input)];
    const int value = graph.outputs[static_cast<size_t>(u.output)];
    const Value& in = graph.values[static_cast<size_t>(input)];
    const Value& out = graph.values[static_cast<size_t>(value)];
    const auto targets_input = [&](const InputUpdate& other) { return other.input == u.input; };
    const auto is_value = [&](const InputUpdate& other) {
      return graph.outputs[static_cast<size_t>(other.output)] == value;
    };
    if (std::count_if(graph.input_updates.begin(), graph.input_updates.end(), targets_input) != 1 ||
        std::count_if(graph.input_updates.begin(), graph.input_updates.end(), is_value) != 1 ||
        in.storage_of != input || out.storage_of != value || !same_layout(in, out)) {
      continue;
    }
    const bool returned = std::any_of(graph.outputs.begin(), graph.outputs.end(), [&](int o) {
      return graph.values[static_cast<size_t>(o)].storage_of == input;
    });
    if (returned) continue;
    for (size_t i = plan.commit; i < steps.size(); ++i) {
      const int output_buffer = buffer_of(*steps[i].kernel, value, true);
      if (output_buffer < 0) continue;
      const bool read_later =
          std::any_of(steps.begin() + static_cast<std::ptrdiff_t>(i) + 1, steps.end(),
                      [&](const StepView& later) { return reads_storage(graph, later, input); });
      if (!read_later &&
          reads_only_where_it_writes(docs[i], buffer_of(*steps[i].kernel, input, false), output_buffer)) {
        plan.writes[i].push_back(InPlaceWrite{output_buffer, u.input, value});
      }
      break;
    }
  }
  return plan;
}

FusedKernel with_inout_buffers(const Graph& graph, const FusedKernel& kernel, std::vector<InPlaceWrite>& writes) {
  FusedKernel out = kernel;
  Json doc = Json::parse(kernel.ekir);
  Json& buffers = doc["buffers"];
  // Each output buffer becomes the input's buffer (or, where the kernel
  // does not load the input, takes its place); dropped buffers shift the
  // later ones down.
  std::vector<int> renamed(kernel.buffers.size());
  std::vector<bool> dropped(kernel.buffers.size(), false);
  for (size_t b = 0; b < renamed.size(); ++b) renamed[b] = static_cast<int>(b);
  for (InPlaceWrite& w : writes) {
    const int input = graph.inputs[static_cast<size_t>(w.input)];
    const int loaded = buffer_of(kernel, input, false);
    if (loaded >= 0) {
      renamed[static_cast<size_t>(w.buffer)] = loaded;
      dropped[static_cast<size_t>(w.buffer)] = true;
    }
    const int inout = loaded >= 0 ? loaded : w.buffer;
    buffers[static_cast<size_t>(inout)]["role"] = "inout";
    out.buffers[static_cast<size_t>(inout)] = input;
    out.buffer_is_output[static_cast<size_t>(inout)] = true;
  }
  std::vector<int> shifted(kernel.buffers.size());
  int next = 0;
  for (size_t b = 0; b < shifted.size(); ++b) shifted[b] = dropped[b] ? -1 : next++;
  for (size_t b = 0; b < renamed.size(); ++b) renamed[b] = shifted[static_cast<size_t>(renamed[b])];
  for (Json& loop : doc["loops"]) {
    for (Json& ins : loop["body"]) {
      if (ins.contains("buffer")) ins["buffer"] = renamed[ins["buffer"].get<size_t>()];
    }
  }
  for (size_t b = kernel.buffers.size(); b-- > 0;) {
    if (!dropped[b]) continue;
    buffers.erase(b);
    out.buffers.erase(out.buffers.begin() + static_cast<std::ptrdiff_t>(b));
    out.buffer_is_output.erase(out.buffer_is_output.begin() + static_cast<std::ptrdiff_t>(b));
  }
  for (InPlaceWrite& w : writes) w.buffer = renamed[static_cast<size_t>(w.buffer)];
  out.ir_version = later_ir_version(kernel.ir_version, "1.1");
  doc["ekir"] = out.ir_version;
  out.ekir = doc.dump();
  return out;
}

}  // namespace ember::compile
