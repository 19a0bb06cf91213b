#include "system_compiler.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ember/sdk/status.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include "cpp_dialect.h"
#include "embedded_sources.h"

extern char** environ;

namespace ember::cpu_codegen {
namespace {

namespace fs = std::filesystem;

constexpr double kDefaultTimeoutSeconds = 120.0;
// A compiler that writes more than this is cut short in the log.
constexpr size_t kMostLogBytes = size_t{1} << 20;
// What a failure's message quotes of the compiler's messages.
constexpr size_t kMostQuotedBytes = 4000;

std::string getenv_string(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

// A folder only this user can read, removed with its contents.
class TemporaryFolder {
 public:
  TemporaryFolder() {
    std::string base = getenv_string("TMPDIR");
    if (base.empty()) base = "/tmp";
    std::string pattern = base + "/ember-codegen-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      sdk::fail(EMBER_STATUS_INTERNAL,
                "cpu_codegen: cannot create a temporary folder in " + base + ": " + std::strerror(errno));
    }
    path_ = pattern;
  }
  ~TemporaryFolder() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;

  std::string file(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out.flush()) sdk::fail(EMBER_STATUS_INTERNAL, "cpu_codegen: cannot write " + path);
}

std::string read_file(const std::string& path, size_t most) {
  std::ifstream in(path, std::ios::binary);
  std::string text(most, '\0');
  in.read(text.data(), static_cast<std::streamsize>(most));
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

struct ProcessResult {
  bool timed_out = false;
  int status = 0;  // as waitpid reports it
  std::string output;

  bool succeeded() const { return !timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0; }
  std::string describe() const {
    if (timed_out) return "timed out";
    if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
    return "exit status " + std::to_string(WEXITSTATUS(status));
  }
};

// Runs argv[0] (a path) without a shell, in a process group of its own (so
// that a timeout kills the compiler's own children too), with no input and
// its output captured in `folder`; kills it after `timeout` seconds.
ProcessResult run_process(const std::vector<std::string>& argv, const TemporaryFolder& folder, double timeout) {
  const std::string log_path = folder.file("process.log");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  sigdelset(&all, SIGKILL);
  sigdelset(&all, SIGSTOP);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &all);  // a host ignoring SIGPIPE must not pass that on
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, argv[0].c_str(), &actions, &attributes, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (error != 0) {
    sdk::fail(EMBER_STATUS_UNAVAILABLE, "cpu_codegen: cannot run " + argv[0] + ": " + std::strerror(error));
  }
  ProcessResult result;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
  auto pause = std::chrono::microseconds(500);
  while (true) {
    const pid_t done = waitpid(pid, &result.status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      sdk::fail(EMBER_STATUS_INTERNAL, "cpu_codegen: lost track of " + argv[0] + ": " + std::strerror(errno));
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(-pid, SIGKILL);
      while (waitpid(pid, &result.status, 0) < 0 && errno == EINTR) {
      }
      result.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(5000));
  }
  result.output = read_file(log_path, kMostLogBytes);
  return result;
}

bool is_executable_file(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && access(path.c_str(), X_OK) == 0;
}

// `name` as the shell would find it: a path if it has a '/', else the first
// executable file of that name in a PATH folder.
std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return is_executable_file(name) ? name : "";
  std::stringstream path(getenv_string("PATH"));
  for (std::string folder; std::getline(path, folder, ':');) {
    const std::string candidate = (folder.empty() ? "." : folder) + "/" + name;
    if (is_executable_file(candidate)) return candidate;
  }
  return "";
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// The macros `flags` make the compiler predefine, one name per line.
std::set<std::string> predefined_macros(const std::string& compiler, std::vector<std::string> flags) {
  TemporaryFolder folder;
  std::vector<std::string> argv = {compiler};
  argv.insert(argv.end(), flags.begin(), flags.end());
  for (const char* a : {"-dM", "-E", "-x", "c++", "/dev/null"}) argv.emplace_back(a);
  const ProcessResult result = run_process(argv, folder, kDefaultTimeoutSeconds);
  if (!result.succeeded()) {
    sdk::fail(EMBER_STATUS_UNAVAILABLE, "cpu_codegen: " + compiler + " cannot preprocess (" + result.describe() +
                                            "): " + result.output.substr(0, kMostQuotedBytes));
  }
  std::set<std::string> names;
  std::istringstream lines(result.output);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string define, name;
    if (words >> define >> name && define == "#define") names.insert(name);
  }
  return names;
}

