#pragma once

#include <string>
#include <vector>

#include <ember/ember_plugin.h>

#include "dispatch/op.h"
#include "ember/dtype.h"

// Collects the kernels one plugin registers during register_kernels. They
// are staged here and reach the op tables only when the whole registration
// succeeded (Note [Staged registration] in loader.cpp).
struct ember_registrar {
  struct Staged {
    ember::dispatch::Op* op;
    ember::DType dtype;
    ember_kernel_fn fn;
    void* data;
    uint32_t flags;
  };

  std::string plugin_name;
  uint32_t plugin_abi_minor = 0;  // the minor the plugin was built with, for log lines
  bool has_device = false;
  std::vector<Staged> staged;
  std::vector<std::string> skipped_ops;  // ops the catalogue does not know, once each
  std::string first_error;               // empty while every registration was valid
};

namespace ember::plugin {

// The host services table handed to every plugin; lives as long as the core.
const ember_host_api& host_api();

}  // namespace ember::plugin
