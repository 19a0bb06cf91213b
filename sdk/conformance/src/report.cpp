// The report's two forms: a table for people and JSON for tools.
#include <cstdio>
#include <map>
#include <sstream>

#include "ember/conformance/conformance.h"
#include "json_writer.h"
#include "op_case.h"

namespace ember::conformance {

namespace {

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::Pass: return "pass";
    case Outcome::Fail: return "fail";
    case Outcome::Skip: return "skip";
  }
  return "?";
}

const char* verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::Pass:
      return "PASS";
    case Verdict::Partial:
      return "PARTIAL";
    case Verdict::Fail:
      return "FAIL";
  }
  return "?";
}

const char* coverage_name(Coverage coverage) {
  switch (coverage) {
    case Coverage::Pass: return "pass";
    case Coverage::Fail: return "fail";
    case Coverage::Decomposed: return "decomposed";
    case Coverage::NotRegistered: return "not registered";
    case Coverage::Unavailable: return "unavailable";
  }
  return "?";
}

const char* coverage_cell(Coverage coverage) {
  switch (coverage) {
    case Coverage::Pass: return "ok";
    case Coverage::Fail: return "FAIL";
    case Coverage::Decomposed: return "dec";
    case Coverage::NotRegistered: return "-";
    case Coverage::Unavailable: return "n/a";
  }
  return "?";
}

struct Summary {
  int registered = 0;      // pairs with a kernel (pass or fail)
  int registered_passing = 0;
  int decomposed = 0;
  int failing = 0;
  int catalogue_pairs = 0; // every (op, dtype) the catalogue defines and the kit checked
  int available = 0;       // passing with a kernel or a decomposition
};

Summary summarize(const Report& report) {
  Summary s;
  for (const OpResult& r : report.ops) {
    ++s.catalogue_pairs;
    switch (r.coverage) {
      case Coverage::Pass: ++s.registered, ++s.registered_passing, ++s.available; break;
      case Coverage::Fail: ++s.failing, ++s.registered; break;
      case Coverage::Decomposed: ++s.decomposed, ++s.available; break;
      default: break;
    }
  }
  return s;
}

double percent(int part, int whole) { return whole == 0 ? 100.0 : 100.0 * part / whole; }

std::string format_percent(double value) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%.1f%%", value);
  return buffer;
}

void write_checks(std::ostringstream& out, const char* title, const std::vector<CheckResult>& checks) {
  if (checks.empty()) return;
  out << title << "\n";
  for (const CheckResult& c : checks) {
    out << "  " << (c.outcome == Outcome::Pass ? "PASS" : c.outcome == Outcome::Fail ? "FAIL" : "SKIP") << "  "
        << c.id;
    if (!c.message.empty()) out << "  " << c.message;
    out << "\n";
  }
}

void write_op_table(std::ostringstream& out, const Report& report) {
  const std::vector<DType> columns = all_dtypes();
  std::vector<std::string> order;
  std::map<std::string, std::map<DType, const OpResult*>> cells;
  for (const OpResult& r : report.ops) {
    if (cells.find(r.op) == cells.end()) order.push_back(r.op);
    cells[r.op][r.dtype] = &r;
  }
  out << "Op suite (ok: kernel matches the CPU; dec: decomposition matches; -: not registered; n/a: could not "
         "run; blank: not defined for the dtype)\n";
  char line[256];
  std::snprintf(line, sizeof line, "  %-24s", "op");
  out << line;
  for (DType d : columns) {
    std::snprintf(line, sizeof line, " %-8s", std::string(dtype_name(d)).c_str());
    out << line;
  }
  out << "\n";
  for (const std::string& op : order) {
    std::snprintf(line, sizeof line, "  %-24s", op.c_str());
    out << line;
    for (DType d : columns) {
      auto it = cells[op].find(d);
      std::snprintf(line, sizeof line, " %-8s", it == cells[op].end() ? "" : coverage_cell(it->second->coverage));
      out << line;
    }
    out << "\n";
  }
}

void write_failures(std::ostringstream& out, const Report& report) {
  bool any = false;
  for (const OpResult& r : report.ops) {
    if (r.coverage != Coverage::Fail) continue;
    if (!any) out << "Op failures\n";
    any = true;
    out << "  FAIL  ops/" << r.op << "/" << dtype_name(r.dtype) << ": " << r.message << "\n";
  }
}

void write_perf(std::ostringstream& out, const Report& report) {
  out << "Performance (one call of each op's largest case, microseconds)\n";
  char line[256];
  std::snprintf(line, sizeof line, "  %-24s %-9s %12s %12s\n", "op", "dtype", "device", "cpu");
  out << line;
  for (const OpResult& r : report.ops) {
    if (!r.device_us) continue;
    std::snprintf(line, sizeof line, "  %-24s %-9s %12.1f %12.1f\n", r.op.c_str(),
                  std::string(dtype_name(r.dtype)).c_str(), *r.device_us, r.cpu_us.value_or(0));
    out << line;
  }
}

