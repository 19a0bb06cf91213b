// cumsum and sort: primitives (sdk/docs/ops.md "Scans and sorting"); topk is
// a composite over sort.
#include <string>

#include "core/shape.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_registry.h"
#include "ember/error.h"
#include "ember/functional.h"

namespace ember {

Tensor cumsum(const Tensor& x, int64_t dim, std::optional<DType> dtype) {
  const int64_t d = normalize_dim(dim, x.dim(), "cumsum");
  static const dispatch::Op& op = dispatch::op(dispatch::OpId::Cumsum);
  const Tensor in = dtype ? x.to(*dtype) : x;
  // Kernels see at least one dimension; a 0-d input is a line of one.
  if (in.dim() == 0) return dispatch::call_single(op, {in.reshape({1})}, {dispatch::attr_int("dim", 0)}).view({});
  return dispatch::call_single(op, {in}, {dispatch::attr_int("dim", d)});
}

ValuesIndices sort(const Tensor& x, int64_t dim, bool descending, bool stable) {
  const int64_t d = normalize_dim(dim, x.dim(), "sort");
  static const dispatch::Op& op = dispatch::op(dispatch::OpId::Sort);
  const Tensor input = x.dim() == 0 ? x.reshape({1}) : x;
  const std::vector<Tensor> outputs =
      dispatch::call_outputs(op, {input}, 2,
                             {dispatch::attr_int("dim", x.dim() == 0 ? 0 : d),
                              dispatch::attr_bool("descending", descending), dispatch::attr_bool("stable", stable)});
  if (x.dim() == 0) return {outputs[0].view({}), outputs[1].view({})};
  return {outputs[0], outputs[1]};
}

ValuesIndices topk(const Tensor& x, int64_t k, int64_t dim, bool largest, bool /*sorted*/) {
  const int64_t d = normalize_dim(dim, x.dim(), "topk");
  const int64_t size = x.dim() == 0 ? 1 : x.size(d);
  if (k < 0 || k > size) {
    throw_error(ErrorKind::Runtime, "topk(): k (" + std::to_string(k) + ") is out of range for dimension " +
                                        std::to_string(d) + " of size " + std::to_string(size) + ", input shape " +
                                        shape_str(x.sizes()));
  }
  // A stable sort makes ties come out in index order, so the result is
  // always sorted and deterministic whatever `sorted` asks for.
  ValuesIndices all = sort(x, d, largest, /*stable=*/true);
  if (x.dim() == 0) return all;
  return {all.values.narrow(d, 0, k), all.indices.narrow(d, 0, k)};
}

}  // namespace ember
