// libFuzzer target: the export loader (runtime/src/export/file_format.cpp)
// reads any bytes as an exported program. Every malformed input must be an
// ember::Error naming what is wrong; anything else escaping, a crash, a
// sanitizer report or an allocation over -malloc_limit_mb is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ember/error.h"
#include "export/file_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    ember::exported::parse_program(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const ember::Error&) {
    // The documented way to refuse a file.
  }
  return 0;
}
