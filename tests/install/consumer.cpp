// Runs ops on the installed CPU plugin and loads a plugin built against the
// installed SDK; exits non-zero if anything is off.
#include <ember/ember.h>

#include <iostream>

int main() {
  const ember::Tensor x = ember::arange(4, ember::DType::Float32) * 2.0;
  const float total = ember::sum(x).item<float>();
  const ember::PluginInfo probe = ember::load_plugin(PROBE_PLUGIN_PATH);
  bool cpu_from_install = false;
  for (const ember::PluginInfo& p : ember::plugins()) {
    cpu_from_install |= p.name == "cpu" && p.loaded && p.path.find("/lib/ember/plugins/") != std::string::npos;
  }
  std::cout << "sum = " << total << ", probe plugin loaded = " << probe.loaded
            << ", cpu plugin from the install = " << cpu_from_install << "\n";
  return total == 12.0f && probe.loaded && cpu_from_install ? 0 : 1;
}
