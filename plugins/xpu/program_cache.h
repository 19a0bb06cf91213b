// Built programs, one per (device, dtype), kept for the life of the plugin
// and on disk as program binaries (Note [Program binary cache]).
#pragma once

#include <ember/ember_plugin.h>

#include "opencl.h"

namespace ember::xpu {

// The program with every kernel of `dtype` for device `ordinal`, built on
// first use. A build failure throws INTERNAL with the compiler's log.
cl_program program_for(int32_t ordinal, ember_dtype dtype);

// Releases every program (plugin shutdown).
void release_programs();

}  // namespace ember::xpu