// Note [Vector math declarations]: glibc's libmvec has SIMD variants of
// math functions, which GCC calls from vectorised loops once a function is
// declared `simd` (glibc's headers do so only under -ffast-math). A kernel
// declares a function so when this machine's libmvec has all four x86-64
// variants GCC may call (SSE, AVX, AVX2, AVX-512); the list depends on the
// glibc version (2.35 added tan, tanh, erf, log1p, expm1, ...).
std::set<std::string> libmvec_functions() {
  std::set<std::string> functions;
#if defined(__x86_64__) && defined(__GLIBC__)
  void* library = dlopen("libmvec.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (library == nullptr) return functions;
  for (const MathFunction& math : kMathFunctions) {
    const std::string arguments = math.arity == 2 ? "vv" : "v";
    for (const bool single : {true, false}) {
      const std::string name = std::string(math.name) + (single ? "f" : "");
      const char* variants[] = {single ? "bN4" : "bN2", single ? "cN8" : "cN4", single ? "dN8" : "dN4",
                                single ? "eN16" : "eN8"};
      bool all = true;
      for (const char* variant : variants) {
        all = all && dlsym(library, ("_ZGV" + std::string(variant) + arguments + "_" + name).c_str()) != nullptr;
      }
      if (all) functions.insert(name);
    }
  }
  dlclose(library);
#endif
  return functions;
}

std::string joined(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& w : words) text += (text.empty() ? "" : " ") + w;
  return text;
}

std::unique_ptr<Toolchain> probe_toolchain(const std::string& requested) {
  std::string found;
  if (!requested.empty()) {
    found = find_program(requested);
    if (found.empty()) {
      sdk::fail(EMBER_STATUS_UNAVAILABLE, "cpu_codegen: EMBER_CXX is '" + requested +
                                              "', which is not an executable file" +
                                              (requested.find('/') == std::string::npos ? " on PATH" : ""));
    }
  } else {
    for (const char* name : {"c++", "g++", "clang++"}) {
      found = find_program(name);
      if (!found.empty()) break;
    }
    if (found.empty()) {
      sdk::fail(EMBER_STATUS_UNAVAILABLE,
                "cpu_codegen: no C++ compiler found: looked for c++, g++ and clang++ on PATH (" +
                    getenv_string("PATH") + "); set EMBER_CXX to one");
    }
  }
  auto toolchain = std::make_unique<Toolchain>();
  std::error_code error;
  const fs::path canonical = fs::canonical(found, error);
  toolchain->compiler = error ? found : canonical.string();
  {
    TemporaryFolder folder;
    const ProcessResult result = run_process({toolchain->compiler, "--version"}, folder, kDefaultTimeoutSeconds);
    if (!result.succeeded()) {
      sdk::fail(EMBER_STATUS_UNAVAILABLE, "cpu_codegen: " + toolchain->compiler + " --version failed (" +
                                              result.describe() + "): " + result.output.substr(0, kMostQuotedBytes));
    }
    toolchain->version = first_line(result.output);
  }
  toolchain->is_gcc = toolchain->version.find("clang") == std::string::npos;
  toolchain->flags = {"-std=c++17",        "-O3",       "-march=native", "-fno-math-errno",
                      "-ffp-contract=off", "-fPIC",     "-shared",       "-fvisibility=hidden",
                      "-fno-exceptions",   "-fno-rtti", "-pipe"};
  // Without STB_GNU_UNIQUE symbols a kernel's library really unloads.
  if (toolchain->is_gcc) toolchain->flags.emplace_back("-fno-gnu-unique");
  const std::set<std::string> baseline = predefined_macros(toolchain->compiler, {});
  std::vector<std::string> isa;
  for (const std::string& name : predefined_macros(toolchain->compiler, {"-march=native"})) {
    if (baseline.count(name) == 0) isa.push_back(name);
  }
  toolchain->isa = joined(isa);
  toolchain->simd_functions = libmvec_functions();
  toolchain->fingerprint =
      std::string("generator: cpu_codegen " EMBER_CPU_CODEGEN_VERSION " (EKIR 1.0, sources ") +
      embedded::kSourcesDigest + ", kernel_ir " EMBER_KERNEL_IR_SOURCES_DIGEST ")\ncompiler: " + toolchain->compiler +
      "\nversion: " + toolchain->version + "\nflags: " + joined(toolchain->flags) + "\nisa: " + toolchain->isa +
      "\nsimd: " + joined({toolchain->simd_functions.begin(), toolchain->simd_functions.end()}) + "\n";
  return toolchain;
}

