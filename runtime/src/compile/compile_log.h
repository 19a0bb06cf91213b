#pragma once

#include <string>
#include <string_view>

namespace ember::compile {

// Note [Compile logs]
// EMBER_LOGS=graph,recompiles,graph_breaks,codegen,cache prints those
// events to stderr as they happen; EMBER_TRACE=dir appends every event as
// one JSON object per line to dir/ember_trace_<pid>.jsonl, for reading
// after the run. Both are read once, at the first event. While the profiler
// runs, every event is also an instant event of its trace.
enum class LogTopic { Graph, Recompiles, GraphBreaks, Codegen, Cache };

bool log_enabled(LogTopic topic);
// `text` is printed; `json` (an object's text) is traced.
void log_event(LogTopic topic, const std::string& text, const std::string& json);

}  // namespace ember::compile
