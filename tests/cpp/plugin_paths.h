#pragma once

#include <string>
#include <string_view>

// Path of a plugin built by tests/plugins (EMBER_TEST_PLUGIN_DIR comes from
// tests/cpp/loader_tests.cmake).
inline std::string test_plugin_path(std::string_view name) {
  return std::string(EMBER_TEST_PLUGIN_DIR) + "/lib" + std::string(name) + ".so";
}
