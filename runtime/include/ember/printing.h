#pragma once

#include <cstdint>
#include <optional>

namespace ember {

// How Tensor::str() lays out values: PyTorch's torch.set_printoptions.
struct PrintOptions {
  int precision = 4;             // digits after the point (fixed and scientific)
  int64_t threshold = 1000;      // more elements than this are summarised with "..."
  int64_t edgeitems = 3;         // elements kept at each end of a summarised dim
  int64_t linewidth = 80;        // characters per line before a row wraps
  std::optional<bool> sci_mode;  // nullopt: scientific notation when the range asks for it
};

// Process-wide, as in PyTorch; safe to call while other threads print.
void set_print_options(const PrintOptions& options);
PrintOptions print_options();

}  // namespace ember
