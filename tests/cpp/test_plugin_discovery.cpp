// Plugin discovery runs once per process, so each case runs in a fresh
// process: a "threadsafe" death test re-executes the test binary, and the
// case reports through its exit code.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "ember/plugins.h"
#include "plugin_paths.h"

namespace ember {
namespace {

namespace fs = std::filesystem;

// A directory holding `link_name` -> the test plugin `target`.
fs::path plugin_dir(const std::string& dir_name, const std::string& target, const std::string& link_name) {
  fs::path dir = fs::temp_directory_path() / (dir_name + "_" + std::to_string(getpid()));
  fs::create_directories(dir);
  fs::remove(dir / link_name);
  fs::create_symlink(test_plugin_path(target), dir / link_name);
  return dir;
}

class Discovery : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(Discovery, NoneDisablesDiscoveryButNotExplicitLoads) {
  EXPECT_EXIT(
      {
        setenv("EMBER_PLUGINS", "none", 1);
        bool ok = plugins().empty() && !is_device_type_available("cpu");
        ok = ok && load_plugin(test_plugin_path("toy")).loaded && plugins().size() == 1;
        std::exit(ok ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(Discovery, FirstPluginOfANameWinsAndTheAllowListFilters) {
  EXPECT_EXIT(
      {
        fs::path first = plugin_dir("ember_first", "toy", "libember_plugin_toy.so");
        fs::path second = plugin_dir("ember_second", "failing_kernel", "libember_plugin_toy.so");
        plugin_dir("ember_first", "newer_minor", "libember_plugin_newer_minor.so");
        setenv("EMBER_PLUGIN_PATH", (first.string() + ":" + second.string()).c_str(), 1);
        setenv("EMBER_PLUGINS", "toy", 1);
        auto found = plugins();
        bool ok = found.size() == 1 && found[0].name == "toy" && found[0].loaded;
        ok = ok && !is_device_type_available("failing") && !is_device_type_available("cpu");
        fs::remove_all(first);
        fs::remove_all(second);
        std::exit(ok ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(Discovery, AllowListTakesPaths) {
  EXPECT_EXIT(
      {
        setenv("EMBER_PLUGINS", test_plugin_path("newer_minor").c_str(), 1);
        auto found = plugins();
        std::exit(found.size() == 1 && found[0].name == "newer_minor" ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(Discovery, QuarantinedImpostorDoesNotHideThePluginLaterOnThePath) {
  EXPECT_EXIT(
      {
        fs::path impostor = plugin_dir("ember_impostor", "init_fails", "libember_plugin_toy.so");
        fs::path real = plugin_dir("ember_real", "toy", "libember_plugin_toy.so");
        setenv("EMBER_PLUGIN_PATH", (impostor.string() + ":" + real.string()).c_str(), 1);
        setenv("EMBER_PLUGINS", "toy", 1);
        auto found = plugins();
        bool ok = found.size() == 2 && !found[0].loaded && found[0].error.find("driver missing") != std::string::npos;
        ok = ok && found[1].loaded && found[1].device_type == "toy" && is_device_type_available("toy");
        fs::remove_all(impostor);
        fs::remove_all(real);
        std::exit(ok ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

// On failure the FIFO blocks discovery; the alarm ends the process instead of the test run.
TEST_F(Discovery, FifoNamedLikeAPluginIsQuarantinedWithoutBlocking) {
  EXPECT_EXIT(
      {
        alarm(10);
        fs::path dir = plugin_dir("ember_fifo", "toy", "libember_plugin_toy.so");
        if (mkfifo((dir / "libember_plugin_fifo.so").c_str(), 0600) != 0) std::exit(2);
        setenv("EMBER_PLUGIN_PATH", dir.c_str(), 1);
        setenv("EMBER_PLUGINS", "fifo,toy", 1);
        auto found = plugins();
        bool ok = found.size() == 2 && found[0].name == "fifo" && !found[0].loaded;
        ok = ok && found[0].error == "not a regular file (a FIFO)" && found[1].loaded;
        fs::remove_all(dir);
        std::exit(ok ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(Discovery, FindsTheBuildTreePlugins) {
  EXPECT_EXIT(
      {
        unsetenv("EMBER_PLUGINS");
        std::exit(is_device_type_available("cpu") ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace ember