void write_check_array(JsonWriter& json, const std::vector<CheckResult>& checks) {
  json.begin_array();
  for (const CheckResult& c : checks) {
    json.begin_object();
    json.field("id", c.id);
    json.field("outcome", outcome_name(c.outcome));
    json.field("message", c.message);
    json.end_object();
  }
  json.end_array();
}

}  // namespace

std::string format_table(const Report& report, bool perf) {
  std::ostringstream out;
  if (report.plugin_name.empty()) {
    out << "Ember conformance: " << report.plugin_path << "\n";
  } else {
    out << "Ember conformance: plugin '" << report.plugin_name << "' " << report.plugin_version << " (ABI "
        << report.abi << "), device type '" << report.device_type << "'";
    if (!report.loaded_as.empty()) out << ", run as '" << report.loaded_as << "' beside the CPU reference";
    out << "\n  " << report.plugin_path << "\n";
    if (report.reference_path == report.plugin_path) {
      out << "Reference: the plugin itself (it is the CPU plugin: its ops are compared with themselves)\n";
    } else if (!report.reference_path.empty()) {
      out << "Reference: " << report.reference_path << "\n";
    }
  }
  write_checks(out, "ABI suite", report.abi_checks);
  if (!report.fatal_error.empty()) {
    out << "FATAL: " << report.fatal_error << "\nResult: FAIL\n";
    return out.str();
  }
  if (!report.ops.empty()) {
    write_op_table(out, report);
    write_failures(out, report);
  }
  if (perf) write_perf(out, report);
  write_checks(out, "End-to-end suite", report.e2e_checks);
  if (!report.ops.empty()) {
    const Summary s = summarize(report);
    out << "Coverage: " << s.registered_passing << " of " << s.registered << " registered (op, dtype) pairs pass ("
        << format_percent(percent(s.registered_passing, s.registered)) << "); " << s.available << " of "
        << s.catalogue_pairs << " catalogue pairs run on the device ("
        << format_percent(percent(s.available, s.catalogue_pairs)) << ", " << s.decomposed
        << " through decompositions)\n";
  }
  if (!report.ops_without_case.empty()) {
    out << "Catalogue ops this kit has no case for (not checked):";
    for (const std::string& op : report.ops_without_case) out << " " << op;
    out << "\n";
  }
  if (report.verdict() == Verdict::Partial) {
    out << "Partial run (--partial): an end-to-end case could not run, so the models are not shown to train\n";
  }
  out << "Result: " << verdict_name(report.verdict()) << "\n";
  return out.str();
}

std::string format_json(const Report& report) {
  const Summary s = summarize(report);
  JsonWriter json;
  json.begin_object();
  json.key("plugin");
  json.begin_object();
  json.field("name", report.plugin_name);
  json.field("path", report.plugin_path);
  json.field("version", report.plugin_version);
  json.field("abi", report.abi);
  json.field("device_type", report.device_type);
  json.field("loaded_as", report.loaded_as);
  json.field("reference", report.reference_path);
  json.end_object();
  json.field("passed", report.passed());
  json.field("result", verdict_name(report.verdict()));
  json.field("fatal_error", report.fatal_error);
  json.key("coverage");
  json.begin_object();
  json.field("registered_pairs", s.registered);
  json.field("registered_passing", s.registered_passing);
  json.field("registered_pass_percent", percent(s.registered_passing, s.registered));
  json.field("catalogue_pairs", s.catalogue_pairs);
  json.field("available_pairs", s.available);
  json.field("decomposed_pairs", s.decomposed);
  json.field("catalogue_percent", percent(s.available, s.catalogue_pairs));
  json.field("failing_pairs", s.failing);
  json.end_object();
  json.key("abi");
  write_check_array(json, report.abi_checks);
  json.key("ops");
  json.begin_array();
  for (const OpResult& r : report.ops) {
    json.begin_object();
    json.field("op", r.op);
    json.field("dtype", std::string(dtype_name(r.dtype)));
    json.field("status", coverage_name(r.coverage));
    json.field("cases_run", r.cases_run);
    json.field("gradient_checked", r.gradient_checked);
    json.field("max_error", r.max_error);
    json.field("message", r.message);
    if (r.device_us) json.field("device_us", *r.device_us);
    if (r.cpu_us) json.field("cpu_us", *r.cpu_us);
    json.end_object();
  }
  json.end_array();
  json.key("ops_without_case");
  json.begin_array();
  for (const std::string& op : report.ops_without_case) json.value(op);
  json.end_array();
  json.key("e2e");
  write_check_array(json, report.e2e_checks);
  json.end_object();
  return json.str();
}

}  // namespace ember::conformance
