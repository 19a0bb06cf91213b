// ember-conformance <plugin.so | name> [--filter REGEX]... [--list] [--json FILE] [--perf] [--partial]
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

#include "ember/conformance/conformance.h"

namespace {

constexpr const char* kUsage =
    "usage: ember-conformance <plugin.so | plugin name> [options]\n"
    "Certifies an Ember device plugin: the ABI suite, every catalogue op against the CPU plugin, and\n"
    "small models trained on the device.\n"
    "  --filter REGEX   run only checks whose id (abi/..., ops/<op>/<dtype>, e2e/...) matches; repeatable\n"
    "  --list           print the check ids and exit\n"
    "  --json FILE      also write the report as JSON\n"
    "  --perf           time every op on the device and on the CPU\n"
    "  --partial        accept end-to-end cases that cannot run because the device lacks an op (the result\n"
    "                   is then PARTIAL); without it such a case fails\n"
    "Only the CPU plugin (the reference) and the plugin given are loaded.\n"
    "Exit status: 0 when every check passes (PASS, or PARTIAL with --partial), 1 on a failure, 2 on bad usage.\n";

struct Command {
  ember::conformance::Options options;
  bool list = false;
  std::string json_path;
};

// Returns false (after printing why) on bad usage.
bool parse(int argc, char** argv, Command& command) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto next = [&](const char* flag) -> const char* {
      if (i + 1 >= argc) {
        std::cerr << "ember-conformance: " << flag << " needs a value\n";
        return nullptr;
      }
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else if (arg == "--filter") {
      const char* value = next("--filter");
      if (value == nullptr) return false;
      command.options.filters.emplace_back(value);
    } else if (arg == "--json") {
      const char* value = next("--json");
      if (value == nullptr) return false;
      command.json_path = value;
    } else if (arg == "--list") {
      command.list = true;
    } else if (arg == "--perf") {
      command.options.perf = true;
    } else if (arg == "--partial") {
      command.options.partial = true;
    } else if (arg.starts_with("-")) {
      std::cerr << "ember-conformance: unknown option " << arg << "\n";
      return false;
    } else if (command.options.plugin.empty()) {
      command.options.plugin = arg;
    } else {
      std::cerr << "ember-conformance: more than one plugin given (" << command.options.plugin << ", " << arg << ")\n";
      return false;
    }
  }
  if (command.options.plugin.empty() && !command.list) {
    std::cerr << "ember-conformance: no plugin given\n";
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Command command;
  if (!parse(argc, argv, command)) {
    std::cerr << kUsage;
    return 2;
  }
  // Nothing but what the kit certifies and compares with may load first.
  setenv("EMBER_PLUGINS", ember::conformance::plugins_to_discover(command.options).c_str(), 1);
  try {
    if (command.list) {
      for (const std::string& id : ember::conformance::list_checks(command.options)) std::cout << id << "\n";
      return 0;
    }
    const ember::conformance::Report report = ember::conformance::run(command.options);
    std::cout << ember::conformance::format_table(report, command.options.perf);
    if (!command.json_path.empty()) {
      std::ofstream json(command.json_path);
      json << ember::conformance::format_json(report) << "\n";
      if (!json) {
        std::cerr << "ember-conformance: cannot write " << command.json_path << "\n";
        return 1;
      }
    }
    return report.passed() ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "ember-conformance: " << e.what() << "\n";
    return 2;
  }
}
