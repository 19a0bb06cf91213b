#pragma once

// What the core remembers of ember::set_num_threads, for what it hands on
// to plugins itself: code generators' launches (ABI 1.4's
// ember_codegen_launch_args.num_threads).

namespace ember::plugin {

// The count ember::set_num_threads last set; 0 until it is called.
int requested_num_threads();

}  // namespace ember::plugin
