// The layout of every public struct and enum of ember_plugin.h as this
// compiler sees it, in the format of the v1_<minor>_layout.txt baselines:
//   field <struct> <field> <offset> <size>
//   struct <struct> <size>
//   enum <name> <value>
#pragma once

#include <string>
#include <vector>

std::vector<std::string> current_abi_layout();
