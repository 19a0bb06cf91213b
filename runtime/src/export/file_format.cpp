// Note [Export file]
// An exported program is one safetensors file: the weights are its tensors,
// named as in the module's state_dict, and its `__metadata__` holds three
// strings: "format" ("ember.export"), "version" ("1") and "program", the
// graph as JSON (docs/export.md lists every field). So any safetensors
// reader sees the weights, and nothing in the file is code: loading parses
// JSON and copies bytes, then checks the graph node by node (Note
// [Checking a loaded graph]) before anything runs. The reader refuses what
// the safetensors reference refuses (ember/_safetensors.py, Note [What a
// safetensors file must be]), and repeated keys in any JSON object.
#include "export/file_format.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "core/shape.h"
#include "dispatch/op_registry.h"
#include "ember/error.h"
#include "ember/ops.h"
#include "ops/op_record.h"

namespace ember::exported {

using Json = nlohmann::ordered_json;

namespace {

constexpr uint64_t kMaxHeaderBytes = 100'000'000;
constexpr size_t kMaxJsonDepth = 127;

struct DTypeCode {
  DType dtype;
  const char* code;
};
constexpr DTypeCode kCodes[] = {{DType::Bool, "BOOL"},   {DType::UInt8, "U8"},      {DType::Int8, "I8"},
                                {DType::Int16, "I16"},   {DType::Int32, "I32"},     {DType::Int64, "I64"},
                                {DType::Float16, "F16"}, {DType::BFloat16, "BF16"}, {DType::Float32, "F32"},
                                {DType::Float64, "F64"}};

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw_error(ErrorKind::Value, "exported program file: " + where + ": " + what);
}

// ---- writing

Json expr_json(const SymExpr& e, const std::vector<std::string>& names) {
  if (e.is_constant()) return e.constant_value();
  if (const int s = e.as_symbol(); s >= 0) return names[static_cast<size_t>(s)];
  Json terms = Json::array();
  for (const SymExpr::Term& t : e.terms()) {
    Json term = Json::array({t.coef});
    for (int i = 0; i < kMaxSymbols; ++i) {
      for (int p = 0; p < t.power(i); ++p) term.push_back(names[static_cast<size_t>(i)]);
    }
    terms.push_back(std::move(term));
  }
  return terms;
}

Json float_json(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return x;
}

const char* origin_name(compile::ValueOrigin o) {
  switch (o) {
    case compile::ValueOrigin::Input:
      return "input";
    case compile::ValueOrigin::Constant:
      return "constant";
    case compile::ValueOrigin::Node:
      break;
  }
  return "node";
}

const char* structure_name(OutputStructure s) {
  return s == OutputStructure::Tensor ? "tensor" : s == OutputStructure::List ? "list" : "tuple";
}

Json program_json(const Program& p) {
  const std::vector<std::string> names = p.symbol_names();
  Json j;
  j["format"] = kFormatName;
  j["version"] = kFormatVersion;
  j["symbols"] = Json::array();
  for (const Symbol& s : p.symbols) j["symbols"].push_back({{"name", s.name}, {"min", s.min}, {"max", s.max}});
  j["example"] = Json::array();
  j["inputs"] = Json::array();
  for (const TensorSpec& in : p.inputs) j["inputs"].push_back(in.name);
  j["weights"] = Json::array();
  for (const TensorSpec& w : p.weights) j["weights"].push_back(w.name);
  j["output_structure"] = structure_name(p.output_structure);
  j["codegen"] = p.codegen;
  size_t next = 0;
  auto slot = [&]() { return expr_json(p.slots[next++], names); };
  Json values = Json::array();
  for (const compile::Value& v : p.graph.values) {
    Json jv;
    jv["origin"] = origin_name(v.origin);
    jv["dtype"] = std::string(dtype_name(v.dtype));
    jv["device"] = v.device.str();
    jv["shape"] = Json::array();
    for (size_t d = 0; d < v.sizes.size(); ++d) jv["shape"].push_back(slot());
    jv["strides"] = Json::array();
    for (size_t d = 0; d < v.strides.size(); ++d) jv["strides"].push_back(slot());
    jv["offset"] = slot();
    jv["storage_of"] = v.storage_of;
    if (v.origin == compile::ValueOrigin::Constant) jv["value"] = float_json(v.constant);
    values.push_back(std::move(jv));
  }
  Json nodes = Json::array();
  for (const compile::Node& n : p.graph.nodes) {
    Json jn;
    jn["op"] = p.graph.op_of(n).name();
    jn["inputs"] = n.inputs;
    jn["outputs"] = n.outputs;
    Json attrs = Json::array();
    for (const compile::Attribute& a : n.attrs) {
      Json ja{{"name", a.name}};
      switch (a.kind) {
        case EMBER_ATTR_INT:
          ja["int"] = slot();
          break;
        case EMBER_ATTR_BOOL:
          ja["bool"] = a.int_value != 0;
          break;
        case EMBER_ATTR_FLOAT:
          ja["float"] = float_json(a.float_value);
          break;
        case EMBER_ATTR_INTS:
          ja["ints"] = Json::array();
          for (size_t i = 0; i < a.ints.size(); ++i) ja["ints"].push_back(slot());
          break;
      }
      attrs.push_back(std::move(ja));
    }
    jn["attrs"] = std::move(attrs);
    if (n.writes_output) jn["writes_output"] = true;
    if (!n.location.empty()) jn["location"] = n.location;
    nodes.push_back(std::move(jn));
  }
  j["graph"] = {{"values", std::move(values)},
                {"nodes", std::move(nodes)},
                {"inputs", p.graph.inputs},
                {"outputs", p.graph.outputs}};
  // The example binding: the sizes the program was traced at.
  std::vector<int64_t> example;
  for (size_t s = 0; s < p.symbols.size(); ++s) {
    for (size_t i = 0; i < p.inputs.size(); ++i) {
      const compile::Value& v = p.graph.values[static_cast<size_t>(p.graph.inputs[i])];
      for (size_t d = 0; d < p.inputs[i].shape.size(); ++d) {
        if (p.inputs[i].shape[d].as_symbol() == static_cast<int>(s) && example.size() == s)
          example.push_back(v.sizes[d]);
      }
    }
  }
  j["example"] = example;
  return j;
}

// ---- reading

// Refuses a key twice in one object, and nesting past kMaxJsonDepth.
Json parse_json(std::string_view text, const std::string& where) {
  std::vector<std::set<std::string>> keys;
  std::string repeated;
  bool too_deep = false;
  Json::parser_callback_t callback = [&](int depth, Json::parse_event_t event, Json& parsed) {
    if (static_cast<size_t>(depth) > kMaxJsonDepth) too_deep = true;
    switch (event) {
      case Json::parse_event_t::object_start:
        keys.emplace_back();
        break;
      case Json::parse_event_t::object_end:
        if (!keys.empty()) keys.pop_back();
        break;
      case Json::parse_event_t::key:
        if (!keys.empty() && !keys.back().insert(parsed.get<std::string>()).second && repeated.empty()) {
          repeated = parsed.get<std::string>();
        }
        break;
      default:
        break;
    }
    return !too_deep;
  };
  Json j = Json::parse(text.begin(), text.end(), callback, /*allow_exceptions=*/false);
  if (too_deep) bad(where, "JSON nested deeper than " + std::to_string(kMaxJsonDepth));
  if (j.is_discarded()) bad(where, "not valid JSON");
  if (!repeated.empty()) bad(where, "the key '" + repeated + "' appears twice in one object");
  return j;
}

const Json& field(const Json& obj, const char* name, const std::string& where) {
  if (!obj.is_object()) bad(where, "expected an object");
  auto it = obj.find(name);
  if (it == obj.end()) bad(where, std::string("missing field '") + name + "'");
  return *it;
}

int64_t int_of(const Json& j, const std::string& where) {
  if (!j.is_number_integer() || (j.is_number_unsigned() && j.get<uint64_t>() > INT64_MAX)) {
    bad(where, "expected an integer in int64 range");
  }
  return j.get<int64_t>();
}

std::string string_of(const Json& j, const std::string& where) {
  if (!j.is_string()) bad(where, "expected a string");
  return j.get<std::string>();
}

const Json& array_of(const Json& j, const std::string& where) {
  if (!j.is_array()) bad(where, "expected an array");
  return j;
}

double float_of(const Json& j, const std::string& where) {
  if (j.is_number()) return j.get<double>();
  if (j == "nan") return NAN;
  if (j == "inf") return INFINITY;
  if (j == "-inf") return -INFINITY;
  bad(where, "expected a number, \"nan\", \"inf\" or \"-inf\"");
}

DType dtype_of(const Json& j, const std::string& where) {
  const std::string name = string_of(j, where);
  for (const DTypeCode& c : kCodes) {
    if (dtype_name(c.dtype) == name) return c.dtype;
  }
  bad(where, "unknown dtype '" + name + "'");
}

Device device_of(const Json& j, const std::string& where) {
  const std::string name = string_of(j, where);
  try {
    return Device(name);
  } catch (const std::exception& e) {
    bad(where, "bad device '" + name + "': " + e.what());
  }
}

int id_of(const Json& j, size_t limit, const std::string& where) {
  const int64_t id = int_of(j, where);
  if (id < 0 || static_cast<uint64_t>(id) >= limit) bad(where, "value id " + std::to_string(id) + " out of range");
  return static_cast<int>(id);
}

class ExprReader {
 public:
  explicit ExprReader(const std::vector<Symbol>& symbols) : symbols_(symbols) {}

