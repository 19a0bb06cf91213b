#include <ember/kernel_ir/ekir.h>

#include <ember/sdk/dtypes.hpp>
#include <ember/sdk/status.hpp>

#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

namespace ember::kernel_ir {
namespace {

using nlohmann::json;

// The catalogue's dtype groups (sdk/docs/ops.md).
enum class Group { all, numeric, integral, floating };

// What an op reads and yields. Ops with `bool_result` read operands of one
// dtype of `group` and yield bool; the others read and yield their dtype.
struct OpRecord {
  Op op;
  const char* name;
  int arity;
  Group group;
  bool bool_result;
};

constexpr OpRecord kOps[] = {
    {Op::load, "load", 0, Group::all, false},
    {Op::store, "store", 1, Group::all, false},
    {Op::constant, "const", 0, Group::all, false},
    {Op::cast, "cast", 1, Group::all, false},
    {Op::where, "where", 3, Group::all, false},
    {Op::reduce, "reduce", 1, Group::all, false},
    {Op::neg, "neg", 1, Group::numeric, false},
    {Op::abs, "abs", 1, Group::numeric, false},
    {Op::sign, "sign", 1, Group::numeric, false},
    {Op::exp, "exp", 1, Group::floating, false},
    {Op::log, "log", 1, Group::floating, false},
    {Op::log1p, "log1p", 1, Group::floating, false},
    {Op::expm1, "expm1", 1, Group::floating, false},
    {Op::sqrt, "sqrt", 1, Group::floating, false},
    {Op::rsqrt, "rsqrt", 1, Group::floating, false},
    {Op::sin, "sin", 1, Group::floating, false},
    {Op::cos, "cos", 1, Group::floating, false},
    {Op::tan, "tan", 1, Group::floating, false},
    {Op::tanh, "tanh", 1, Group::floating, false},
    {Op::sigmoid, "sigmoid", 1, Group::floating, false},
    {Op::erf, "erf", 1, Group::floating, false},
    {Op::erfc, "erfc", 1, Group::floating, false},
    {Op::asin, "asin", 1, Group::floating, false},
    {Op::acos, "acos", 1, Group::floating, false},
    {Op::atan, "atan", 1, Group::floating, false},
    {Op::reciprocal, "reciprocal", 1, Group::floating, false},
    {Op::floor, "floor", 1, Group::floating, false},
    {Op::ceil, "ceil", 1, Group::floating, false},
    {Op::round, "round", 1, Group::floating, false},
    {Op::trunc, "trunc", 1, Group::floating, false},
    {Op::bitwise_not, "bitwise_not", 1, Group::integral, false},
    {Op::logical_not, "logical_not", 1, Group::all, true},
    {Op::add, "add", 2, Group::all, false},
    {Op::sub, "sub", 2, Group::numeric, false},
    {Op::mul, "mul", 2, Group::all, false},
    {Op::div, "div", 2, Group::floating, false},
    {Op::floor_divide, "floor_divide", 2, Group::numeric, false},
    {Op::remainder, "remainder", 2, Group::numeric, false},
    {Op::pow, "pow", 2, Group::numeric, false},
    {Op::atan2, "atan2", 2, Group::floating, false},
    {Op::maximum, "maximum", 2, Group::all, false},
    {Op::minimum, "minimum", 2, Group::all, false},
    {Op::bitwise_and, "bitwise_and", 2, Group::integral, false},
    {Op::bitwise_or, "bitwise_or", 2, Group::integral, false},
    {Op::bitwise_xor, "bitwise_xor", 2, Group::integral, false},
    {Op::logical_and, "logical_and", 2, Group::all, true},
    {Op::logical_or, "logical_or", 2, Group::all, true},
    {Op::logical_xor, "logical_xor", 2, Group::all, true},
    {Op::eq, "eq", 2, Group::all, true},
    {Op::ne, "ne", 2, Group::all, true},
    {Op::lt, "lt", 2, Group::all, true},
    {Op::le, "le", 2, Group::all, true},
    {Op::gt, "gt", 2, Group::all, true},
    {Op::ge, "ge", 2, Group::all, true},
};

constexpr struct {
  ReduceKind kind;
  const char* name;
} kReduceKinds[] = {
    {ReduceKind::sum, "sum"}, {ReduceKind::prod, "prod"}, {ReduceKind::max, "max"}, {ReduceKind::min, "min"}};

const OpRecord& record_of(Op op) {
  for (const OpRecord& r : kOps) {
    if (r.op == op) return r;
  }
  sdk::fail(EMBER_STATUS_INTERNAL, "op without a record");
}

bool in_group(ember_dtype dtype, Group group) {
  switch (group) {
    case Group::all:
      return true;
    case Group::numeric:
      return dtype != EMBER_DTYPE_BOOL;
    case Group::integral:
      return !is_floating(dtype);
    case Group::floating:
      return is_floating(dtype);
  }
  return false;
}

const char* group_name(Group group) {
  switch (group) {
    case Group::all:
      return "any";
    case Group::numeric:
      return "a numeric";
    case Group::integral:
      return "an integral";
    case Group::floating:
      return "a floating";
  }
  return "";
}

[[noreturn]] void invalid(const std::string& where, const std::string& what) {
  sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "EKIR: " + where + ": " + what);
}

// What a JSON value is, for messages.
std::string describe(const json& value) {
  std::string text = value.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

const json& member(const json& object, const char* key, const std::string& where) {
  auto it = object.find(key);
  if (it == object.end()) invalid(where, "field '" + std::string(key) + "' is missing");
  return *it;
}

// A JSON number that is an integer of int64 range (2 and 2.0 alike).
std::optional<int64_t> as_int64(const json& value) {
  if (value.is_number_integer()) {
    if (value.is_number_unsigned() && value.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max())) {
      return std::nullopt;
    }
    return value.get<int64_t>();
  }
  if (value.is_number_float()) {
    const double d = value.get<double>();
    // 2^63 itself is out of range; every double below it converts exactly.
    if (std::nearbyint(d) == d && d >= -0x1p63 && d < 0x1p63) return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

int64_t integer_field(const json& object, const char* key, const std::string& where) {
  const json& value = member(object, key, where);
  const std::optional<int64_t> v = as_int64(value);
  if (!v) invalid(where, "field '" + std::string(key) + "' must be a 64-bit integer, not " + describe(value));
  return *v;
}

const std::string& string_field(const json& object, const char* key, const std::string& where) {
  const json& value = member(object, key, where);
  if (!value.is_string()) invalid(where, "field '" + std::string(key) + "' must be a string, not " + describe(value));
  return value.get_ref<const std::string&>();
}

const json& array_field(const json& object, const char* key, const std::string& where) {
  const json& value = member(object, key, where);
  if (!value.is_array()) invalid(where, "field '" + std::string(key) + "' must be an array, not " + describe(value));
  return value;
}

ember_dtype parse_dtype(const json& object, const std::string& where) {
  const std::string& name = string_field(object, "dtype", where);
  for (int d = 0; d < EMBER_DTYPE_COUNT_V1_0; ++d) {
    const auto dtype = static_cast<ember_dtype>(d);
    if (name == sdk::dtype_name(dtype)) return dtype;
  }
  invalid(where, "field 'dtype': unknown dtype '" + name + "'");
}

// An integer, or "pK" naming one of the kernel's `params` launch parameters.
Term parse_term(const json& value, int64_t params, const std::string& where, const std::string& field) {
  if (const std::optional<int64_t> v = as_int64(value)) return Term{false, *v};
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    const bool digits = text.size() >= 2 && text.size() <= 19 && text[0] == 'p' &&
                        text.find_first_not_of("0123456789", 1) == std::string::npos;
    if (digits) {
      const int64_t k = std::stoll(text.substr(1));
      if (k >= params) {
        invalid(where, field + ": '" + text + "' names a launch parameter, but the kernel has " +
                           std::to_string(params) + " (\"params\")");
      }
      return Term{true, k};
    }
  }
  invalid(where, field + " must be an integer or a launch parameter \"pK\", not " + describe(value));
}

std::vector<Term> parse_extents(const json& list, int64_t params, const std::string& where, const char* key) {
  std::vector<Term> extents;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string field = std::string("field '") + key + "'[" + std::to_string(i) + "]";
    Term t = parse_term(list[i], params, where, field);
    if (!t.is_param && t.value < 0) invalid(where, field + " is negative (" + std::to_string(t.value) + ")");
    extents.push_back(t);
  }
  return extents;
}

// Since EKIR 1.2 a constant of these dtypes may be a launch parameter: the
// values a parameter can hold that the dtype holds exactly are the ones the
// core passes, so the conversion never rounds.
bool takes_parameter_constants(ember_dtype dtype) {
  return dtype == EMBER_DTYPE_FLOAT32 || dtype == EMBER_DTYPE_FLOAT64 ||
         (!is_floating(dtype) && dtype != EMBER_DTYPE_BOOL);
}

Constant parse_constant(const json& value, ember_dtype dtype, int64_t params, bool parameters_allowed,
                        const std::string& where) {
  Constant c;
  const std::string bad = "field 'value': " + describe(value) + " is not a " + sdk::dtype_name(dtype) + " value";
  if (value.is_string() && value.get_ref<const std::string&>().starts_with("p")) {
    if (!parameters_allowed) invalid(where, bad + " (a launch parameter as a constant needs EKIR 1.2)");
    if (!takes_parameter_constants(dtype)) {
      invalid(where, bad + " (a launch parameter converts only to an integer dtype, float32 or float64)");
    }
    c.param = parse_term(value, params, where, "field 'value'").value;
    return c;
  }
  if (dtype == EMBER_DTYPE_BOOL) {
    if (!value.is_boolean()) invalid(where, bad + " (bool constants are true or false)");
    c.integer = value.get<bool>() ? 1 : 0;
    return c;
  }
  if (is_floating(dtype)) {
    if (value.is_string()) {
      const std::string& s = value.get_ref<const std::string&>();
      if (s == "inf") return Constant{std::numeric_limits<double>::infinity(), 0};
      if (s == "-inf") return Constant{-std::numeric_limits<double>::infinity(), 0};
      if (s == "nan") return Constant{std::numeric_limits<double>::quiet_NaN(), 0};
      invalid(where, bad + " (the strings are \"inf\", \"-inf\" and \"nan\")");
    }
    if (!value.is_number()) invalid(where, bad);
    c.number = value.get<double>();
    return c;
  }
  const std::optional<int64_t> v = as_int64(value);
  if (!v) invalid(where, bad);
  int64_t low = std::numeric_limits<int64_t>::min();
  int64_t high = std::numeric_limits<int64_t>::max();
  const int bits = static_cast<int>(sdk::element_size(dtype)) * 8;
  if (dtype == EMBER_DTYPE_UINT8) {
    low = 0;
    high = 255;
  } else if (bits < 64) {
    low = -(int64_t{1} << (bits - 1));
    high = (int64_t{1} << (bits - 1)) - 1;
  }
  if (*v < low || *v > high) invalid(where, bad + " (out of range)");
  c.integer = *v;
  return c;
}

// Where each id was defined, and whether later instructions may use it.
struct Definition {
  ValueRef ref;
  bool visible_later = false;  // set once its loop is over (kernel-ir.md "Loops and scopes")
};

class Parser {
 public:
  Kernel parse(const json& doc) {
    if (!doc.is_object()) invalid("document", "must be a JSON object, not " + describe(doc));
    const std::string& version = string_field(doc, "ekir", "document");
    if (version != "1.0" && version != "1.1" && version != "1.2") {
      invalid("document",
              "field 'ekir': version '" + version + "' is not one this generator reads (1.0, 1.1, 1.2)");
    }
    version_ = version;
    kernel_.name = string_field(doc, "name", "document");
    kernel_.params = integer_field(doc, "params", "document");
    if (kernel_.params < 0) invalid("document", "field 'params' is negative");
    parse_buffers(array_field(doc, "buffers", "document"));
    kernel_.outer = parse_extents(array_field(doc, "outer", "document"), kernel_.params, "document", "outer");
    const json& loops = array_field(doc, "loops", "document");
    for (size_t l = 0; l < loops.size(); ++l) parse_loop(loops[l], static_cast<int>(l));
    if (auto hints = doc.find("hints"); hints != doc.end()) parse_hints(*hints);
    check_inout_buffers();
    return std::move(kernel_);
  }

