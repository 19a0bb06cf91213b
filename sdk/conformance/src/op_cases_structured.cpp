// Op cases of factories, reductions, matrix products, indexing, scans and
// sorting (Note [Op cases]).
#include <ember/functional.h>
#include <ember/ops.h>

#include "op_case.h"

namespace ember::conformance {

namespace {

Scalar fill_value(DType dtype) {
  if (dtype == DType::Bool) return true;
  if (is_floating(dtype)) return -2.75;
  return 7;
}

OpCase fill_case() {
  auto full_of = [](DimVector shape) {
    return [shape](const Tensors&, DType dtype, Device device) {
      return Tensors{full(shape, fill_value(dtype), TensorOptions(dtype, device))};
    };
  };
  const OpCall strided = [](const Tensors&, DType dtype, Device device) {
    Tensor t = zeros({6, 5}, TensorOptions(dtype, device));
    Tensor rows = t.slice(0, 0, 6, 2);
    rows.fill_(fill_value(dtype));
    return Tensors{t};
  };
  return {"fill", all_dtypes(),
          {
              {"contiguous", {}, full_of({3, 5})},
              {"0-d", {}, full_of({})},
              {"empty", {}, full_of({0, 3})},
              {"strided view", {}, strided},
              {"large odd size", {}, full_of({257, 129})},
          }};
}

OpCase arange_case() {
  auto range = [](double fstart, double fend, double fstep, int64_t start, int64_t end, int64_t step) {
    return [=](const Tensors&, DType dtype, Device device) {
      const TensorOptions options(dtype, device);
      return Tensors{is_floating(dtype) ? arange(fstart, fend, fstep, options) : arange(start, end, step, options)};
    };
  };
  return {"arange", numeric_dtypes(),
          {
              {"ascending", {}, range(-1.5, 3.2, 0.25, 2, 50, 3)},
              {"descending", {}, range(3.0, -2.0, -0.5, 90, 10, -7)},
              {"empty", {}, range(1.0, 1.0, 1.0, 5, 5, 1)},
              {"one element", {}, range(0.5, 1.0, 1.0, 3, 4, 1)},
          }};
}

OpCase random_case(const std::string& op, void (*draw)(Tensor&)) {
  auto draw_into = [draw](DimVector shape) {
    return [draw, shape](const Tensors&, DType dtype, Device device) {
      manual_seed(20240611);
      Tensor t = empty(shape, TensorOptions(dtype, device));
      draw(t);
      return Tensors{t};
    };
  };
  const OpCall strided = [draw](const Tensors&, DType dtype, Device device) {
    manual_seed(20240611);
    Tensor t = zeros({6, 5}, TensorOptions(dtype, device));
    Tensor rows = t.slice(0, 0, 6, 2);
    draw(rows);
    return Tensors{t};
  };
  return {op, floating_dtypes(),
          {
              {"contiguous", {}, draw_into({3, 5})},
              {"0-d", {}, draw_into({})},
              {"empty", {}, draw_into({0, 2})},
              {"strided view", {}, strided},
              // normal's Box-Muller runs in double: libm differences may show.
              {"large odd size", {}, draw_into({1031, 3}), 10},
          }};
}

using ReduceFn = Tensor (*)(const Tensor&, IntArrayRef, bool);

OpCase reduce_case(const std::string& op, std::vector<DType> dtypes, ReduceFn fn, Values domain,
                   bool empty_allowed) {
  auto reduce = [fn](std::vector<int64_t> dims, bool keepdim) {
    return [fn, dims, keepdim](const Tensors& in, DType, Device) { return Tensors{fn(in[0], dims, keepdim)}; };
  };
  OpCase c{op, std::move(dtypes),
           {
               {"all dims", {{.shape = {3, 5}, .values = domain}}, reduce({}, false), 1, true},
               {"dim 1", {{.shape = {3, 5}, .values = domain}}, reduce({1}, false), 1, true},
               {"dims 0,2 keepdim", {{.shape = {3, 4, 5}, .values = domain}}, reduce({0, 2}, true)},
               {"0-d", {{.shape = {}, .values = domain}}, reduce({}, false)},
               {"transposed", {{.shape = {5, 3}, .values = domain, .view = transposed}}, reduce({0}, false)},
               {"expanded",
                {{.shape = {1, 6}, .values = domain, .view = [](const Tensor& t) { return t.expand({4, 6}); }}},
                reduce({0}, false)},
               {"special values", {{.shape = {16}, .values = Values::Special}}, reduce({}, false)},
               {"large odd size, one dim", {{.shape = {257, 129}, .values = domain}}, reduce({1}, false), 10},
               {"large odd size, all dims", {{.shape = {33023}, .values = domain}}, reduce({}, false), 30},
           }};
  if (empty_allowed) {
    c.variations.push_back({"empty reduced dim", {{.shape = {0, 4}, .values = domain}}, reduce({0}, false)});
  }
  return c;
}

OpCase arg_reduce_case(const std::string& op, Tensor (*fn)(const Tensor&, std::optional<int64_t>, bool)) {
  auto reduce = [fn](std::optional<int64_t> dim, bool keepdim) {
    return [fn, dim, keepdim](const Tensors& in, DType, Device) { return Tensors{fn(in[0], dim, keepdim)}; };
  };
  return {op, numeric_dtypes(),
          {
              {"flattened", {{.shape = {3, 5}}}, reduce(std::nullopt, false)},
              {"dim 1", {{.shape = {3, 5}}}, reduce(1, false)},
              {"dim 0 keepdim", {{.shape = {4, 3}}}, reduce(0, true)},
              {"ties pick the first", {{.shape = {6, 7}, .values = Values::NearOne}}, reduce(1, false)},
              {"special values", {{.shape = {16}, .values = Values::Special}}, reduce(0, false)},
              {"transposed", {{.shape = {5, 3}, .view = transposed}}, reduce(1, false)},
              {"0-d", {{.shape = {}}}, reduce(std::nullopt, false)},
              {"large odd size", {{.shape = {257, 129}}}, reduce(1, false)},
          }};
}

OpCase mm_case() {
  const OpCall call = [](const Tensors& in, DType, Device) { return Tensors{mm(in[0], in[1])}; };
  return {"mm", numeric_dtypes(),
          {
              {"contiguous", {{.shape = {3, 4}}, {.shape = {4, 5}}}, call, 1, true},
              {"odd sizes", {{.shape = {17, 33}}, {.shape = {33, 9}}}, call, 3},
              {"transposed operands", {{.shape = {4, 3}, .view = transposed}, {.shape = {5, 4}, .view = transposed}},
               call},
              {"expanded operand",
               {{.shape = {3, 4}}, {.shape = {1, 5}, .view = [](const Tensor& t) { return t.expand({4, 5}); }}}, call},
              {"K = 0", {{.shape = {3, 0}}, {.shape = {0, 4}}}, call},
              {"M = 0", {{.shape = {0, 4}}, {.shape = {4, 3}}}, call},
              {"large", {{.shape = {64, 128}}, {.shape = {128, 96}}}, call, 10},
          }};
}

OpCase bmm_case() {
  const OpCall call = [](const Tensors& in, DType, Device) { return Tensors{bmm(in[0], in[1])}; };
  return {"bmm", numeric_dtypes(),
          {
              {"contiguous", {{.shape = {2, 3, 4}}, {.shape = {2, 4, 5}}}, call, 1, true},
              {"transposed matrices",
               {{.shape = {2, 4, 3}, .view = transposed}, {.shape = {2, 5, 4}, .view = transposed}}, call},
              {"expanded batch",
               {{.shape = {3, 2, 4}}, {.shape = {1, 4, 5}, .view = [](const Tensor& t) { return t.expand({3, 4, 5}); }}},
               call},
              {"B = 0", {{.shape = {0, 2, 3}}, {.shape = {0, 3, 4}}}, call},
              {"K = 0", {{.shape = {2, 3, 0}}, {.shape = {2, 0, 4}}}, call},
              {"odd sizes", {{.shape = {3, 17, 33}}, {.shape = {3, 33, 9}}}, call, 3},
          }};
}

InputSpec index_spec(DimVector shape, int64_t limit, DType dtype = DType::Int64) {
  return {.shape = std::move(shape),
          .values = Values::Index,
          .dtype = dtype,
          .index_limit = limit,
          .nonnegative_index = true};
}

OpCase index_select_case() {
  auto select = [](int64_t dim) {
    return [dim](const Tensors& in, DType, Device) { return Tensors{index_select(in[0], dim, in[1])}; };
  };
  return {"index_select", all_dtypes(),
          {
              {"dim 0", {{.shape = {5, 4}}, index_spec({3}, 5)}, select(0), 1, true},
              {"dim 1 with repeats", {{.shape = {3, 6}}, index_spec({9}, 6)}, select(1), 1, true},
              {"int32 index", {{.shape = {5, 4}}, index_spec({4}, 5, DType::Int32)}, select(0)},
              {"empty index", {{.shape = {5, 4}}, index_spec({0}, 5)}, select(0)},
              {"transposed source", {{.shape = {4, 5}, .view = transposed}, index_spec({3}, 4)}, select(1)},
              {"1-d source", {{.shape = {7}}, index_spec({5}, 7)}, select(0)},
          }};
}

OpCase gather_case() {
  auto gather_along = [](int64_t dim) {
    return [dim](const Tensors& in, DType, Device) { return Tensors{gather(in[0], dim, in[1])}; };
  };
  return {"gather", all_dtypes(),
          {
              {"dim 1", {{.shape = {4, 5}}, index_spec({4, 3}, 5)}, gather_along(1), 1, true},
              {"dim 0", {{.shape = {4, 5}}, index_spec({2, 5}, 4)}, gather_along(0)},
              {"smaller index", {{.shape = {4, 5}}, index_spec({3, 2}, 5)}, gather_along(1)},
              {"transposed source", {{.shape = {5, 4}, .view = transposed}, index_spec({4, 3}, 5)}, gather_along(1)},
              {"empty index", {{.shape = {4, 5}}, index_spec({4, 0}, 5)}, gather_along(1)},
          }};
}

OpCase scatter_add_case() {
  auto scatter_along = [](int64_t dim) {
    return [dim](const Tensors& in, DType, Device) { return Tensors{scatter_add(in[0], dim, in[1], in[2])}; };
  };
  return {"scatter_add", all_dtypes(),
          {
              {"dim 1 with repeats", {{.shape = {4, 5}}, index_spec({4, 7}, 5), {.shape = {4, 7}}}, scatter_along(1),
               1, true},
              {"dim 0", {{.shape = {4, 5}}, index_spec({3, 5}, 4), {.shape = {3, 5}}}, scatter_along(0)},
              {"larger src", {{.shape = {4, 5}}, index_spec({2, 3}, 5), {.shape = {4, 4}}}, scatter_along(1)},
              {"transposed source", {{.shape = {5, 4}, .view = transposed}, index_spec({4, 3}, 5), {.shape = {4, 3}}},
               scatter_along(1)},
              {"empty index", {{.shape = {4, 5}}, index_spec({4, 0}, 5), {.shape = {4, 0}}}, scatter_along(1)},
          }};
}

OpCase cat_case() {
  auto cat_along = [](int64_t dim) {
    return [dim](const Tensors& in, DType, Device) { return Tensors{cat(in, dim)}; };
  };
  return {"cat", all_dtypes(),
          {
              {"dim 0", {{.shape = {2, 3}}, {.shape = {4, 3}}}, cat_along(0), 1, true},
              {"dim 1, three inputs", {{.shape = {2, 3}}, {.shape = {2, 1}}, {.shape = {2, 4}}}, cat_along(1)},
              {"empty input", {{.shape = {0, 3}}, {.shape = {2, 3}}}, cat_along(0)},
              {"1-d empty input", {{.shape = {0}}, {.shape = {2, 3}}}, cat_along(0)},
              {"non-contiguous inputs", {{.shape = {3, 2}, .view = transposed}, {.shape = {8, 3}, .view = every_other}},
               cat_along(0)},
              {"0-sized result", {{.shape = {0, 3}}, {.shape = {0, 3}}}, cat_along(0)},
          }};
}

OpCase cumsum_case() {
  auto scan = [](int64_t dim) {
    return [dim](const Tensors& in, DType, Device) { return Tensors{cumsum(in[0], dim)}; };
  };
  return {"cumsum", all_dtypes(),
          {
              {"dim 1", {{.shape = {3, 5}}}, scan(1), 1, true},
              {"dim 0", {{.shape = {4, 3}}}, scan(0)},
              {"0-d", {{.shape = {}}}, scan(0)},
              {"empty", {{.shape = {0, 3}}}, scan(1)},
              {"transposed", {{.shape = {5, 3}, .view = transposed}}, scan(1)},
              {"special values", {{.shape = {16}, .values = Values::Special}}, scan(0)},
              {"large odd size", {{.shape = {1031}}}, scan(0), 30},
          }};
}

OpCase sort_case() {
  // Stable, so that the indices of equal values are determined too.
  auto sort_along = [](int64_t dim, bool descending) {
    return [dim, descending](const Tensors& in, DType, Device) {
      ValuesIndices sorted = sort(in[0], dim, descending, /*stable=*/true);
      return Tensors{sorted.values, sorted.indices};
    };
  };
  return {"sort", all_dtypes(),
          {
              {"ascending", {{.shape = {3, 5}}}, sort_along(1, false), 1, true},
              {"descending dim 0", {{.shape = {6, 3}}}, sort_along(0, true)},
              {"ties keep their order", {{.shape = {4, 9}, .values = Values::NearOne}}, sort_along(1, false)},
              {"special values", {{.shape = {16}, .values = Values::Special}}, sort_along(0, false)},
              {"special values descending", {{.shape = {16}, .values = Values::Special}}, sort_along(0, true)},
              {"transposed", {{.shape = {5, 3}, .view = transposed}}, sort_along(1, false)},
              {"0-d", {{.shape = {}}}, sort_along(0, false)},
              {"empty", {{.shape = {0, 3}}}, sort_along(1, false)},
              {"large odd size", {{.shape = {1031}}}, sort_along(0, true)},
          }};
}

}  // namespace

std::vector<OpCase> structured_cases() {
  return {
      fill_case(),
      arange_case(),
      random_case("uniform", [](Tensor& t) { uniform_(t, -2.0, 3.0); }),
      random_case("normal", [](Tensor& t) { normal_(t, 0.5, 2.0); }),
      reduce_case("sum", all_dtypes(), [](const Tensor& x, IntArrayRef d, bool k) { return sum(x, d, k); },
                  Values::Normal, true),
      reduce_case("prod", all_dtypes(), [](const Tensor& x, IntArrayRef d, bool k) { return prod(x, d, k); },
                  Values::NearOne, true),
      reduce_case("mean", floating_dtypes(), [](const Tensor& x, IntArrayRef d, bool k) { return mean(x, d, k); },
                  Values::Normal, true),
      reduce_case("amax", all_dtypes(), [](const Tensor& x, IntArrayRef d, bool k) { return amax(x, d, k); },
                  Values::Normal, false),
      reduce_case("amin", all_dtypes(), [](const Tensor& x, IntArrayRef d, bool k) { return amin(x, d, k); },
                  Values::Normal, false),
      arg_reduce_case("argmax", [](const Tensor& x, std::optional<int64_t> d, bool k) { return argmax(x, d, k); }),
      arg_reduce_case("argmin", [](const Tensor& x, std::optional<int64_t> d, bool k) { return argmin(x, d, k); }),
      mm_case(),
      bmm_case(),
      index_select_case(),
      gather_case(),
      scatter_add_case(),
      cat_case(),
      cumsum_case(),
      sort_case(),
  };
}

}  // namespace ember::conformance
