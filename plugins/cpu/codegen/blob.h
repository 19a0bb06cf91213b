// The blob compile writes and load reads (perhaps in another process, from
// the core's disk cache): a fixed header, the entry symbol's name, the
// kernel's EKIR text and the shared object's bytes.
#ifndef EMBER_PLUGINS_CPU_CODEGEN_BLOB_H_
#define EMBER_PLUGINS_CPU_CODEGEN_BLOB_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ember::cpu_codegen {

struct BlobContents {
  std::string symbol;   // the entry point
  std::string_view ir;  // the EKIR text the library was compiled from
  std::string_view shared_object;
};

std::vector<unsigned char> write_blob(const std::string& symbol, std::string_view ir,
                                      const std::vector<unsigned char>& shared_object);

// Checks the header, the sizes and the checksum; anything else than what
// write_blob wrote is INVALID_ARGUMENT. The views point into `data`.
BlobContents read_blob(const void* data, size_t size);

}  // namespace ember::cpu_codegen

#endif  // EMBER_PLUGINS_CPU_CODEGEN_BLOB_H_
