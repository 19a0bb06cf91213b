#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "export/program.h"

namespace ember::exported {

// docs/export.md gives the format; this version is written, and only it is read.
constexpr int kFormatVersion = 1;
constexpr const char* kFormatName = "ember.export";

// The file's bytes: a safetensors file holding the weights, whose metadata
// holds the program as JSON (Note [Export file]).
std::string serialize_program(const Program& program);
std::shared_ptr<Program> parse_program(std::string_view bytes);

// Writes through a temporary file renamed over `path`; a failed save leaves
// `path` as it was.
void save_program(const Program& program, const std::string& path);
std::shared_ptr<Program> load_program(const std::string& path);

}  // namespace ember::exported