 private:
  void parse_buffers(const json& list) {
    for (size_t b = 0; b < list.size(); ++b) {
      const std::string where = "buffer " + std::to_string(b);
      if (!list[b].is_object()) invalid(where, "must be an object, not " + describe(list[b]));
      Buffer buffer;
      buffer.dtype = parse_dtype(list[b], where);
      const std::string& role = string_field(list[b], "role", where);
      if (role == "input") {
        buffer.role = BufferRole::input;
      } else if (role == "output") {
        buffer.role = BufferRole::output;
      } else if (role == "inout" && version_ != "1.0") {
        buffer.role = BufferRole::inout;
      } else {
        invalid(where, "field 'role': '" + role + "' is not \"input\", \"output\" or (since EKIR 1.1) \"inout\"");
      }
      kernel_.buffers.push_back(buffer);
    }
  }

  void parse_hints(const json& hints) {
    if (!hints.is_object()) invalid("hints", "must be an object, not " + describe(hints));
    if (auto it = hints.find("deterministic"); it != hints.end()) {
      if (!it->is_boolean()) invalid("hints", "field 'deterministic' must be true or false, not " + describe(*it));
      kernel_.deterministic = it->get<bool>();
    }
  }

  void parse_loop(const json& object, int index) {
    const std::string where = "loop " + std::to_string(index);
    if (!object.is_object()) invalid(where, "must be an object, not " + describe(object));
    Loop& loop = kernel_.loops.emplace_back();
    loop.extents = parse_extents(array_field(object, "extents", where), kernel_.params, where, "extents");
    const json& body = array_field(object, "body", where);
    for (size_t i = 0; i < body.size(); ++i) {
      loop.body.push_back(parse_instruction(body[i], index, static_cast<int>(i)));
    }
    // kernel-ir.md "Loops and scopes": a later loop sees this loop's reduce
    // results, and all its values when it has no extents.
    for (int64_t id : loop_ids_) {
      Definition& definition = definitions_.at(id);
      definition.visible_later = kernel_.at(definition.ref).op == Op::reduce || loop.extents.empty();
    }
    loop_ids_.clear();
  }

