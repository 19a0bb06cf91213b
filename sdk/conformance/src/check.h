// Running one named check: a function that returns normally (pass), throws
// CheckFailed (fail) or CheckSkipped (skip); anything else it throws is a
// failure too, so a broken plugin never stops the kit.
#pragma once

#include <functional>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include "ember/conformance/conformance.h"

namespace ember::conformance {

struct CheckFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct CheckSkipped : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] inline void fail_check(const std::string& why) { throw CheckFailed(why); }
inline void expect(bool condition, const std::string& why) {
  if (!condition) fail_check(why);
}

// A check may leave a note for the report even when it passes.
using CheckFn = std::function<void(std::string& note)>;
CheckResult run_check(const std::string& id, const CheckFn& fn);

// Options::filters compiled once.
class Filter {
 public:
  explicit Filter(const std::vector<std::string>& patterns);
  bool matches(const std::string& id) const;

 private:
  std::vector<std::regex> patterns_;
};

}  // namespace ember::conformance
