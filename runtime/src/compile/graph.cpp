#include "compile/graph.h"

#include <sstream>

#include "core/shape.h"
#include "dispatch/op_registry.h"

namespace ember::compile {

Attribute Attribute::from(const ember_attr& a) {
  Attribute out;
  out.name = a.name;
  out.kind = a.kind;
  out.int_value = a.int_value;
  out.float_value = a.float_value;
  if (a.kind == EMBER_ATTR_INTS) out.ints.assign(a.ints, a.ints + a.num_ints);
  return out;
}

ember_attr Attribute::view() const {
  ember_attr a{};
  a.struct_size = sizeof(ember_attr);
  a.name = name.c_str();
  a.kind = kind;
  a.int_value = int_value;
  a.float_value = float_value;
  a.ints = ints.data();
  a.num_ints = static_cast<int64_t>(ints.size());
  return a;
}

std::string Attribute::str() const {
  std::ostringstream s;
  s << name << "=";
  switch (kind) {
    case EMBER_ATTR_INT:
      s << int_value;
      break;
    case EMBER_ATTR_BOOL:
      s << (int_value ? "True" : "False");
      break;
    case EMBER_ATTR_FLOAT:
      s.precision(17);
      s << float_value;
      break;
    case EMBER_ATTR_INTS:
      s << shape_str(ints);
      break;
  }
  return s.str();
}

const Attribute* Node::find(const std::string& name) const {
  for (const Attribute& a : attrs) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

const dispatch::Op& Graph::op_of(const Node& node) const { return dispatch::OpRegistry::get().at(node.op); }

std::string value_name(int id) { return "v" + std::to_string(id); }

namespace {

std::string describe(const Value& v) { return std::string(dtype_name(v.dtype)) + shape_str(v.sizes); }

}  // namespace

std::string Graph::code() const {
  std::ostringstream s;
  s << "def forward(";
  for (size_t i = 0; i < inputs.size(); ++i) s << (i ? ", " : "") << value_name(inputs[i]);
  s << "):\n";
  for (const Node& node : nodes) {
    s << "    ";
    for (size_t i = 0; i < node.outputs.size(); ++i) s << (i ? ", " : "") << value_name(node.outputs[i]);
    s << " = " << op_of(node).name() << "(";
    bool first = true;
    for (int in : node.inputs) {
      s << (first ? "" : ", ");
      first = false;
      const Value& v = values[static_cast<size_t>(in)];
      if (v.origin == ValueOrigin::Constant) {
        s << v.constant;
      } else {
        s << value_name(in);
      }
    }
    for (const Attribute& a : node.attrs) {
      s << (first ? "" : ", ") << a.str();
      first = false;
    }
    s << ")  # " << describe(values[static_cast<size_t>(node.outputs[0])]);
    if (!node.location.empty()) s << "  " << node.location;
    s << "\n";
  }
  s << "    return (";
  for (size_t i = 0; i < outputs.size(); ++i) s << (i ? ", " : "") << value_name(outputs[i]);
  s << (outputs.size() == 1 ? ",)\n" : ")\n");
  return s.str();
}

std::string Graph::signature() const {
  std::ostringstream s;
  s.precision(17);
  for (size_t id = 0; id < values.size(); ++id) {
    const Value& v = values[id];
    s << 'v' << static_cast<int>(v.origin) << ':' << dtype_name(v.dtype) << ':' << v.device.str() << ':'
      << shape_str(v.sizes) << shape_str(v.strides) << v.storage_offset << ':' << v.storage_of << ':' << v.producer
      << ':' << v.input_index << ':' << v.constant << ';';
  }
  for (const Node& node : nodes) {
    s << 'n' << node.op;
    for (int in : node.inputs) s << ',' << in;
    s << '>';
    for (int out : node.outputs) s << ',' << out;
    for (const Attribute& a : node.attrs) s << '|' << a.str();
    s << ';';
  }
  s << 'o';
  for (int out : outputs) s << ',' << out;
  for (const InputUpdate& u : input_updates) s << 'u' << u.output << '>' << u.input;
  return s.str();
}

}  // namespace ember::compile