double timeout_seconds() {
  const std::string text = getenv_string("EMBER_CXX_TIMEOUT");
  char* end = nullptr;
  const double seconds = std::strtod(text.c_str(), &end);
  return !text.empty() && end != nullptr && *end == '\0' && seconds > 0 ? seconds : kDefaultTimeoutSeconds;
}

}  // namespace

const Toolchain& find_toolchain() {
  // One probe per compiler choice; a failed probe is remembered as well.
  struct Probe {
    std::unique_ptr<Toolchain> toolchain;
    sdk::Error error{EMBER_STATUS_OK, ""};
  };
  static std::mutex mutex;
  static auto* probes = new std::map<std::string, Probe>();  // never freed: references outlive calls
  const std::string key = getenv_string("EMBER_CXX") + '\n' + getenv_string("PATH");
  std::lock_guard lock(mutex);
  auto it = probes->find(key);
  if (it == probes->end()) {
    Probe probe;
    try {
      probe.toolchain = probe_toolchain(getenv_string("EMBER_CXX"));
    } catch (const sdk::Error& e) {
      probe.error = e;
    }
    it = probes->emplace(key, std::move(probe)).first;
  }
  if (it->second.toolchain == nullptr) throw it->second.error;
  return *it->second.toolchain;
}

CompileResult compile_shared_object(const Toolchain& toolchain, const std::string& name, const std::string& source,
                                    const std::vector<SourceFile>& headers, const std::vector<std::string>& libraries) {
  TemporaryFolder folder;
  for (const SourceFile& header : headers) {
    const fs::path path = fs::path(folder.path()) / header.path;
    fs::create_directories(path.parent_path());
    write_file(path.string(), header.text);
  }
  const std::string source_path = folder.file("kernel.cpp");
  const std::string object_path = folder.file("kernel.so");
  write_file(source_path, source);
  std::vector<std::string> argv = {toolchain.compiler};
  argv.insert(argv.end(), toolchain.flags.begin(), toolchain.flags.end());
  if (!headers.empty()) argv.insert(argv.end(), {"-I", folder.path()});
  argv.insert(argv.end(), {source_path, "-o", object_path});
  argv.insert(argv.end(), libraries.begin(), libraries.end());
  const double timeout = timeout_seconds();
  ProcessResult result = run_process(argv, folder, timeout);
  if (result.timed_out) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%g", timeout);
    sdk::fail(EMBER_STATUS_INTERNAL, "cpu_codegen: the compiler " + toolchain.compiler + " ran past " + seconds +
                                         " s (EMBER_CXX_TIMEOUT) on kernel '" + name + "' and was killed");
  }
  if (!result.succeeded()) {
    sdk::fail(EMBER_STATUS_INTERNAL, "cpu_codegen: the compiler " + toolchain.compiler + " failed (" +
                                         result.describe() + ") on kernel '" + name +
                                         "': " + result.output.substr(0, kMostQuotedBytes));
  }
  std::ifstream in(object_path, std::ios::binary);
  if (!in) {
    sdk::fail(EMBER_STATUS_INTERNAL, "cpu_codegen: the compiler " + toolchain.compiler +
                                         " wrote no library for kernel '" + name +
                                         "': " + result.output.substr(0, kMostQuotedBytes));
  }
  CompileResult compiled;
  compiled.shared_object.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  compiled.log = std::move(result.output);
  return compiled;
}

}  // namespace ember::cpu_codegen