  Instruction parse_instruction(const json& object, int loop, int index) {
    if (!object.is_object()) {
      invalid(describe_instruction(std::nullopt, loop, index, ""), "must be an object, not " + describe(object));
    }
    Instruction ins;
    if (auto it = object.find("id"); it != object.end()) {
      const std::optional<int64_t> id = as_int64(*it);
      if (!id) {
        invalid(describe_instruction(std::nullopt, loop, index, ""),
                "field 'id' must be a 64-bit integer, not " + describe(*it));
      }
      ins.id = *id;
    }
    const std::string& name = string_field(object, "op", describe_instruction(ins.id, loop, index, ""));
    const OpRecord* record = nullptr;
    for (const OpRecord& r : kOps) {
      if (name == r.name) record = &r;
    }
    if (record == nullptr) {
      invalid(describe_instruction(ins.id, loop, index, ""), "field 'op': unknown op '" + name + "'");
    }
    ins.op = record->op;
    const std::string where = describe_instruction(ins.id, loop, index, name);
    if (ins.op != Op::store) {
      if (!ins.id) invalid(where, "field 'id' is missing");
      ins.dtype = parse_dtype(object, where);
    }
    parse_args(object, *record, loop, where, ins);
    parse_operands(object, *record, where, ins);
    if (ins.id) {
      auto [it, fresh] = definitions_.emplace(*ins.id, Definition{ValueRef{loop, index}});
      if (!fresh) {
        invalid(where, "field 'id': " + std::to_string(*ins.id) + " is already the id of loop " +
                           std::to_string(it->second.ref.loop) + ", position " + std::to_string(it->second.ref.index));
      }
      loop_ids_.push_back(*ins.id);
    }
    return ins;
  }

