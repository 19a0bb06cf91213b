#include "check.h"

namespace ember::conformance {

CheckResult run_check(const std::string& id, const CheckFn& fn) {
  CheckResult result{id, Outcome::Pass, ""};
  try {
    fn(result.message);
  } catch (const CheckSkipped& e) {
    result = {id, Outcome::Skip, e.what()};
  } catch (const std::exception& e) {
    result = {id, Outcome::Fail, e.what()};
  } catch (...) {
    result = {id, Outcome::Fail, "unknown exception"};
  }
  return result;
}

Filter::Filter(const std::vector<std::string>& patterns) {
  for (const std::string& pattern : patterns) {
    try {
      patterns_.emplace_back(pattern);
    } catch (const std::regex_error& e) {
      throw std::invalid_argument("--filter '" + pattern + "' is not a regular expression: " + e.what());
    }
  }
}

bool Filter::matches(const std::string& id) const {
  if (patterns_.empty()) return true;
  for (const std::regex& pattern : patterns_) {
    if (std::regex_search(id, pattern)) return true;
  }
  return false;
}

}  // namespace ember::conformance
