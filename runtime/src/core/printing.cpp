// Tensor::str(): the layout of PyTorch's repr, so printed output looks
// familiar: integer-valued floats as "1.", four decimals otherwise,
// scientific notation for wide ranges, "..." past 1000 elements.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/shape.h"
#include "ember/tensor.h"

namespace ember {
namespace {

constexpr int64_t kSummarizeThreshold = 1000;
constexpr int64_t kEdgeItems = 3;
constexpr int kLineWidth = 80;

struct Formatter {
  DType dtype;
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
      std::snprintf(buf, sizeof buf, "%.4e", v);
    } else if (integer_mode) {
      std::snprintf(buf, sizeof buf, "%.0f.", v);
    } else {
      std::snprintf(buf, sizeof buf, "%.4f", v);
    }
    return buf;
  }

  std::string padded(double v) const {
    std::string s = format(v);
    return std::string(width > s.size() ? width - s.size() : 0, ' ') + s;
  }
};

Formatter make_formatter(DType dtype, const std::vector<double>& values) {
  Formatter f{dtype};
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
    if (any_finite && min_abs != INFINITY) {
      f.sci_mode = f.integer_mode ? max_abs > 1e8 : (max_abs / min_abs > 1000.0 || max_abs > 1e8 || min_abs < 1e-4);
    }
  }
  for (double v : values) f.width = std::max(f.width, f.format(v).size());
  return f;
}

// Row-major element indices shown after summarisation, and their values.
void collect(const std::vector<double>& all, const DimVector& sizes, const DimVector& strides, bool summarize,
             size_t dim, int64_t base, std::vector<double>& out) {
  if (dim == sizes.size()) {
    out.push_back(all[base]);
    return;
  }
  const int64_t n = sizes[dim];
  for (int64_t i = 0; i < n; ++i) {
    if (summarize && n > 2 * kEdgeItems && i == kEdgeItems) i = n - kEdgeItems;
    collect(all, sizes, strides, summarize, dim + 1, base + i * strides[dim], out);
  }
}

void render(const std::vector<double>& all, const DimVector& sizes, const DimVector& strides, const Formatter& f,
            bool summarize, size_t dim, int64_t base, size_t indent, std::string& out) {
  const int64_t n = sizes[dim];
  out += '[';
  const bool last_dim = dim + 1 == sizes.size();
  size_t line_start = out.size() - indent - 1;
  for (int64_t i = 0; i < n; ++i) {
    if (summarize && n > 2 * kEdgeItems && i == kEdgeItems) {
      out += last_dim ? " ..., " : "...,\n" + std::string(sizes.size() - dim - 1, '\n').substr(1) + std::string(indent + 1, ' ');
      i = n - kEdgeItems;
    }
    const int64_t offset = base + i * strides[dim];
    if (last_dim) {
      std::string item = f.padded(all[offset]);
      if (i > 0 && out.size() - line_start + item.size() + 2 > static_cast<size_t>(kLineWidth)) {
        out += '\n' + std::string(indent + 1, ' ');
        line_start = out.size() - indent - 1;
      }
      out += item;
    } else {
      render(all, sizes, strides, f, summarize, dim + 1, offset, indent + 1, out);
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
    const std::vector<double> all = tolist<double>();
    const bool summarize = numel() > kSummarizeThreshold;
    const DimVector strides_rm = contiguous_strides(sizes());
    std::vector<double> shown;
    if (dim() == 0) {
      shown = all;
    } else {
      collect(all, sizes(), strides_rm, summarize, 0, 0, shown);
    }
    const Formatter f = make_formatter(dtype(), shown);
    if (dim() == 0) {
      body = f.format(all[0]);
    } else {
      render(all, sizes(), strides_rm, f, summarize, 0, 0, 7, body);
    }
  }
  if (!default_dtype_for_printing(dtype())) suffix += ", dtype=ember." + std::string(dtype_name(dtype()));
  return "tensor(" + body + suffix + ")";
}

}  // namespace ember
