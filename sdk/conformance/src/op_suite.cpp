#include "op_suite.h"

#include <chrono>
#include <map>

#include <ember/ember.h>

#include "gradient_check.h"
#include "input_values.h"
#include "op_case.h"
#include "tensor_compare.h"

namespace ember::conformance {

namespace {

enum class VariationOutcome { Matched, Mismatched, DeviceLacks, ReferenceLacks };

struct VariationResult {
  VariationOutcome outcome = VariationOutcome::Matched;
  std::string message;
  double max_error = 0;
};

bool is_not_implemented(const Error& e) { return e.kind() == ErrorKind::NotImplemented; }

// The inputs of one variation on one device, views applied.
Tensors place_inputs(const Variation& variation, const Tensors& host, Device device) {
  Tensors placed;
  for (size_t i = 0; i < host.size(); ++i) {
    const Tensor moved = host[i].to(device);
    placed.push_back(variation.inputs[i].view ? variation.inputs[i].view(moved) : moved);
  }
  return placed;
}

Tensors make_host_inputs(const OpCase& op_case, const Variation& variation, DType dtype) {
  Tensors host;
  for (size_t i = 0; i < variation.inputs.size(); ++i) {
    host.push_back(make_input(variation.inputs[i], dtype, seed_for(op_case.op, variation.name, i)));
  }
  return host;
}

std::string describe_inputs(const Variation& variation, const Tensors& host) {
  std::string text;
  for (size_t i = 0; i < host.size(); ++i) {
    const Tensor shown = variation.inputs[i].view ? variation.inputs[i].view(host[i]) : host[i];
    text += "\n      input " + std::to_string(i) + ": " + describe_tensor(shown);
  }
  return text;
}

VariationResult run_variation(const OpCase& op_case, const Variation& variation, DType dtype, Device device) {
  VariationResult result;
  const Tensors host = make_host_inputs(op_case, variation, dtype);
  Tensors expected;
  try {
    expected = variation.call(place_inputs(variation, host, Device("cpu")), dtype, Device("cpu"));
  } catch (const std::exception& e) {
    return {VariationOutcome::ReferenceLacks, std::string("the CPU reference failed: ") + e.what(), 0};
  }
  Tensors actual;
  try {
    actual = variation.call(place_inputs(variation, host, device), dtype, device);
  } catch (const Error& e) {
    return {is_not_implemented(e) ? VariationOutcome::DeviceLacks : VariationOutcome::Mismatched,
            "'" + variation.name + "' raised: " + e.what() + describe_inputs(variation, host), 0};
  }
  for (size_t k = 0; k < expected.size(); ++k) {
    const Comparison comparison = compare(actual[k], expected[k], variation.tolerance_scale);
    result.max_error = std::max(result.max_error, comparison.max_error);
    if (!comparison.ok) {
      result.outcome = VariationOutcome::Mismatched;
      result.message = "'" + variation.name + "' output " + std::to_string(k) + ": " + comparison.problem +
                       describe_inputs(variation, host);
      return result;
    }
  }
  return result;
}

// Microseconds per call of `variation` on `device`, after one warm-up call.
double time_variation(const OpCase& op_case, const Variation& variation, DType dtype, Device device) {
  constexpr int kRepeats = 5;
  const Tensors inputs = place_inputs(variation, make_host_inputs(op_case, variation, dtype), device);
  variation.call(inputs, dtype, device);
  synchronize(device);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kRepeats; ++i) variation.call(inputs, dtype, device);
  synchronize(device);
  const std::chrono::duration<double, std::micro> elapsed = std::chrono::steady_clock::now() - start;
  return elapsed.count() / kRepeats;
}

const Variation& largest_variation(const OpCase& op_case) {
  const Variation* largest = &op_case.variations.front();
  int64_t most = -1;
  for (const Variation& v : op_case.variations) {
    int64_t elements = 0;
    for (const InputSpec& spec : v.inputs) {
      int64_t n = 1;
      for (int64_t s : spec.shape) n *= s;
      elements += n;
    }
    if (elements > most) most = elements, largest = &v;
  }
  return *largest;
}

OpResult run_op_dtype(const OpCase& op_case, const CatalogueOp& op, DType dtype, const DeviceUnderTest& target,
                      bool perf) {
  OpResult result;
  result.op = op.name;
  result.dtype = dtype;
  const bool has_kernel = target.provides(op.name, dtype);
  if (!has_kernel && !op.composite) {
    result.coverage = Coverage::NotRegistered;
    return result;
  }
  std::string lacking;
  for (const Variation& variation : op_case.variations) {
    const VariationResult v = run_variation(op_case, variation, dtype, target.device);
    result.max_error = std::max(result.max_error, v.max_error);
    if (v.outcome == VariationOutcome::Mismatched) {
      result.coverage = Coverage::Fail;
      result.message = v.message;
      return result;
    }
    if (v.outcome == VariationOutcome::Matched) {
      ++result.cases_run;
    } else if (lacking.empty()) {
      lacking = v.message;
    }
    // A kernel that is registered may not answer "not implemented".
    if (v.outcome == VariationOutcome::DeviceLacks && has_kernel) {
      result.coverage = Coverage::Fail;
      result.message = v.message;
      return result;
    }
    if (v.outcome != VariationOutcome::Matched || !variation.check_gradient || dtype != target.gradient_dtype) continue;
    GradientResult g;
    try {
      g = check_gradient(op_case, variation, dtype, target.device);
    } catch (const Error& e) {
      // The backward formula needs an op the device lacks: a gap of that op, not of this one.
      if (!is_not_implemented(e)) throw;
      result.message = "gradient not checked: " + std::string(e.what());
      continue;
    }
    result.gradient_checked |= g.differentiable;
    if (!g.ok) {
      result.coverage = Coverage::Fail;
      result.message = "'" + variation.name + "' " + g.problem;
      return result;
    }
  }
  if (result.cases_run == 0) {
    result.coverage = Coverage::Unavailable;
    result.message = lacking;
    return result;
  }
  result.coverage = has_kernel ? Coverage::Pass : Coverage::Decomposed;
  if (!lacking.empty()) result.message = "some cases could not run: " + lacking;
  if (perf) {
    const Variation& largest = largest_variation(op_case);
    result.device_us = time_variation(op_case, largest, dtype, target.device);
    result.cpu_us = time_variation(op_case, largest, dtype, Device("cpu"));
  }
  return result;
}

std::string check_id(const std::string& op, DType dtype) {
  return "ops/" + op + "/" + std::string(dtype_name(dtype));
}

std::map<std::string, OpCase> cases_by_op() {
  std::map<std::string, OpCase> cases;
  for (OpCase& c : all_op_cases()) cases.emplace(c.op, std::move(c));
  return cases;
}

}  // namespace

