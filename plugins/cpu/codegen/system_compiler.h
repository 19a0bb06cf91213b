// The system C++ compiler: found on PATH (or EMBER_CXX), probed once for
// the fingerprint, and run without a shell on a private temporary folder.
#ifndef EMBER_PLUGINS_CPU_CODEGEN_SYSTEM_COMPILER_H_
#define EMBER_PLUGINS_CPU_CODEGEN_SYSTEM_COMPILER_H_

#include <set>
#include <string>
#include <vector>

namespace ember::cpu_codegen {

// Everything besides the kernel that decides a compiled binary.
struct Toolchain {
  std::string compiler;                  // resolved path of the compiler
  std::string version;                   // first line of `compiler --version`
  bool is_gcc = false;                   // GCC (not clang)
  std::vector<std::string> flags;        // the exact flags of every compile
  std::string isa;                       // the ISA macros -march=native adds
  std::set<std::string> simd_functions;  // libmvec's SIMD math functions ("sinf")
  std::string fingerprint;               // all of the above and the generator's version, as text
};

// The toolchain of the compiler this process would use now (EMBER_CXX, else
// c++, g++, clang++ on PATH), probed once per compiler. Throws
// UNAVAILABLE naming what was looked for when there is none.
const Toolchain& find_toolchain();

// A header the kernel includes, written beside its source.
struct SourceFile {
  std::string path;  // relative, e.g. "ember/sdk/scalar_rules.hpp"
  std::string text;
};

struct CompileResult {
  std::vector<unsigned char> shared_object;
  std::string log;  // the compiler's messages
};

// Compiles `source` (plus `headers`, found with -I) into a shared object
// linking `libraries` (-lmvec). A compiler that fails or runs past
// EMBER_CXX_TIMEOUT seconds (default 120) throws INTERNAL carrying its
// messages.
CompileResult compile_shared_object(const Toolchain& toolchain, const std::string& name, const std::string& source,
                                    const std::vector<SourceFile>& headers, const std::vector<std::string>& libraries);

}  // namespace ember::cpu_codegen

#endif  // EMBER_PLUGINS_CPU_CODEGEN_SYSTEM_COMPILER_H_