  SymExpr read(const Json& j, const std::string& where) const {
    if (j.is_number()) return SymExpr::constant(int_of(j, where));
    if (j.is_string()) return SymExpr::symbol(symbol(j, where));
    std::vector<SymExpr::Term> terms;
    const Json& list = array_of(j, where);
    if (list.size() > 81) bad(where, "too many terms");
    for (const Json& term : list) {
      const Json& t = array_of(term, where);
      if (t.empty()) bad(where, "an empty term");
      SymExpr::Term out{int_of(t[0], where), 0};
      for (size_t i = 1; i < t.size(); ++i) {
        const int s = symbol(t[i], where);
        if (out.power(s) >= kMaxPower) bad(where, "a symbol to a power above " + std::to_string(kMaxPower));
        out.powers += 1u << (4 * s);
      }
      terms.push_back(out);
    }
    return SymExpr::of_terms(std::move(terms));
  }

 private:
  int symbol(const Json& j, const std::string& where) const {
    const std::string name = string_of(j, where);
    for (size_t i = 0; i < symbols_.size(); ++i) {
      if (symbols_[i].name == name) return static_cast<int>(i);
    }
    bad(where, "unknown symbol '" + name + "'");
  }
  const std::vector<Symbol>& symbols_;
};

compile::ValueOrigin origin_of(const Json& j, const std::string& where) {
  const std::string o = string_of(j, where);
  if (o == "input") return compile::ValueOrigin::Input;
  if (o == "constant") return compile::ValueOrigin::Constant;
  if (o == "node") return compile::ValueOrigin::Node;
  bad(where, "unknown origin '" + o + "'");
}

dispatch::OpIndex op_of(const Json& j, const std::string& where) {
  const std::string name = string_of(j, where);
  for (const ops::OpRecord& r : ops::op_records()) {
    if (name == r.name) return static_cast<dispatch::OpIndex>(r.id);
  }
  bad(where, "unknown op '" + name + "'");
}

// The program JSON, without its weights; sizes left at zero until instantiated.
std::shared_ptr<Program> program_from_json(const Json& j) {
  const std::string top = "program";
  if (string_of(field(j, "format", top), top + ".format") != kFormatName) bad(top, "not an ember.export program");
  const int64_t version = int_of(field(j, "version", top), top + ".version");
  if (version != kFormatVersion) {
    bad(top + ".version", "unknown version " + std::to_string(version) + " (this build reads version " +
                              std::to_string(kFormatVersion) + ")");
  }
  auto p = std::make_shared<Program>();
  const Json& symbols = array_of(field(j, "symbols", top), top + ".symbols");
  if (symbols.size() > static_cast<size_t>(kMaxSymbols)) bad(top + ".symbols", "too many symbols");
  for (size_t i = 0; i < symbols.size(); ++i) {
    const std::string where = top + ".symbols[" + std::to_string(i) + "]";
    Symbol s{string_of(field(symbols[i], "name", where), where + ".name"),
             int_of(field(symbols[i], "min", where), where + ".min"),
             int_of(field(symbols[i], "max", where), where + ".max")};
    if (s.name.empty() || s.min < 0 || s.max < s.min) bad(where, "needs a name and 0 <= min <= max");
    for (const Symbol& other : p->symbols) {
      if (other.name == s.name) bad(where, "the symbol '" + s.name + "' is declared twice");
    }
    p->symbols.push_back(std::move(s));
  }
  const ExprReader exprs(p->symbols);
  std::set<std::string> names;
  auto named = [&](const char* key, std::vector<TensorSpec>& out) {
    const Json& list = array_of(field(j, key, top), top + "." + key);
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string where = top + "." + key + "[" + std::to_string(i) + "]";
      std::string name = string_of(list[i], where);
      if (!names.insert(name).second) bad(where, "the name '" + name + "' appears twice");
      out.push_back(TensorSpec{std::move(name), DType::Float32, Device(), {}});
    }
  };
  named("inputs", p->inputs);
  named("weights", p->weights);
  const std::string structure = string_of(field(j, "output_structure", top), top + ".output_structure");
  if (structure == "tensor") {
    p->output_structure = OutputStructure::Tensor;
  } else if (structure == "tuple") {
    p->output_structure = OutputStructure::Tuple;
  } else if (structure == "list") {
    p->output_structure = OutputStructure::List;
  } else {
    bad(top + ".output_structure", "unknown structure '" + structure + "'");
  }
  const Json& codegen = field(j, "codegen", top);
  if (!codegen.is_boolean()) bad(top + ".codegen", "expected true or false");
  p->codegen = codegen.get<bool>();