  // Resolves `args` to visible values (kernel-ir.md "Loops and scopes").
  void parse_args(const json& object, const OpRecord& record, int loop, const std::string& where, Instruction& ins) {
    if (record.arity == 0) return;
    const json& args = array_field(object, "args", where);
    if (static_cast<int>(args.size()) != record.arity) {
      invalid(where, "field 'args' has " + std::to_string(args.size()) + " values, '" + record.name + "' takes " +
                         std::to_string(record.arity));
    }
    for (size_t a = 0; a < args.size(); ++a) {
      const std::string field = "field 'args'[" + std::to_string(a) + "]";
      const std::optional<int64_t> id = as_int64(args[a]);
      if (!id) invalid(where, field + " must be an id, not " + describe(args[a]));
      auto it = definitions_.find(*id);
      if (it == definitions_.end()) {
        invalid(where, field + ": value " + std::to_string(*id) + " is not defined before it");
      }
      const Definition& d = it->second;
      const bool same_loop = d.ref.loop == loop;
      const Op source = kernel_.at(d.ref).op;
      if (same_loop && source == Op::reduce) {
        invalid(where, field + ": value " + std::to_string(*id) +
                           " is a reduce of this loop, whose result only later loops see");
      }
      if (!same_loop && !d.visible_later) {
        invalid(where, field + ": value " + std::to_string(*id) + " is out of scope (a per-element value of loop " +
                           std::to_string(d.ref.loop) + ", whose extents are not [])");
      }
      if (source == Op::store) invalid(where, field + ": " + std::to_string(*id) + " is a store, which has no value");
      ins.args.push_back(d.ref);
    }
  }

