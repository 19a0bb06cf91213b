#include "compile/compile_log.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>

#include "ember/profiler.h"
#include "profiler/profiler_state.h"

namespace ember::compile {
namespace {

const char* topic_name(LogTopic topic) {
  switch (topic) {
    case LogTopic::Graph:
      return "graph";
    case LogTopic::Recompiles:
      return "recompiles";
    case LogTopic::GraphBreaks:
      return "graph_breaks";
    case LogTopic::Codegen:
      return "codegen";
    case LogTopic::Cache:
      return "cache";
  }
  return "?";
}

struct LogConfig {
  bool enabled[5] = {};
  std::string trace_path;
  std::mutex lock;

  LogConfig() {
    if (const char* logs = std::getenv("EMBER_LOGS")) {
      std::istringstream s(logs);
      for (std::string word; std::getline(s, word, ',');) {
        for (int t = 0; t < 5; ++t) {
          if (word == topic_name(static_cast<LogTopic>(t)) || word == "all") enabled[t] = true;
        }
      }
    }
    if (const char* dir = std::getenv("EMBER_TRACE"); dir != nullptr && *dir != '\0') {
      trace_path = std::string(dir) + "/ember_trace_" + std::to_string(getpid()) + ".jsonl";
    }
  }
};

LogConfig& config() {
  static LogConfig c;
  return c;
}

}  // namespace

bool log_enabled(LogTopic topic) {
  LogConfig& c = config();
  return c.enabled[static_cast<int>(topic)] || !c.trace_path.empty() || profiler::profiling_on();
}

void log_event(LogTopic topic, const std::string& text, const std::string& json) {
  // A running profile gets every topic, whatever EMBER_LOGS says, so one
  // trace shows compiling beside running (docs/profiler.md).
  if (profiler::profiling_on()) profiler::record_instant(std::string("compile:") + topic_name(topic), json);
  LogConfig& c = config();
  std::lock_guard lock(c.lock);
  if (c.enabled[static_cast<int>(topic)]) std::fprintf(stderr, "[ember %s] %s\n", topic_name(topic), text.c_str());
  if (!c.trace_path.empty()) {
    std::ofstream out(c.trace_path, std::ios::app);
    out << "{\"event\":\"" << topic_name(topic) << "\",\"data\":" << json << "}\n";
  }
}

}  // namespace ember::compile
