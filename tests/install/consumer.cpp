// Runs ops on the installed CPU plugin and loads a plugin built against the
// installed SDK; given the emulated device built from the installed backend
// template, checks that an error its queued work meets names the op that
// failed, not the later call that reports it. Exits non-zero if anything is off.
#include <ember/ember.h>

#include <iostream>
#include <string>

namespace {

bool check(bool ok, const std::string& what) {
  if (!ok) std::cerr << "FAILED: " << what << "\n";
  return ok;
}

// index_select with an index the device finds out of range only when the
// queued work runs; the copy to the host that follows reports it.
bool asynchronous_error_names_its_op(const std::string& emu_plugin) {
  const ember::PluginInfo emu = ember::load_plugin(emu_plugin);
  if (!check(emu.loaded, "the backend template's plugin loaded: " + emu.error)) return false;
  const ember::Tensor x = ember::arange(12, ember::DType::Float32).reshape({3, 4}).to("emu");
  const ember::Tensor index = ember::tensor(std::vector<int64_t>{0, 7}).to("emu");
  const ember::Tensor picked = ember::index_select(x, 0, index);
  std::string message;
  ember::ErrorKind kind = ember::ErrorKind::Runtime;
  try {
    (void)picked.to("cpu");
  } catch (const ember::Error& e) {
    message = e.what();
    kind = e.kind();
  }
  std::cout << "asynchronous error: " << message << "\n";
  const std::string expected =
      "index_select(float32[3, 4], int64[2]; dim=0) failed asynchronously: "
      "index 7 is out of range for a dimension of size 3";
  bool ok = check(message.find(expected) != std::string::npos, "the message names the failed call: " + expected);
  ok &= check(kind == ember::ErrorKind::Index, "an out-of-range index stays an index error");
  // Reported once: the stream works again.
  ok &= check(ember::sum(x.to("cpu")).item<float>() == 66.0f, "the device works after the error was reported");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  const ember::Tensor x = ember::arange(4, ember::DType::Float32) * 2.0;
  const float total = ember::sum(x).item<float>();
  const ember::PluginInfo probe = ember::load_plugin(PROBE_PLUGIN_PATH);
  bool cpu_from_install = false;
  bool codegen_from_install = false;  // the CPU's code generator, installed beside it
  for (const ember::PluginInfo& p : ember::plugins()) {
    const bool installed = p.loaded && p.path.find("/lib/ember/plugins/") != std::string::npos;
    cpu_from_install |= p.name == "cpu" && installed;
    codegen_from_install |= p.name == "cpu_codegen" && installed;
  }
  std::cout << "sum = " << total << ", probe plugin loaded = " << probe.loaded
            << ", cpu plugin from the install = " << cpu_from_install
            << ", cpu_codegen plugin from the install = " << codegen_from_install << "\n";
  bool ok = total == 12.0f && probe.loaded && cpu_from_install && codegen_from_install;
  if (argc > 1) ok &= asynchronous_error_names_its_op(argv[1]);
  return ok ? 0 : 1;
}