  ember_dtype arg_dtype(const Instruction& ins, size_t a) const { return kernel_.at(ins.args[a]).dtype; }

  void require_arg_dtype(const Instruction& ins, size_t a, ember_dtype dtype, const std::string& where) const {
    if (arg_dtype(ins, a) != dtype) {
      invalid(where, "field 'args'[" + std::to_string(a) + "] is " + sdk::dtype_name(arg_dtype(ins, a)) + ", " +
                         op_name(ins.op) + " needs " + sdk::dtype_name(dtype));
    }
  }

  // Checks the op's own fields and the dtypes of its result and operands.
  void parse_operands(const json& object, const OpRecord& record, const std::string& where, Instruction& ins) {
    switch (ins.op) {
      case Op::load:
      case Op::store:
        parse_access(object, where, ins);
        return;
      case Op::constant:
        ins.constant =
            parse_constant(member(object, "value", where), ins.dtype, kernel_.params, version_ == "1.2", where);
        return;
      case Op::cast:
        return;
      case Op::where:
        require_arg_dtype(ins, 0, EMBER_DTYPE_BOOL, where);
        require_arg_dtype(ins, 1, ins.dtype, where);
        require_arg_dtype(ins, 2, ins.dtype, where);
        return;
      case Op::reduce: {
        const std::string& kind = string_field(object, "kind", where);
        bool known = false;
        for (const auto& k : kReduceKinds) {
          if (kind == k.name) ins.kind = k.kind, known = true;
        }
        if (!known) invalid(where, "field 'kind': unknown reduce kind '" + kind + "' (sum, prod, max, min)");
        require_arg_dtype(ins, 0, ins.dtype, where);
        return;
      }
      default:
        break;
    }
    const ember_dtype operand = record.bool_result ? arg_dtype(ins, 0) : ins.dtype;
    if (record.bool_result && ins.dtype != EMBER_DTYPE_BOOL) {
      invalid(where,
              "field 'dtype': '" + std::string(record.name) + "' yields bool, not " + sdk::dtype_name(ins.dtype));
    }
    if (!in_group(operand, record.group)) {
      invalid(where, std::string(record.bool_result ? "field 'args'" : "field 'dtype'") + ": '" + record.name +
                         "' takes " + group_name(record.group) + " dtype, not " + sdk::dtype_name(operand));
    }
    for (size_t a = 0; a < ins.args.size(); ++a) require_arg_dtype(ins, a, operand, where);
  }

  void parse_access(const json& object, const std::string& where, Instruction& ins) {
    const int64_t buffer = integer_field(object, "buffer", where);
    if (buffer < 0 || buffer >= static_cast<int64_t>(kernel_.buffers.size())) {
      invalid(where, "field 'buffer': " + std::to_string(buffer) + " is not a buffer index (the kernel has " +
                         std::to_string(kernel_.buffers.size()) + ")");
    }
    ins.buffer = static_cast<int>(buffer);
    const Buffer& b = kernel_.buffers[ins.buffer];
    ins.offset = parse_term(member(object, "offset", where), kernel_.params, where, "field 'offset'");
    const json& strides = array_field(object, "strides", where);
    const size_t expected = kernel_.outer.size() + kernel_.loops.back().extents.size();
    if (strides.size() != expected) {
      invalid(where, "field 'strides' has " + std::to_string(strides.size()) + " terms, the loop nest has " +
                         std::to_string(expected) + " dimensions (" + std::to_string(kernel_.outer.size()) +
                         " outer, " + std::to_string(kernel_.loops.back().extents.size()) + " of the loop)");
    }
    for (size_t s = 0; s < strides.size(); ++s) {
      ins.strides.push_back(
          parse_term(strides[s], kernel_.params, where, "field 'strides'[" + std::to_string(s) + "]"));
    }
    if (ins.op == Op::load) {
      if (ins.dtype != b.dtype) {
        invalid(where, std::string("field 'dtype' is ") + sdk::dtype_name(ins.dtype) + ", buffer " +
                           std::to_string(buffer) + " holds " + sdk::dtype_name(b.dtype));
      }
      return;
    }
    ins.dtype = b.dtype;
    if (b.role == BufferRole::input) {
      invalid(where, "field 'buffer': buffer " + std::to_string(buffer) + " is an input; a store writes an output");
    }
    require_arg_dtype(ins, 0, b.dtype, where);
  }

