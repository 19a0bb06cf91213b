#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include <ember/ember.h>

// Path of a plugin built by tests/plugins (EMBER_TEST_PLUGIN_DIR comes from
// tests/cpp/loader_tests.cmake).
inline std::string test_plugin_path(std::string_view name) {
  return std::string(EMBER_TEST_PLUGIN_DIR) + "/lib" + std::string(name) + ".so";
}

// Message of the ember::Error that loading the plugin at `path` throws;
// fails the test if it loads.
inline std::string load_error(const std::string& path) {
  try {
    ember::load_plugin(path);
  } catch (const ember::Error& e) {
    EXPECT_EQ(e.kind(), ember::ErrorKind::Runtime);
    return e.what();
  }
  ADD_FAILURE() << "loading " << path << " did not fail";
  return {};
}
