// Tensor::str(): the layout of PyTorch's repr, so printed output looks
// familiar: integer-valued floats as "1.", four decimals otherwise,
// scientific notation for wide ranges, "..." past 1000 elements; each of
// these follows set_print_options.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "core/shape.h"
#include "ember/printing.h"
#include "ember/tensor.h"

namespace ember {
namespace {

std::mutex g_print_options_mutex;
PrintOptions g_print_options;

struct Formatter {
  DType dtype;
  int precision = 4;
  bool integer_mode = true;  // floats whose finite values are all integers
  bool sci_mode = false;
  size_t width = 1;

  std::string format(double v) const {
    char buf[64];
    if (dtype == DType::Bool) return v != 0 ? "True" : "False";
    if (!is_floating(dtype)) {
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    } else if (std::isnan(v)) {
      return "nan";
    } else if (std::isinf(v)) {
      return v > 0 ? "inf" : "-inf";
    } else if (sci_mode) {
      std::snprintf(buf, sizeof buf, "%.*e", precision, v);
    } else if (integer_mode) {
      std::snprintf(buf, sizeof buf, "%.0f.", v);
    } else {
      std::snprintf(buf, sizeof buf, "%.*f", precision, v);
    }
    return buf;
  }

  std::string padded(double v) const {
    std::string s = format(v);
    return std::string(width > s.size() ? width - s.size() : 0, ' ') + s;
  }
};

Formatter make_formatter(DType dtype, const std::vector<double>& values, const PrintOptions& options) {
  Formatter f{dtype, options.precision};
  if (is_floating(dtype)) {
    double max_abs = 0;
    double min_abs = INFINITY;
    bool any_finite = false;
    for (double v : values) {
      if (!std::isfinite(v)) continue;
      any_finite = true;
      f.integer_mode &= std::nearbyint(v) == v;
      const double a = std::fabs(v);
      max_abs = std::max(max_abs, a);
      if (a != 0) min_abs = std::min(min_abs, a);
    }
    if (options.sci_mode.has_value()) {
      f.sci_mode = *options.sci_mode;
      if (f.sci_mode) f.integer_mode = false;
    } else if (any_finite && min_abs != INFINITY) {
      f.sci_mode = f.integer_mode ? max_abs > 1e8 : (max_abs / min_abs > 1000.0 || max_abs > 1e8 || min_abs < 1e-4);
    }
  }
  for (double v : values) f.width = std::max(f.width, f.format(v).size());
  return f;
}

// Row-major element indices shown after summarisation, and their values.
// What a summarised layout keeps: `edge` elements at each end of a dim
// longer than 2 * edge (none when not summarising).
struct Summary {
  bool enabled;
  int64_t edge;
  bool skips(int64_t n) const { return enabled && n > 2 * edge; }
};

void collect(const std::vector<double>& all, const DimVector& sizes, const DimVector& strides, Summary summary,
             size_t dim, int64_t base, std::vector<double>& out) {
  if (dim == sizes.size()) {
    out.push_back(all[base]);
    return;
  }
  const int64_t n = sizes[dim];
  for (int64_t i = 0; i < n; ++i) {
    if (summary.skips(n) && i == summary.edge) i = n - summary.edge;
    collect(all, sizes, strides, summary, dim + 1, base + i * strides[dim], out);
  }
}

void render(const std::vector<double>& all, const DimVector& sizes, const DimVector& strides, const Formatter& f,
            Summary summary, int64_t line_width, size_t dim, int64_t base, size_t indent, std::string& out) {
  const int64_t n = sizes[dim];
  out += '[';
  const bool last_dim = dim + 1 == sizes.size();
  size_t line_start = out.size() - indent - 1;
  for (int64_t i = 0; i < n; ++i) {
    if (summary.skips(n) && i == summary.edge) {
      out += last_dim ? " ..., " : "...,\n" + std::string(sizes.size() - dim - 1, '\n').substr(1) + std::string(indent + 1, ' ');
      i = n - summary.edge;
    }
    const int64_t offset = base + i * strides[dim];
    if (last_dim) {
      std::string item = f.padded(all[offset]);
      if (i > 0 && out.size() - line_start + item.size() + 2 > static_cast<size_t>(line_width)) {
        if (out.back() == ' ') out.pop_back();  // no trailing space before the break
        out += '\n' + std::string(indent + 1, ' ');
        line_start = out.size() - indent - 1;
      }
      out += item;
    } else {
      render(all, sizes, strides, f, summary, line_width, dim + 1, offset, indent + 1, out);
    }
    if (i + 1 < n) {
      out += ',';
      out += last_dim ? " " : std::string(sizes.size() - dim - 1, '\n') + std::string(indent + 1, ' ');
    }
  }
  out += ']';
}

bool default_dtype_for_printing(DType d) {
  return d == default_float_dtype() || d == DType::Int64 || d == DType::Bool;
}

std::string size_suffix(const DimVector& sizes) {
  std::string s = ", size=(";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + (sizes.size() == 1 ? ",)" : ")");
}

}  // namespace

void set_print_options(const PrintOptions& options) {
  std::lock_guard<std::mutex> lock(g_print_options_mutex);
  g_print_options = options;
}

PrintOptions print_options() {
  std::lock_guard<std::mutex> lock(g_print_options_mutex);
  return g_print_options;
}

std::string Tensor::str() const {
  if (!defined()) return "tensor(undefined)";
  std::string suffix;
  const Device dev = device();
  if (!dev.is_cpu()) suffix += ", device='" + dev.str() + "'";
  std::string body;
  if (dev.is_meta()) {
    body = "...";
    suffix += size_suffix(sizes());
  } else if (numel() == 0) {
    body = "[]";
    if (dim() != 1) suffix += size_suffix(sizes());
  } else {
    const PrintOptions options = print_options();
    const std::vector<double> all = tolist<double>();
    const Summary summary{numel() > options.threshold, options.edgeitems};
    const DimVector strides_rm = contiguous_strides(sizes());
    std::vector<double> shown;
    if (dim() == 0) {
      shown = all;
    } else {
      collect(all, sizes(), strides_rm, summary, 0, 0, shown);
    }
    const Formatter f = make_formatter(dtype(), shown, options);
    if (dim() == 0) {
      body = f.format(all[0]);
    } else {
      render(all, sizes(), strides_rm, f, summary, options.linewidth, 0, 0, 7, body);
    }
  }
  // With no values shown, nothing tells an int64 or bool tensor from a
  // float one: only the default float dtype goes without saying (PyTorch's rule).
  const bool values_shown = !dev.is_meta() && numel() > 0;
  const bool implicit_dtype =
      values_shown ? default_dtype_for_printing(dtype()) : dtype() == default_float_dtype();
  if (!implicit_dtype) suffix += ", dtype=ember." + std::string(dtype_name(dtype()));
  return "tensor(" + body + suffix + ")";
}

}  // namespace ember