  // An inout buffer has one store; every load of it is in that store's
  // loop, before it, at the element it writes (kernel-ir.md, `buffers`).
  void check_inout_buffers() const {
    for (size_t b = 0; b < kernel_.buffers.size(); ++b) {
      if (kernel_.buffers[b].role != BufferRole::inout) continue;
      const std::string where = "buffer " + std::to_string(b);
      std::optional<ValueRef> store;
      for (size_t l = 0; l < kernel_.loops.size(); ++l) {
        const std::vector<Instruction>& body = kernel_.loops[l].body;
        for (size_t i = 0; i < body.size(); ++i) {
          if (body[i].op != Op::store || body[i].buffer != static_cast<int>(b)) continue;
          if (store) invalid(where, "is inout and stored more than once");
          store = ValueRef{static_cast<int>(l), static_cast<int>(i)};
        }
      }
      if (!store) invalid(where, "is inout and never stored");
      const Instruction& written = kernel_.at(*store);
      for (size_t l = 0; l < kernel_.loops.size(); ++l) {
        const std::vector<Instruction>& body = kernel_.loops[l].body;
        for (size_t i = 0; i < body.size(); ++i) {
          const Instruction& ins = body[i];
          if (ins.op != Op::load || ins.buffer != static_cast<int>(b)) continue;
          const bool before_store = static_cast<int>(l) == store->loop && static_cast<int>(i) < store->index;
          if (!before_store || !(ins.offset == written.offset) || ins.strides != written.strides) {
            invalid(describe_instruction(ins.id, static_cast<int>(l), static_cast<int>(i), "load"),
                    "reads inout " + where + " other than at the element its store writes, before that store");
          }
        }
      }
    }
  }

  std::string version_;
  Kernel kernel_;
  std::map<int64_t, Definition> definitions_;
  std::vector<int64_t> loop_ids_;  // defined in the loop being parsed
};

}  // namespace

std::string describe_instruction(std::optional<int64_t> id, int loop, int index, const std::string& op) {
  std::string text = id ? "instruction " + std::to_string(*id) : "instruction at position " + std::to_string(index);
  text += " (loop " + std::to_string(loop);
  if (!op.empty()) text += ", op '" + op + "'";
  return text + ")";
}

Kernel parse_ekir(std::string_view text) {
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, std::string("EKIR: not valid JSON: ") + e.what());
  }
  return Parser().parse(doc);
}

const char* op_name(Op op) { return record_of(op).name; }

const char* reduce_kind_name(ReduceKind kind) {
  for (const auto& k : kReduceKinds) {
    if (k.kind == kind) return k.name;
  }
  return "";
}

std::string all_op_names() {
  std::string names;
  for (const OpRecord& r : kOps) names += (names.empty() ? "" : " ") + std::string(r.name);
  return names;
}

bool is_floating(ember_dtype dtype) {
  return dtype == EMBER_DTYPE_FLOAT16 || dtype == EMBER_DTYPE_BFLOAT16 || dtype == EMBER_DTYPE_FLOAT32 ||
         dtype == EMBER_DTYPE_FLOAT64;
}

bool is_reduced_float(ember_dtype dtype) { return dtype == EMBER_DTYPE_FLOAT16 || dtype == EMBER_DTYPE_BFLOAT16; }

bool is_integer(ember_dtype dtype) { return dtype != EMBER_DTYPE_BOOL && !is_floating(dtype); }

bool is_signed_integer(ember_dtype dtype) { return is_integer(dtype) && dtype != EMBER_DTYPE_UINT8; }

bool is_math_function(Op op) {
  switch (op) {
    case Op::exp:
    case Op::log:
    case Op::log1p:
    case Op::expm1:
    case Op::sin:
    case Op::cos:
    case Op::tan:
    case Op::tanh:
    case Op::sigmoid:
    case Op::erf:
    case Op::erfc:
    case Op::asin:
    case Op::acos:
    case Op::atan:
    case Op::pow:
    case Op::atan2:
      return true;
    default:
      return false;
  }
}

}  // namespace ember::kernel_ir
