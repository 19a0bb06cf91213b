// The Ember conformance kit: certifies a device plugin against the ABI and
// the op catalogue (sdk/docs/ops.md), using the core runtime and the CPU
// plugin as the reference. `ember-conformance` is a thin CLI over run().
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <ember/dtype.h>

namespace ember::conformance {

struct Options {
  // A path to a plugin library, or the name of a plugin the core discovers.
  std::string plugin;
  // Regular expressions searched in check ids ("abi/copy", "ops/add/float32",
  // "e2e/mlp"); a check runs when any matches. Empty: every check.
  std::vector<std::string> filters;
  // Time every (op, dtype) on the device and the CPU.
  bool perf = false;
  // Accept end-to-end cases that cannot run because the device lacks an op:
  // they are skipped and the result is PARTIAL. Otherwise they fail, since a
  // certified backend trains the models.
  bool partial = false;
};

enum class Outcome { Pass, Fail, Skip };

// PASS: every check that ran passed and the models trained; PARTIAL (only
// with Options::partial): the same, but an end-to-end case could not run.
enum class Verdict { Pass, Partial, Fail };

// One check of the ABI or end-to-end suites.
struct CheckResult {
  std::string id;
  Outcome outcome = Outcome::Pass;
  std::string message;  // why it failed or was skipped; notes on a pass
};

// How one (op, dtype) of the catalogue fared on the device.
enum class Coverage {
  Pass,           // a kernel is registered (or claimed) and every case matched the CPU
  Fail,           // a case failed: see OpResult::message
  Decomposed,     // no kernel; the core's decomposition ran on the device and matched
  NotRegistered,  // no kernel, no decomposition: the op is unavailable for this dtype
  Unavailable,    // could not run: the decomposition or the CPU reference lacks a piece
};

struct OpResult {
  std::string op;
  DType dtype = DType::Float32;
  Coverage coverage = Coverage::NotRegistered;
  std::string message;          // the failing case, its input and largest error
  int cases_run = 0;
  bool gradient_checked = false;
  double max_error = 0;         // largest |device - reference| over the cases
  std::optional<double> device_us;  // --perf: one call of the largest case
  std::optional<double> cpu_us;
};

struct Report {
  std::string plugin_name;
  std::string plugin_path;
  std::string plugin_version;
  std::string abi;          // "1.0" as the plugin declares it
  std::string device_type;
  // The device type the plugin ran under when another loaded plugin held its
  // own (Note [Certifying beside the reference]); empty otherwise.
  std::string loaded_as;
  // The CPU plugin the device's results are compared with.
  std::string reference_path;
  std::vector<CheckResult> abi_checks;
  std::vector<OpResult> ops;
  std::vector<std::string> ops_without_case;  // in the catalogue, unknown to this kit
  std::vector<CheckResult> e2e_checks;
  std::string fatal_error;  // set when the plugin could not be loaded at all

  Verdict verdict() const;
  bool passed() const { return verdict() != Verdict::Fail; }
};

// The EMBER_PLUGINS allow-list under which discovery loads only what
// run(options) needs: the CPU reference and, for a plugin given by name,
// that plugin (one given by path is loaded by path). The CLI sets it before
// anything else, so that no other plugin of the device type loads first.
std::string plugins_to_discover(const Options& options);

// Every check id run() may run, after filtering (ops/<op>/<dtype> for every
// dtype the catalogue defines an op for, registered or not).
std::vector<std::string> list_checks(const Options& options);

// Loads the plugin and runs the three suites. Never throws for a faulty
// plugin: every problem lands in the report. A plugin whose name or device
// type another loaded plugin holds (a second CPU plugin beside the CPU
// reference) runs under "<name>_under_test"; the CLI also limits discovery
// to the CPU reference, so that nothing else is loaded.
Report run(const Options& options);

// The op x dtype table, the failures and the coverage summary.
std::string format_table(const Report& report, bool perf);
std::string format_json(const Report& report);

}  // namespace ember::conformance
