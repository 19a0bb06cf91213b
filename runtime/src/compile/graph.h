#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <ember/ember_plugin.h>

#include "dispatch/op.h"
#include "ember/device.h"
#include "ember/dim_vector.h"
#include "ember/dtype.h"

namespace ember::compile {

// An attribute of a recorded op, owning what ember_attr borrows.
struct Attribute {
  std::string name;
  ember_attr_kind kind = EMBER_ATTR_INT;
  int64_t int_value = 0;
  double float_value = 0.0;
  std::vector<int64_t> ints;

  static Attribute from(const ember_attr& a);
  ember_attr view() const;  // borrows this attribute's storage
  std::string str() const;
};

// Where a graph value comes from.
enum class ValueOrigin : uint8_t {
  Input,     // a tensor the caller passes at every call (argument or captured)
  Constant,  // a one-element tensor made while tracing, folded into kernels
  Node,      // an output of a node
};

// A value: a tensor of the program, described by its metadata only. Strides
// and offset count elements of the value's storage; values made by views
// share their base value's storage (`storage_of`).
struct Value {
  ValueOrigin origin = ValueOrigin::Node;
  DType dtype = DType::Float32;
  Device device;
  DimVector sizes;
  DimVector strides;
  int64_t storage_offset = 0;
  int storage_of = -1;    // the value whose storage this one views (itself if none)
  int producer = -1;      // node index for ValueOrigin::Node
  int input_index = -1;   // position among the graph's inputs for ValueOrigin::Input
  double constant = 0.0;  // for ValueOrigin::Constant
};

// One op call of the program.
struct Node {
  dispatch::OpIndex op = 0;
  std::vector<int> inputs;   // value ids
  std::vector<int> outputs;  // value ids
  std::vector<Attribute> attrs;
  std::string location;  // the user's file:line, where known
  // The call wrote into given outputs (an in-place op, a conversion into a
  // new tensor); the graph holds its functional form, a new value.
  bool writes_output = false;

  const Attribute* find(const std::string& name) const;
};

// Note [Input updates]
// An in-place op on a tensor the program reads from outside (an argument,
// a parameter, a buffer, an optimizer's state) is recorded in its
// functional form, a new value; the program then returns that value, and
// a run copies it into the real tensor (the caller sees eager's effect)
// and hands back the real tensor where the program returns the value. A
// kernel may write it there itself instead (Note [In-place updates]).
struct InputUpdate {
  int output;  // position among the graph's outputs
  int input;   // position among the graph's inputs
};

// A captured program: values in definition order, nodes in program order.
struct Graph {
  std::vector<Value> values;
  std::vector<Node> nodes;
  std::vector<int> inputs;   // value ids, in call order
  std::vector<int> outputs;  // value ids the program returns
  std::vector<InputUpdate> input_updates;

  const dispatch::Op& op_of(const Node& node) const;
  // A readable listing, one line per node, that reads like the program.
  std::string code() const;
  // Everything that decides the compiled result, as text: equal signatures
  // compile to equal plans (the segment cache's key, Note [Graph breaks]).
  std::string signature() const;
};

std::string value_name(int id);

}  // namespace ember::compile
