// Note [ABI layout baseline]: v1_<minor>_layout.txt records, for each ABI
// 1.<minor> on LP64, every field's offset and size, every struct's size and
// every enum value of ember_plugin.h; each minor bump records its own file.
// A later minor may append fields (structs grow, never shrink) and add enum
// values, but every line of every earlier baseline must still hold: a moved,
// resized or removed field, or a renumbered enum, is a break that only a new
// major may make.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include <ember/ember_plugin.h>

#include "abi_layout.h"

namespace {

std::vector<std::string> baseline_lines(int minor) {
  const std::string path = std::string(EMBER_ABI_BASELINE_DIR) + "/v1_" + std::to_string(minor) + "_layout.txt";
  std::ifstream file(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(file, line);) {
    if (!line.empty() && line[0] != '#') lines.push_back(line);
  }
  EXPECT_GT(lines.size(), 100u) << "cannot read " << path << " (every minor records its baseline)";
  return lines;
}

// "field ember_plugin name 24 8" -> key "field ember_plugin name", value "24 8".
std::pair<std::string, std::string> split_entry(const std::string& line) {
  std::istringstream in(line);
  std::string kind, a, b;
  in >> kind >> a;
  std::string key = kind + " " + a;
  if (kind == "field") {
    in >> b;
    key += " " + b;
  }
  std::string rest;
  std::getline(in >> std::ws, rest);
  return {key, rest};
}

TEST(AbiLayout, EveryBaselineEntryStillHolds) {
  std::map<std::string, std::string> current;
  for (const std::string& line : current_abi_layout()) current.insert(split_entry(line));
  for (int minor = 0; minor <= EMBER_ABI_VERSION_MINOR; ++minor) {
    SCOPED_TRACE("baseline of ABI 1." + std::to_string(minor));
    for (const std::string& line : baseline_lines(minor)) {
      const auto [key, recorded] = split_entry(line);
      auto it = current.find(key);
      ASSERT_NE(it, current.end()) << key << " is gone from ember_plugin.h";
      if (key.starts_with("struct ")) {
        // Structs grow at their end only: never smaller than recorded.
        EXPECT_GE(std::stoull(it->second), std::stoull(recorded)) << key << " shrank";
        if (minor == EMBER_ABI_VERSION_MINOR)
          EXPECT_EQ(it->second, recorded) << key << " changed size within its minor";
      } else {
        EXPECT_EQ(it->second, recorded) << key << " moved or changed (baseline: " << line << ")";
      }
    }
  }
}

TEST(AbiLayout, NewFieldsOnlyAfterEachBaselinesEnd) {
  for (int minor = 0; minor <= EMBER_ABI_VERSION_MINOR; ++minor) {
    SCOPED_TRACE("baseline of ABI 1." + std::to_string(minor));
    std::map<std::string, std::string> baseline;
    for (const std::string& line : baseline_lines(minor)) baseline.insert(split_entry(line));
    for (const std::string& line : current_abi_layout()) {
      const auto [key, value] = split_entry(line);
      if (!key.starts_with("field ") || baseline.count(key) != 0) continue;
      const std::string struct_name = key.substr(6, key.find(' ', 6) - 6);
      const auto recorded_size = baseline.find("struct " + struct_name);
      if (recorded_size == baseline.end()) continue;  // a struct added after this minor
      EXPECT_GE(std::stoull(value), std::stoull(recorded_size->second))
          << key << " was inserted inside the recorded part of " << struct_name;
    }
  }
}

// EMBER_<STRUCT>_SIZE_V1_0 ends where the struct's last 1.0 field ends.
TEST(AbiLayout, V1_0SizeConstantsEndAtEachStructsLast1_0Field) {
  const std::map<std::string, size_t> constants = {
      {"ember_extension", EMBER_EXTENSION_SIZE_V1_0},
      {"ember_attr", EMBER_ATTR_SIZE_V1_0},
      {"ember_kernel_call", EMBER_KERNEL_CALL_SIZE_V1_0},
      {"ember_kernel_registration", EMBER_KERNEL_REGISTRATION_SIZE_V1_0},
      {"ember_op_query", EMBER_OP_QUERY_SIZE_V1_0},
      {"ember_host_api", EMBER_HOST_API_SIZE_V1_0},
      {"ember_device_properties", EMBER_DEVICE_PROPERTIES_SIZE_V1_0},
      {"ember_copy_args", EMBER_COPY_ARGS_SIZE_V1_0},
      {"ember_device_api", EMBER_DEVICE_API_SIZE_V1_0},
      {"ember_plugin", EMBER_PLUGIN_SIZE_V1_0},
  };
  std::map<std::string, size_t> field_ends;  // struct -> end of its last 1.0 field
  for (const std::string& line : baseline_lines(0)) {
    std::istringstream in(line);
    std::string kind, struct_name, field;
    size_t offset = 0, size = 0;
    in >> kind >> struct_name;
    if (kind == "struct") field_ends.emplace(struct_name, 0);
    if (kind != "field") continue;
    in >> field >> offset >> size;
    field_ends[struct_name] = std::max(field_ends[struct_name], offset + size);
  }
  for (const auto& [struct_name, end] : field_ends) {
    auto it = constants.find(struct_name);
    ASSERT_NE(it, constants.end()) << struct_name << " has no EMBER_*_SIZE_V1_0 constant";
    EXPECT_EQ(it->second, end) << "the 1.0 size constant of " << struct_name;
  }
  EXPECT_EQ(constants.size(), field_ends.size());
}

}  // namespace