  const std::string gw = top + ".graph";
  const Json& graph = field(j, "graph", top);
  const Json& values = array_of(field(graph, "values", gw), gw + ".values");
  const Json& nodes = array_of(field(graph, "nodes", gw), gw + ".nodes");
  compile::Graph& g = p->graph;
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string where = gw + ".values[" + std::to_string(i) + "]";
    const Json& jv = values[i];
    compile::Value v;
    v.origin = origin_of(field(jv, "origin", where), where + ".origin");
    v.dtype = dtype_of(field(jv, "dtype", where), where + ".dtype");
    v.device = device_of(field(jv, "device", where), where + ".device");
    const Json& shape = array_of(field(jv, "shape", where), where + ".shape");
    const Json& strides = array_of(field(jv, "strides", where), where + ".strides");
    if (shape.size() > kMaxDims || strides.size() != shape.size()) bad(where, "bad rank or strides");
    for (size_t d = 0; d < shape.size(); ++d) p->slots.push_back(exprs.read(shape[d], where + ".shape"));
    for (size_t d = 0; d < strides.size(); ++d) p->slots.push_back(exprs.read(strides[d], where + ".strides"));
    p->slots.push_back(exprs.read(field(jv, "offset", where), where + ".offset"));
    v.sizes = DimVector(shape.size());
    v.strides = DimVector(shape.size());
    v.storage_of = id_of(field(jv, "storage_of", where), values.size(), where + ".storage_of");
    if (v.origin == compile::ValueOrigin::Constant) v.constant = float_of(field(jv, "value", where), where + ".value");
    g.values.push_back(std::move(v));
  }
  for (size_t n = 0; n < nodes.size(); ++n) {
    const std::string where = gw + ".nodes[" + std::to_string(n) + "]";
    const Json& jn = nodes[n];
    compile::Node node;
    node.op = op_of(field(jn, "op", where), where + ".op");
    for (const Json& id : array_of(field(jn, "inputs", where), where + ".inputs")) {
      node.inputs.push_back(id_of(id, values.size(), where + ".inputs"));
    }
    for (const Json& id : array_of(field(jn, "outputs", where), where + ".outputs")) {
      const int out = id_of(id, values.size(), where + ".outputs");
      if (g.values[static_cast<size_t>(out)].producer >= 0) bad(where, "a value has two producers");
      g.values[static_cast<size_t>(out)].producer = static_cast<int>(n);
      node.outputs.push_back(out);
    }
    for (const Json& ja : array_of(field(jn, "attrs", where), where + ".attrs")) {
      compile::Attribute a;
      a.name = string_of(field(ja, "name", where), where + ".attrs.name");
      if (!ja.is_object() || ja.size() != 2) bad(where, "an attribute has a name and one value");
      if (ja.contains("int")) {
        a.kind = EMBER_ATTR_INT;
        p->slots.push_back(exprs.read(ja["int"], where + ".attrs." + a.name));
      } else if (ja.contains("bool")) {
        a.kind = EMBER_ATTR_BOOL;
        if (!ja["bool"].is_boolean()) bad(where + ".attrs." + a.name, "expected true or false");
        a.int_value = ja["bool"].get<bool>() ? 1 : 0;
      } else if (ja.contains("float")) {
        a.kind = EMBER_ATTR_FLOAT;
        a.float_value = float_of(ja["float"], where + ".attrs." + a.name);
      } else if (ja.contains("ints")) {
        a.kind = EMBER_ATTR_INTS;
        const Json& list = array_of(ja["ints"], where + ".attrs." + a.name);
        if (list.size() > 64) bad(where + ".attrs." + a.name, "too many integers");
        for (const Json& x : list) p->slots.push_back(exprs.read(x, where + ".attrs." + a.name));
        a.ints.assign(list.size(), 0);
      } else {
        bad(where + ".attrs." + a.name, "expected one of int, bool, float, ints");
      }
      node.attrs.push_back(std::move(a));
    }
    if (jn.contains("writes_output")) {
      if (!jn["writes_output"].is_boolean()) bad(where + ".writes_output", "expected true or false");
      node.writes_output = jn["writes_output"].get<bool>();
    }
    if (jn.contains("location")) node.location = string_of(jn["location"], where + ".location");
    g.nodes.push_back(std::move(node));
  }
  for (const Json& id : array_of(field(graph, "inputs", gw), gw + ".inputs")) {
    g.inputs.push_back(id_of(id, values.size(), gw + ".inputs"));
  }
  for (const Json& id : array_of(field(graph, "outputs", gw), gw + ".outputs")) {
    g.outputs.push_back(id_of(id, values.size(), gw + ".outputs"));
  }
  for (size_t i = 0; i < g.values.size(); ++i) {
    compile::Value& v = g.values[i];
    if (v.origin == compile::ValueOrigin::Input) {
      auto it = std::find(g.inputs.begin(), g.inputs.end(), static_cast<int>(i));
      v.input_index = it == g.inputs.end() ? -1 : static_cast<int>(it - g.inputs.begin());
    }
  }
  if (g.inputs.size() != p->inputs.size() + p->weights.size()) {
    bad(gw + ".inputs", std::to_string(g.inputs.size()) + " graph inputs for " + std::to_string(p->inputs.size()) +
                            " inputs and " + std::to_string(p->weights.size()) + " weights");
  }
  if (g.outputs.empty()) bad(gw + ".outputs", "the program returns nothing");
  if (p->output_structure == OutputStructure::Tensor && g.outputs.size() != 1) {
    bad(top + ".output_structure", "'tensor' with " + std::to_string(g.outputs.size()) + " outputs");
  }
  for (size_t i = 0; i < g.outputs.size(); ++i) p->output_names.push_back("output_" + std::to_string(i));

  const Json& example = array_of(field(j, "example", top), top + ".example");
  if (example.size() != p->symbols.size()) bad(top + ".example", "one size per symbol");
  std::vector<int64_t> at;
  for (size_t s = 0; s < example.size(); ++s) {
    at.push_back(int_of(example[s], top + ".example"));
    if (at.back() < p->symbols[s].min || at.back() > p->symbols[s].max) bad(top + ".example", "outside its range");
  }
  // Every integer at the example binding, checked; specs from the graph.
  p->graph = p->instantiate(at);
  size_t next = 0;
  for (size_t v = 0; v < g.values.size(); ++v) {
    const size_t rank = g.values[v].sizes.size();
    const int input = g.values[v].input_index;
    if (g.values[v].origin == compile::ValueOrigin::Input && input >= 0) {
      TensorSpec& spec = static_cast<size_t>(input) < p->inputs.size()
                             ? p->inputs[static_cast<size_t>(input)]
                             : p->weights[static_cast<size_t>(input) - p->inputs.size()];
      spec.dtype = g.values[v].dtype;
      spec.device = g.values[v].device;
      spec.shape.assign(p->slots.begin() + static_cast<std::ptrdiff_t>(next),
                        p->slots.begin() + static_cast<std::ptrdiff_t>(next + rank));
    }
    next += 2 * rank + 1;
  }
  for (const TensorSpec& w : p->weights) {
    for (const SymExpr& e : w.shape) {
      if (!e.is_constant()) bad(top + ".weights", "the weight '" + w.name + "' has a symbolic shape");
    }
  }
  return p;
}

