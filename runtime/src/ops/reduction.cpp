#include <string>

#include "autograd/record.h"
#include "core/shape.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_registry.h"
#include "ember/error.h"
#include "ember/ops.h"

namespace ember {
namespace {

using dispatch::op_named;

// The kernel writes a keepdim-shaped output; drop the reduced dims after,
// keeping the op's name on the result's history.
Tensor finish_keepdim(const char* name, const Tensor& out, IntArrayRef dims, int64_t rank, bool keepdim) {
  if (keepdim || rank == 0) return out;
  DimVector shape;
  for (int64_t d = 0; d < rank; ++d) {
    const bool reduced = dims.empty() || std::find(dims.begin(), dims.end(), d) != dims.end();
    if (!reduced) shape.push_back(out.sizes()[d]);
  }
  return autograd::name_history(out.view(shape), autograd::backward_name(name));
}

void check_nonempty_reduction(const char* name, const Tensor& x, IntArrayRef dims) {
  if (x.numel() != 0) return;
  // PyTorch: RuntimeError for a full reduction, IndexError for an empty reduced dim.
  if (dims.empty()) {
    throw_error(ErrorKind::Runtime, std::string(name) +
                                        "(): expected reduction dim to be specified for "
                                        "input.numel() == 0; input shape " +
                                        shape_str(x.sizes()));
  }
  for (int64_t d : dims) {
    if (x.sizes()[d] == 0) {
      throw_error(ErrorKind::Index, std::string(name) + "(): expected reduction dim " + std::to_string(d) +
                                        " to have non-zero size; input shape " + shape_str(x.sizes()));
    }
  }
}

Tensor reduce(const char* name, const Tensor& x, IntArrayRef dims_in, bool keepdim) {
  const DimVector dims = normalize_dims(dims_in, x.dim(), name);
  const DimVector kernel_dims = x.dim() == 0 ? DimVector() : dims;
  Tensor out = dispatch::call_single(op_named(name), {x},
                                     {dispatch::attr_ints("dims", kernel_dims), dispatch::attr_bool("keepdim", true)});
  return finish_keepdim(name, out, dims, x.dim(), keepdim);
}

Tensor arg_reduce(const char* name, const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  if (x.dtype() == DType::Bool) {
    throw_error(ErrorKind::NotImplemented, std::string(name) + ": not implemented for dtype bool");
  }
  if (dim && x.dim() > 0) {
    const int64_t d = normalize_dim(*dim, x.dim(), name);
    if (x.sizes()[d] == 0) {
      throw_error(ErrorKind::Index, std::string(name) + "(): expected reduction dim " + std::to_string(d) +
                                        " to have non-zero size; input shape " + shape_str(x.sizes()));
    }
    Tensor out = dispatch::call_single(op_named(name), {x},
                                       {dispatch::attr_int("dim", d), dispatch::attr_bool("keepdim", true)});
    const int64_t dd[] = {d};
    return finish_keepdim(name, out, dd, x.dim(), keepdim);
  }
  if (x.numel() == 0) {
    throw_error(ErrorKind::Index, std::string(name) +
                                      "(): expected reduction dim to be specified for "
                                      "input.numel() == 0; input shape " +
                                      shape_str(x.sizes()));
  }
  Tensor out =
      dispatch::call_single(op_named(name), {x}, {dispatch::attr_int("dim", -1), dispatch::attr_bool("keepdim", true)});
  return keepdim ? out : out.view(IntArrayRef{});
}

}  // namespace

Tensor sum(const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<DType> dtype) {
  return reduce("sum", dtype ? x.to(*dtype) : x, dims, keepdim);
}

Tensor prod(const Tensor& x, IntArrayRef dims, bool keepdim) { return reduce("prod", x, dims, keepdim); }

Tensor mean(const Tensor& x, IntArrayRef dims, bool keepdim) {
  if (!is_floating(x.dtype())) {
    throw_error(ErrorKind::Runtime,
                "mean(): could not infer output dtype. Input dtype must be floating point, but got " +
                    std::string(dtype_name(x.dtype())));
  }
  return reduce("mean", x, dims, keepdim);
}

Tensor amax(const Tensor& x, IntArrayRef dims, bool keepdim) {
  check_nonempty_reduction("amax", x, normalize_dims(dims, x.dim(), "amax"));
  return reduce("amax", x, dims, keepdim);
}

Tensor amin(const Tensor& x, IntArrayRef dims, bool keepdim) {
  check_nonempty_reduction("amin", x, normalize_dims(dims, x.dim(), "amin"));
  return reduce("amin", x, dims, keepdim);
}

Tensor argmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  return arg_reduce("argmax", x, dim, keepdim);
}
Tensor argmin(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  return arg_reduce("argmin", x, dim, keepdim);
}

ValuesIndices max(const Tensor& x, int64_t dim, bool keepdim) {
  const int64_t dims[] = {dim};
  return {amax(x, dims, keepdim), argmax(x, dim, keepdim)};
}

ValuesIndices min(const Tensor& x, int64_t dim, bool keepdim) {
  const int64_t dims[] = {dim};
  return {amin(x, dims, keepdim), argmin(x, dim, keepdim)};
}

Tensor max(const Tensor& x) { return amax(x); }
Tensor min(const Tensor& x) { return amin(x); }

}  // namespace ember