std::vector<std::string> op_check_ids(const std::vector<CatalogueOp>& catalogue) {
  const std::map<std::string, OpCase> cases = cases_by_op();
  std::vector<std::string> ids;
  for (const CatalogueOp& op : catalogue) {
    auto it = cases.find(op.name);
    if (it == cases.end()) continue;
    for (DType dtype : it->second.dtypes) ids.push_back(check_id(op.name, dtype));
  }
  return ids;
}

OpSuiteResult run_op_suite(const DeviceUnderTest& target, const std::vector<CatalogueOp>& catalogue,
                           const Filter& filter, bool perf) {
  OpSuiteResult suite;
  const std::map<std::string, OpCase> cases = cases_by_op();
  for (const CatalogueOp& op : catalogue) {
    auto it = cases.find(op.name);
    if (it == cases.end()) {
      suite.ops_without_case.push_back(op.name);
      continue;
    }
    for (DType dtype : it->second.dtypes) {
      if (!filter.matches(check_id(op.name, dtype))) continue;
      try {
        suite.ops.push_back(run_op_dtype(it->second, op, dtype, target, perf));
      } catch (const std::exception& e) {
        OpResult failed;
        failed.op = op.name;
        failed.dtype = dtype;
        failed.coverage = Coverage::Fail;
        failed.message = std::string("the case itself failed: ") + e.what();
        suite.ops.push_back(failed);
      }
    }
  }
  return suite;
}

}  // namespace ember::conformance