struct Entry {
  std::string name;
  DType dtype;
  DimVector shape;
  uint64_t begin = 0;
  uint64_t end = 0;
};

}  // namespace

std::string serialize_program(const Program& p) {
  Json header;
  header["__metadata__"] = {
      {"format", kFormatName}, {"version", std::to_string(kFormatVersion)}, {"program", program_json(p).dump()}};
  std::vector<Tensor> host;
  uint64_t offset = 0;
  for (size_t i = 0; i < p.weights.size(); ++i) {
    Tensor t = p.weight_values[i].to(Device("cpu")).contiguous();
    const uint64_t nbytes = static_cast<uint64_t>(t.numel()) * itemsize(t.dtype());
    const char* code = nullptr;
    for (const DTypeCode& c : kCodes) {
      if (c.dtype == t.dtype()) code = c.code;
    }
    if (code == nullptr)
      throw_error(ErrorKind::Type, "export: cannot save a weight of dtype " + std::string(dtype_name(t.dtype())));
    header[p.weights[i].name] = {{"dtype", code},
                                 {"shape", std::vector<int64_t>(t.sizes().begin(), t.sizes().end())},
                                 {"data_offsets", {offset, offset + nbytes}}};
    offset += nbytes;
    host.push_back(std::move(t));
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::string out;
  const uint64_t length = text.size();
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((length >> (8 * i)) & 0xff));
  out += text;
  for (const Tensor& t : host) {
    out.append(static_cast<const char*>(t.data_ptr()), static_cast<size_t>(t.numel()) * itemsize(t.dtype()));
  }
  return out;
}

