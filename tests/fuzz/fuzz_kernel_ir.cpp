// libFuzzer target: the EKIR reader and checker (sdk/kernel_ir/src/ekir.cpp)
// that every code generator runs before it writes code. A document that
// breaks the spec must be an sdk::Error(INVALID_ARGUMENT); anything else
// escaping, a crash or a sanitizer report is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <ember/kernel_ir/ekir.h>
#include <ember/sdk/status.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    ember::kernel_ir::parse_ekir(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const ember::sdk::Error&) {
    // The documented way to refuse a document.
  }
  return 0;
}
