// The op records (Note [One record per op]) agree with the registry, the
// Autograd step's derivatives, sdk/docs/ops.md and the conformance kit's
// cases, so an op added without one of them fails here.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <ember/ember.h>

#include "autograd/derivatives.h"
#include "dispatch/op_registry.h"
#include "op_case.h"
#include "ops/op_record.h"

namespace {

using ember::dispatch::OpKind;
using ember::ops::DTypeRule;
using ember::ops::OpRecord;

// Ops whose outputs carry no gradient although no elementwise dtype rule
// makes them bool or integer: each entry says why.
const std::set<std::string> kGradientFreeByNature = {
    "fill",
    "arange",
    "uniform",
    "normal",  // no tensor input
    "argmax",
    "argmin",  // int64 indices
    // Backward kernels: derivatives call them only with grad mode off and
    // differentiate the decomposition otherwise.
    "conv2d_backward_weight",
    "conv3d_backward_weight",
    "max_pool2d_backward",
    "avg_pool2d_backward",
    "gelu_backward",
    "scaled_dot_product_attention_backward",
    "softmax_backward",
    "log_softmax_backward",
    "layer_norm_backward",
    "cross_entropy_backward",
    "lstm_layer_backward",
    "lstm_layer_workspace_bytes",  // a size in bytes
    // Optimizer updates write parameters in place with grad mode off.
    "adam_update",
    "sgd_update",
    "rmsprop_update",
};

bool bool_or_integer_result(DTypeRule rule) {
  return rule == DTypeRule::Integral || rule == DTypeRule::Any || rule == DTypeRule::Bitwise ||
         rule == DTypeRule::Compare;
}

std::string read_file(const char* path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

TEST(OpRecords, RegistryHoldsEveryRecordInOpIdOrder) {
  const auto records = ember::ops::op_records();
  const auto& ops = ember::dispatch::OpRegistry::get().ops();
  ASSERT_EQ(records.size(), static_cast<size_t>(ember::dispatch::kNumOps));
  ASSERT_EQ(ops.size(), records.size());
  std::set<std::string> names;
  for (size_t i = 0; i < records.size(); ++i) {
    const OpRecord& r = records[i];
    EXPECT_EQ(static_cast<size_t>(r.id), i) << r.name;
    EXPECT_TRUE(names.insert(r.name).second) << "two records named " << r.name;
    EXPECT_EQ(ops[i]->name(), r.name);
    EXPECT_EQ(ops[i]->index(), i);
    EXPECT_EQ(ops[i]->schema().kind, r.kind) << r.name;
    EXPECT_EQ(ops[i]->schema().abi_minor, r.abi_minor) << r.name;
    EXPECT_NE(r.meta, nullptr) << r.name << " has no meta function";
    EXPECT_EQ(&ember::dispatch::op(r.id), ops[i].get());
  }
}

TEST(OpRecords, EveryDifferentiableOpHasItsDerivative) {
  ember::dispatch::OpRegistry::get();  // fills the derivative table
  for (const OpRecord& r : ember::ops::op_records()) {
    EXPECT_EQ(ember::autograd::find_derivative(static_cast<ember::dispatch::OpIndex>(r.id)), r.derivative) << r.name;
    const bool gradient_free = bool_or_integer_result(r.dtype_rule) || kGradientFreeByNature.count(r.name) > 0;
    if (gradient_free) {
      EXPECT_EQ(r.derivative, nullptr) << r.name << " carries no gradient but its record names a derivative";
    } else {
      EXPECT_NE(r.derivative, nullptr) << r.name << " has floating outputs and no derivative in its record";
    }
  }
}

TEST(OpRecords, ViewsAreTheCoresOwnAndHiddenFromBackends) {
  std::set<std::string> backend_visible;
  for (const ember::CatalogueOp& op : ember::catalogue_ops()) backend_visible.insert(op.name);
  int views = 0;
  for (const OpRecord& r : ember::ops::op_records()) {
    if (r.kind != OpKind::View) {
      EXPECT_TRUE(backend_visible.count(r.name)) << r.name << " is missing from catalogue_ops()";
      continue;
    }
    ++views;
    EXPECT_FALSE(backend_visible.count(r.name)) << "view op " << r.name << " is offered to backends";
    EXPECT_EQ(r.num_inputs, 1) << r.name;
    EXPECT_EQ(r.num_outputs, 1) << r.name;
  }
  EXPECT_GE(views, 9);
}

// Every attribute a record names is spelled, in backticks, in ops.md (views:
// in docs/dispatch.md, which documents them).
TEST(OpRecords, AttributesAreTheDocumentedOnes) {
  const std::string ops_md = read_file(EMBER_OPS_MD);
  const std::string dispatch_md = read_file(EMBER_DISPATCH_MD);
  ASSERT_FALSE(ops_md.empty());
  ASSERT_FALSE(dispatch_md.empty());
  for (const OpRecord& r : ember::ops::op_records()) {
    const std::string& doc = r.kind == OpKind::View ? dispatch_md : ops_md;
    std::istringstream words(r.attributes);
    for (std::string attribute; words >> attribute;) {
      EXPECT_NE(doc.find("`" + attribute + "`"), std::string::npos)
          << r.name << "'s attribute " << attribute << " is not documented";
    }
    if (r.kind == OpKind::View) {
      EXPECT_NE(dispatch_md.find("`" + std::string(r.name) + "`"), std::string::npos)
          << "view op " << r.name << " is not documented in docs/dispatch.md";
    }
  }
}

TEST(OpRecords, EveryBackendOpHasAConformanceCase) {
  std::set<std::string> cased;
  for (const auto& c : ember::conformance::all_op_cases()) cased.insert(c.op);
  for (const OpRecord& r : ember::ops::op_records()) {
    if (r.kind == OpKind::View) continue;
    EXPECT_TRUE(cased.count(r.name)) << r.name << " has no case in the conformance kit";
  }
  for (const std::string& op : cased) {
    EXPECT_NE(ember::dispatch::OpRegistry::get().find(op), nullptr) << "the kit has a case for unknown op " << op;
  }
}

// A view and a broadcast reach the dispatcher: their results are views of
// the input's storage made by the view op's meta function, and the Autograd
// step names their nodes after the op.
TEST(OpRecords, ViewsAndBroadcastsAreDispatchedOps) {
  const ember::Tensor x = ember::ones({3, 1}).requires_grad_(true);
  const ember::Tensor y = x + ember::ones({4});
  ASSERT_EQ(y.grad_fn()->next_edges().size(), 2u);
  EXPECT_EQ(y.grad_fn()->next_edges()[0].node->name(), "ExpandBackward0");
  const ember::Tensor v = x.transpose(0, 1);
  EXPECT_EQ(v.grad_fn()->name(), "TransposeBackward0");
  EXPECT_TRUE(v.impl()->is_view());
  EXPECT_TRUE(v.is_alias_of(x));
}

}  // namespace