std::shared_ptr<Program> parse_program(std::string_view bytes) {
  if (bytes.size() < 8) bad("header", "the file is " + std::to_string(bytes.size()) + " bytes, too short");
  uint64_t length = 0;
  for (int i = 0; i < 8; ++i)
    length |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[static_cast<size_t>(i)])) << (8 * i);
  if (length > kMaxHeaderBytes || length > bytes.size() - 8) {
    bad("header", "header length " + std::to_string(length) + " does not fit the file (" +
                      std::to_string(bytes.size()) + " bytes)");
  }
  const Json header = parse_json(bytes.substr(8, length), "header");
  if (!header.is_object()) bad("header", "expected a JSON object");
  const std::string_view data = bytes.substr(8 + length);
  auto meta_it = header.find("__metadata__");
  if (meta_it == header.end() || !meta_it->is_object()) bad("header.__metadata__", "missing: not an exported program");
  for (const auto& [key, value] : meta_it->items()) {
    if (!value.is_string()) bad("header.__metadata__." + key, "expected a string");
  }
  const Json& meta = *meta_it;
  if (!meta.contains("format") || meta["format"] != kFormatName) {
    bad("header.__metadata__.format", "not an ember.export file");
  }
  if (!meta.contains("version") || meta["version"] != std::to_string(kFormatVersion)) {
    bad("header.__metadata__.version", "unknown version " +
                                           (meta.contains("version") ? meta["version"].dump() : "(none)") +
                                           " (this build reads version " + std::to_string(kFormatVersion) + ")");
  }
  if (!meta.contains("program")) bad("header.__metadata__.program", "missing");
  std::vector<Entry> entries;
  for (const auto& [name, j] : header.items()) {
    if (name == "__metadata__") continue;
    const std::string where = "header." + name;
    Entry e;
    e.name = name;
    const std::string code = string_of(field(j, "dtype", where), where + ".dtype");
    bool known = false;
    for (const DTypeCode& c : kCodes) {
      if (code == c.code) {
        e.dtype = c.dtype;
        known = true;
      }
    }
    if (!known) bad(where + ".dtype", "unknown dtype '" + code + "'");
    const Json& shape = array_of(field(j, "shape", where), where + ".shape");
    if (shape.size() > kMaxDims) bad(where + ".shape", "too many dims");
    uint64_t nbytes = itemsize(e.dtype);
    for (const Json& s : shape) {
      const int64_t size = int_of(s, where + ".shape");
      if (size < 0) bad(where + ".shape", "negative size");
      e.shape.push_back(size);
      if (size != 0 && nbytes > UINT64_MAX / static_cast<uint64_t>(size)) bad(where + ".shape", "the size overflows");
      nbytes *= static_cast<uint64_t>(size);
    }
    const Json& range = array_of(field(j, "data_offsets", where), where + ".data_offsets");
    if (range.size() != 2 || !range[0].is_number_unsigned() || !range[1].is_number_unsigned()) {
      bad(where + ".data_offsets", "expected [begin, end]");
    }
    e.begin = range[0].get<uint64_t>();
    e.end = range[1].get<uint64_t>();
    if (e.end < e.begin || e.end > data.size()) {
      bad(where + ".data_offsets", "the byte range [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
                                       ") lies outside the data (" + std::to_string(data.size()) + " bytes)");
    }
    if (e.end - e.begin != nbytes) bad(where + ".data_offsets", "the byte range does not match dtype and shape");
    entries.push_back(std::move(e));
  }
  std::vector<const Entry*> order;
  for (const Entry& e : entries) order.push_back(&e);
  std::sort(order.begin(), order.end(),
            [](const Entry* a, const Entry* b) { return std::tie(a->begin, a->end) < std::tie(b->begin, b->end); });
  uint64_t expected = 0;
  for (const Entry* e : order) {
    if (e->begin != expected) bad("header." + e->name + ".data_offsets", "tensors do not tile the data buffer");
    expected = e->end;
  }
  if (expected != data.size()) bad("data", "the data buffer has bytes no tensor names");

  std::shared_ptr<Program> p = program_from_json(parse_json(meta["program"].get<std::string>(), "program"));
  if (entries.size() != p->weights.size()) {
    bad("header", std::to_string(entries.size()) + " tensors for " + std::to_string(p->weights.size()) + " weights");
  }
  for (const TensorSpec& w : p->weights) {
    auto it = std::find_if(entries.begin(), entries.end(), [&](const Entry& e) { return e.name == w.name; });
    if (it == entries.end()) bad("header", "no tensor for the weight '" + w.name + "'");
    DimVector shape;
    for (const SymExpr& e : w.shape) shape.push_back(e.constant_value());
    if (it->dtype != w.dtype || it->shape != shape) {
      bad("header." + w.name, "the tensor is " + std::string(dtype_name(it->dtype)) + shape_str(it->shape) +
                                  ", the graph reads " + std::string(dtype_name(w.dtype)) + shape_str(shape));
    }
    const char* src = data.data() + it->begin;
    if (it->dtype == DType::Bool) {
      for (uint64_t b = 0; b < it->end - it->begin; ++b) {
        if (static_cast<unsigned char>(src[b]) > 1) bad("header." + w.name, "a bool byte other than 0 or 1");
      }
    }
    Tensor t = empty(it->shape, TensorOptions(it->dtype, Device("cpu")));
    if (it->end > it->begin) std::memcpy(t.data_ptr(), src, it->end - it->begin);
    p->weight_values.push_back(w.device == Device("cpu") ? t : t.to(w.device));
  }
  return p;
}

void save_program(const Program& program, const std::string& path) {
  const std::string bytes = serialize_program(program);
  std::string tmp = path + ".tmpXXXXXX";
  const int fd = mkstemp(tmp.data());
  if (fd < 0)
    throw_error(ErrorKind::Runtime, "export.save: cannot create a file beside " + path + ": " + std::strerror(errno));
  size_t written = 0;
  bool ok = true;
  while (ok && written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) written += static_cast<size_t>(n);
  }
  const int saved_errno = errno;
  ok = ok && ::fchmod(fd, 0644) == 0 && ::fsync(fd) == 0;
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(ok ? errno : saved_errno);
    ::unlink(tmp.c_str());
    throw_error(ErrorKind::Runtime, "export.save: cannot write " + path + ": " + why);
  }
}

std::shared_ptr<Program> load_program(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw_error(ErrorKind::Runtime, "export.load: cannot open " + path + ": " + std::strerror(errno));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw_error(ErrorKind::Runtime, "export.load: cannot read " + path);
  try {
    return parse_program(bytes);
  } catch (const Error& e) {
    // Whatever check refused it, the file is what was wrong.
    throw_error(ErrorKind::Value, std::string(e.what()) + " (in " + path + ")");
  }
}

}  // namespace ember::exported
