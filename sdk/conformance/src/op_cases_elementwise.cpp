// Op cases of the elementwise families: unary, binary, where and copy
// (Note [Op cases]).
#include <ember/ops.h>

#include "op_case.h"

namespace ember::conformance {

namespace {

using UnaryFn = Tensor (*)(const Tensor&);
using BinaryFn = Tensor (*)(const Tensor&, const Tensor&);

Tensor expand_rows(const Tensor& t) { return t.expand({4, t.size(1)}); }

OpCase unary_case(const std::string& op, std::vector<DType> dtypes, UnaryFn fn, Values domain = Values::Normal) {
  const OpCall call = [fn](const Tensors& in, DType, Device) { return Tensors{fn(in[0])}; };
  return {op, std::move(dtypes),
          {
              {"contiguous", {{.shape = {3, 5}, .values = domain}}, call, 1, true},
              {"0-d", {{.shape = {}, .values = domain}}, call},
              {"empty", {{.shape = {0, 4}, .values = domain}}, call},
              {"transposed", {{.shape = {5, 3}, .values = domain, .view = transposed}}, call},
              {"expanded", {{.shape = {1, 6}, .values = domain, .view = expand_rows}}, call},
              {"strided", {{.shape = {9, 3}, .values = domain, .view = every_other}}, call},
              {"special values", {{.shape = {16}, .values = Values::Special}}, call},
              {"large odd size", {{.shape = {257, 129}, .values = domain}}, call},
          }};
}

struct BinaryDomains {
  Values a = Values::Normal;
  Values b = Values::Normal;
  Values special_b = Values::Special;  // what b holds beside a's special values
};

OpCase binary_case(const std::string& op, std::vector<DType> dtypes, BinaryFn fn, BinaryDomains d = {}) {
  const OpCall call = [fn](const Tensors& in, DType, Device) { return Tensors{fn(in[0], in[1])}; };
  const OpCall same_tensor = [fn](const Tensors& in, DType, Device) { return Tensors{fn(in[0], in[0])}; };
  return {op, std::move(dtypes),
          {
              {"contiguous", {{.shape = {3, 5}, .values = d.a}, {.shape = {3, 5}, .values = d.b}}, call, 1, true},
              {"broadcast", {{.shape = {4, 1}, .values = d.a}, {.shape = {1, 5}, .values = d.b}}, call, 1, true},
              {"0-d and tensor", {{.shape = {}, .values = d.a}, {.shape = {3, 4}, .values = d.b}}, call},
              {"tensor and 0-d", {{.shape = {3, 4}, .values = d.a}, {.shape = {}, .values = d.b}}, call},
              {"empty", {{.shape = {0, 3}, .values = d.a}, {.shape = {1, 3}, .values = d.b}}, call},
              {"non-contiguous",
               {{.shape = {5, 3}, .values = d.a, .view = transposed},
                {.shape = {6, 5}, .values = d.b, .view = every_other}},
               call},
              {"expanded",
               {{.shape = {1, 7}, .values = d.a, .view = expand_rows}, {.shape = {4, 7}, .values = d.b}},
               call},
              {"same tensor twice", {{.shape = {4, 5}, .values = d.b}}, same_tensor},
              {"special values", {{.shape = {16}, .values = Values::Special}, {.shape = {16}, .values = d.special_b}},
               call},
              {"large odd size", {{.shape = {257, 129}, .values = d.a}, {.shape = {129}, .values = d.b}}, call},
          }};
}

std::vector<DType> with_bool(std::vector<DType> dtypes) {
  dtypes.insert(dtypes.begin(), DType::Bool);
  return dtypes;
}

OpCase where_case() {
  const OpCall call = [](const Tensors& in, DType, Device) { return Tensors{where(in[0], in[1], in[2])}; };
  const InputSpec cond{.shape = {3, 5}, .values = Values::Bool, .dtype = DType::Bool};
  return {"where", all_dtypes(),
          {
              {"contiguous", {cond, {.shape = {3, 5}}, {.shape = {3, 5}}}, call, 1, true},
              {"broadcast",
               {{.shape = {3, 1}, .values = Values::Bool, .dtype = DType::Bool}, {.shape = {1, 5}}, {.shape = {}}},
               call},
              {"non-contiguous",
               {{.shape = {5, 3}, .values = Values::Bool, .dtype = DType::Bool, .view = transposed},
                {.shape = {6, 5}, .view = every_other},
                {.shape = {5, 3}, .view = transposed}},
               call},
              {"empty", {{.shape = {0, 2}, .values = Values::Bool, .dtype = DType::Bool}, {.shape = {0, 2}},
                         {.shape = {0, 2}}},
               call},
              {"special values",
               {{.shape = {16}, .values = Values::Bool, .dtype = DType::Bool}, {.shape = {16}, .values = Values::Special},
                {.shape = {16}}},
               call},
          }};
}

// copy converts into every dtype: one variation per target.
OpCase copy_case() {
  OpCase c{"copy", all_dtypes(), {}};
  for (DType target : all_dtypes()) {
    // Same dtype: clone() still runs the kernel, to() would alias.
    const OpCall call = [target](const Tensors& in, DType dtype, Device) {
      return Tensors{dtype == target ? in[0].clone() : in[0].to(target)};
    };
    const std::string to = std::string(" to ") + std::string(dtype_name(target));
    c.variations.push_back({"contiguous" + to, {{.shape = {3, 5}, .values = Values::Positive}}, call});
    c.variations.push_back(
        {"transposed" + to, {{.shape = {5, 3}, .values = Values::Positive, .view = transposed}}, call});
    c.variations.push_back(
        {"expanded" + to, {{.shape = {1, 6}, .values = Values::Positive, .view = expand_rows}}, call});
    c.variations.push_back({"0-d" + to, {{.shape = {}, .values = Values::Positive}}, call});
    c.variations.push_back({"empty" + to, {{.shape = {0, 3}}}, call});
  }
  // Special values survive conversions between floating dtypes only (float
  // to integer is undefined out of range, as in C).
  for (DType target : floating_dtypes()) {
    const OpCall call = [target](const Tensors& in, DType dtype, Device) {
      return Tensors{dtype == target ? in[0].clone() : in[0].to(target)};
    };
    const OpCall only_floating = [call](const Tensors& in, DType dtype, Device device) {
      return is_floating(dtype) ? call(in, dtype, device) : Tensors{};
    };
    c.variations.push_back({"special values to " + std::string(dtype_name(target)),
                            {{.shape = {16}, .values = Values::Special}}, only_floating});
  }
  return c;
}

}  // namespace

std::vector<OpCase> elementwise_cases() {
  const auto floating = floating_dtypes();
  const auto numeric = numeric_dtypes();
  return {
      unary_case("neg", numeric, &neg),
      unary_case("abs", numeric, &ember::abs),
      unary_case("sign", numeric, &sign),
      unary_case("exp", floating, &ember::exp),
      unary_case("log", floating, &ember::log, Values::Positive),
      unary_case("log1p", floating, &ember::log1p, Values::Positive),
      unary_case("expm1", floating, &ember::expm1),
      unary_case("sqrt", floating, &ember::sqrt, Values::Positive),
      unary_case("rsqrt", floating, &ember::rsqrt, Values::Positive),
      unary_case("sin", floating, &ember::sin),
      unary_case("cos", floating, &ember::cos),
      unary_case("tan", floating, &ember::tan, Values::NearOne),
      unary_case("tanh", floating, &ember::tanh),
      unary_case("sigmoid", floating, &sigmoid),
      unary_case("erf", floating, &ember::erf),
      unary_case("erfc", floating, &ember::erfc),
      unary_case("erfinv", floating, &ember::erfinv, Values::Unit),
      unary_case("asin", floating, &ember::asin, Values::Unit),
      unary_case("acos", floating, &ember::acos, Values::Unit),
      unary_case("atan", floating, &ember::atan),
      unary_case("lgamma", floating, &ember::lgamma, Values::Positive),
      unary_case("digamma", floating, &ember::digamma, Values::Positive),
      unary_case("reciprocal", floating, &reciprocal, Values::NonZero),
      unary_case("floor", floating, &ember::floor),
      unary_case("ceil", floating, &ember::ceil),
      unary_case("round", floating, &ember::round),
      unary_case("trunc", floating, &ember::trunc),
      unary_case("logical_not", all_dtypes(), &logical_not),
      unary_case("bitwise_not", integral_dtypes(), &bitwise_not),
      binary_case("add", with_bool(numeric), +[](const Tensor& a, const Tensor& b) { return add(a, b); }),
      binary_case("sub", numeric, +[](const Tensor& a, const Tensor& b) { return sub(a, b); }),
      binary_case("mul", with_bool(numeric), +[](const Tensor& a, const Tensor& b) { return mul(a, b); }),
      binary_case("div", floating, +[](const Tensor& a, const Tensor& b) { return div(a, b); },
                  {Values::Normal, Values::NonZero, Values::Special}),
      // Integer division by zero is an error and INT_MIN / -1 overflows:
      // divisors stay positive there.
      binary_case("floor_divide", numeric, &floor_divide, {Values::Normal, Values::Positive, Values::Positive}),
      binary_case("remainder", numeric, &remainder, {Values::Normal, Values::Positive, Values::Positive}),
      binary_case("pow", numeric, +[](const Tensor& a, const Tensor& b) { return pow(a, b); },
                  {Values::Positive, Values::SmallNonNegative, Values::SmallNonNegative}),
      binary_case("maximum", all_dtypes(), &maximum),
      binary_case("minimum", all_dtypes(), &minimum),
      // b stays away from 0, where the gradient's 1 / (a^2 + b^2) grows.
      binary_case("atan2", floating, &ember::atan2, {Values::Normal, Values::NonZero, Values::Special}),
      binary_case("bitwise_and", integral_dtypes(), &bitwise_and),
      binary_case("bitwise_or", integral_dtypes(), &bitwise_or),
      binary_case("bitwise_xor", integral_dtypes(), &bitwise_xor),
      binary_case("logical_and", all_dtypes(), &logical_and),
      binary_case("logical_or", all_dtypes(), &logical_or),
      binary_case("logical_xor", all_dtypes(), &logical_xor),
      binary_case("eq", all_dtypes(), +[](const Tensor& a, const Tensor& b) { return eq(a, b); }),
      binary_case("ne", all_dtypes(), +[](const Tensor& a, const Tensor& b) { return ne(a, b); }),
      binary_case("lt", all_dtypes(), +[](const Tensor& a, const Tensor& b) { return lt(a, b); }),
      binary_case("le", all_dtypes(), +[](const Tensor& a, const Tensor& b) { return le(a, b); }),
      binary_case("gt", all_dtypes(), +[](const Tensor& a, const Tensor& b) { return gt(a, b); }),
      binary_case("ge", all_dtypes(), +[](const Tensor& a, const Tensor& b) { return ge(a, b); }),
      where_case(),
      copy_case(),
  };
}

}  // namespace ember::conformance
