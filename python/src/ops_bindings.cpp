// Elementwise, reduction, linear-algebra, indexing and shape ops: each is
// ember.<op>(input, ...) and Tensor.<op>(...), plus the Python operators.
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "bindings.h"
#include "casters.h"
#include "core/memory_overlap.h"
#include "ember/autograd.h"
#include "ember/error.h"
#include "ember/functional.h"
#include "ember/optimizer_updates.h"
#include "op_helpers.h"

namespace py = pybind11;

namespace ember::python {
namespace {

using UnaryFn = Tensor (*)(const Tensor&);
using BinaryFn = Tensor (*)(const Tensor&, const Tensor&);
using BinaryInplaceFn = Tensor& (*)(Tensor&, const Tensor&);
using ScalarBinaryFn = Tensor (*)(const Tensor&, const Scalar&);

// namedtuple("values indices"), the return type of max(dim), sort, topk;
// leaked so that it outlives every caller during interpreter shutdown.
PyObject* g_values_indices = nullptr;

bool is_one(const Scalar& alpha) { return !alpha.is_floating() && alpha.to_int() == 1; }

// alpha * other for add/sub's alpha; integers stay integers.
Tensor scaled(const Tensor& other, const Scalar& alpha) { return is_one(alpha) ? other : mul(other, alpha); }
Scalar scaled(const Scalar& other, const Scalar& alpha) {
  if (is_one(alpha)) return other;
  if (!other.is_floating() && !alpha.is_floating()) return Scalar(other.to_int() * alpha.to_int());
  return Scalar(other.to_double() * alpha.to_double());
}

// Note [Scaled in-place adds]: x.add_(y, alpha=a) where autograd records
// nothing (a hand-written SGD step, p.data.add_(p.grad, alpha=-lr)) is
// sgd_update's plain step, x - lr * y with lr = -a, which a backend runs as
// one pass where a mul and an add make two; without the kernel, sgd_update's
// decomposition is that same mul and a subtraction, whose bits are the add's.
// Operands that share memory keep the two ops, which read y whole first.
bool adds_as_one_update(const Tensor& a, const Tensor& b) {
  if (autograd::is_grad_enabled() && (a.requires_grad() || b.requires_grad())) return false;
  return is_floating(a.dtype()) && b.dtype() == a.dtype() && b.device() == a.device() && b.sizes() == a.sizes() &&
         !may_share_elements(a, b);
}

void scaled_add_(Tensor& a, const Tensor& b, double alpha) {
  SgdUpdateOptions plain_step;
  plain_step.lr = -alpha;
  sgd_update_(a, b, Tensor(), false, plain_step);
}

void bind_unary(py::module_& m, TensorClass& cls) {
  const std::pair<const char*, UnaryFn> ops[] = {
      {"neg", &neg},         {"negative", &neg},         {"abs", &abs},
      {"sign", &sign},       {"exp", &exp},              {"log", &log},
      {"log1p", &log1p},     {"expm1", &expm1},          {"sqrt", &sqrt},
      {"rsqrt", &rsqrt},     {"sin", &sin},              {"cos", &cos},
      {"tan", &tan},         {"tanh", &tanh},            {"sigmoid", &sigmoid},
      {"erf", &erf},         {"erfc", &erfc},            {"erfinv", &erfinv},
      {"asin", &asin},       {"arcsin", &asin},          {"acos", &acos},
      {"arccos", &acos},     {"atan", &atan},            {"arctan", &atan},
      {"lgamma", &lgamma},   {"digamma", &digamma},      {"reciprocal", &reciprocal},
      {"floor", &floor},
      {"ceil", &ceil},       {"round", &round},          {"trunc", &trunc},
      {"logical_not", &logical_not}, {"bitwise_not", &bitwise_not}, {"relu", &relu},
  };
  for (const auto& [name, fn] : ops) {
    def_op(m, cls, name, fn);
    cls.def((std::string(name) + "_").c_str(),
            inplace<>([fn = fn, name = name](Tensor& t) { apply_inplace(t, fn, name); }));
  }
  cls.def("__neg__", &neg, py::call_guard<py::gil_scoped_release>());
  cls.def("__abs__", &abs, py::call_guard<py::gil_scoped_release>());
  cls.def("__invert__", &bitwise_not, py::call_guard<py::gil_scoped_release>());
  cls.def("__pos__", [](py::object self) { return self; });
}

// Ops with a Tensor-and-Scalar overload in the core (weak scalar promotion
// there); the others wrap the scalar in a 0-d tensor, which promotes the same.
template <BinaryFn Fn>
Tensor with_scalar(const Tensor& a, const Scalar& b) {
  return Fn(a, wrap_scalar(a, b));
}
template <BinaryFn Fn>
Tensor scalar_first(const Tensor& b, const Scalar& a) {
  return Fn(wrap_scalar(b, a), b);
}

template <BinaryFn Fn, ScalarBinaryFn ScalarFn>
void def_binary(py::module_& m, TensorClass& cls, const char* name, const char* dunder, const char* rdunder) {
  const auto no_gil = py::call_guard<py::gil_scoped_release>();
  def_op(m, cls, name, Fn, py::arg("other"));
  def_op(m, cls, name, ScalarFn, py::arg("other"));
  if (dunder != nullptr) {
    cls.def(dunder, Fn, py::is_operator(), no_gil);
    cls.def(dunder, ScalarFn, py::is_operator(), no_gil);
  }
  if (rdunder != nullptr) cls.def(rdunder, &scalar_first<Fn>, py::is_operator(), no_gil);
}

void bind_binary(py::module_& m, TensorClass& cls) {
  const auto no_gil = py::call_guard<py::gil_scoped_release>();
  // add/sub take PyTorch's alpha: a + alpha * b.
  for (const char* name : {"add", "sub"}) {
    const bool is_add = name[0] == 'a';
    auto tensor_fn = [is_add](const Tensor& a, const Tensor& b, const Scalar& alpha) {
      return is_add ? add(a, scaled(b, alpha)) : sub(a, scaled(b, alpha));
    };
    auto scalar_fn = [is_add](const Tensor& a, const Scalar& b, const Scalar& alpha) {
      return is_add ? add(a, scaled(b, alpha)) : sub(a, scaled(b, alpha));
    };
    def_op(m, cls, name, tensor_fn, py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
    def_op(m, cls, name, scalar_fn, py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
    auto tensor_inplace = [is_add](Tensor& a, const Tensor& b, const Scalar& alpha) {
      if (!is_one(alpha) && adds_as_one_update(a, b)) {
        scaled_add_(a, b, is_add ? alpha.to_double() : -alpha.to_double());
        return;
      }
      is_add ? add_(a, scaled(b, alpha)) : sub_(a, scaled(b, alpha));
    };
    cls.def((std::string(name) + "_").c_str(), inplace<const Tensor&, const Scalar&>(tensor_inplace),
            py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
    cls.def((std::string(name) + "_").c_str(),
            inplace<const Scalar&, const Scalar&>([tensor_inplace](Tensor& a, const Scalar& b, const Scalar& alpha) {
              tensor_inplace(a, wrap_scalar(a, b), alpha);
            }),
            py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
  }
  def_op(m, cls, "subtract", [](const Tensor& a, const Tensor& b) { return sub(a, b); }, py::arg("other"));
  cls.def("__add__", py::overload_cast<const Tensor&, const Tensor&>(&add), py::is_operator(), no_gil)
      .def("__add__", py::overload_cast<const Tensor&, const Scalar&>(&add), py::is_operator(), no_gil)
      .def("__radd__", py::overload_cast<const Tensor&, const Scalar&>(&add), py::is_operator(), no_gil)
      .def("__sub__", py::overload_cast<const Tensor&, const Tensor&>(&sub), py::is_operator(), no_gil)
      .def("__sub__", py::overload_cast<const Tensor&, const Scalar&>(&sub), py::is_operator(), no_gil)
      .def("__rsub__", [](const Tensor& b, const Scalar& a) { return a - b; }, py::is_operator(), no_gil)
      .def("__rmul__", py::overload_cast<const Tensor&, const Scalar&>(&mul), py::is_operator(), no_gil)
      .def("__rtruediv__", [](const Tensor& b, const Scalar& a) { return a / b; }, py::is_operator(), no_gil);

  def_binary<&mul, static_cast<ScalarBinaryFn>(&mul)>(m, cls, "mul", "__mul__", nullptr);
  def_binary<&mul, static_cast<ScalarBinaryFn>(&mul)>(m, cls, "multiply", nullptr, nullptr);
  def_binary<&div, static_cast<ScalarBinaryFn>(&div)>(m, cls, "div", "__truediv__", nullptr);
  def_binary<&div, static_cast<ScalarBinaryFn>(&div)>(m, cls, "divide", nullptr, nullptr);
  def_binary<&div, static_cast<ScalarBinaryFn>(&div)>(m, cls, "true_divide", nullptr, nullptr);
  def_binary<&pow, static_cast<ScalarBinaryFn>(&pow)>(m, cls, "pow", "__pow__", "__rpow__");
  def_binary<&floor_divide, &with_scalar<&floor_divide>>(m, cls, "floor_divide", "__floordiv__", "__rfloordiv__");
  def_binary<&remainder, &with_scalar<&remainder>>(m, cls, "remainder", "__mod__", "__rmod__");
  def_binary<&maximum, &with_scalar<&maximum>>(m, cls, "maximum", nullptr, nullptr);
  def_binary<&minimum, &with_scalar<&minimum>>(m, cls, "minimum", nullptr, nullptr);
  def_binary<&atan2, &with_scalar<&atan2>>(m, cls, "atan2", nullptr, nullptr);
  def_binary<&atan2, &with_scalar<&atan2>>(m, cls, "arctan2", nullptr, nullptr);
  def_binary<&bitwise_and, &with_scalar<&bitwise_and>>(m, cls, "bitwise_and", "__and__", "__rand__");
  def_binary<&bitwise_or, &with_scalar<&bitwise_or>>(m, cls, "bitwise_or", "__or__", "__ror__");
  def_binary<&bitwise_xor, &with_scalar<&bitwise_xor>>(m, cls, "bitwise_xor", "__xor__", "__rxor__");
  def_binary<&logical_and, &with_scalar<&logical_and>>(m, cls, "logical_and", nullptr, nullptr);
  def_binary<&logical_or, &with_scalar<&logical_or>>(m, cls, "logical_or", nullptr, nullptr);
  def_binary<&logical_xor, &with_scalar<&logical_xor>>(m, cls, "logical_xor", nullptr, nullptr);
  def_binary<&eq, static_cast<ScalarBinaryFn>(&eq)>(m, cls, "eq", "__eq__", nullptr);
  def_binary<&ne, static_cast<ScalarBinaryFn>(&ne)>(m, cls, "ne", "__ne__", nullptr);
  def_binary<&lt, static_cast<ScalarBinaryFn>(&lt)>(m, cls, "lt", "__lt__", nullptr);
  def_binary<&le, static_cast<ScalarBinaryFn>(&le)>(m, cls, "le", "__le__", nullptr);
  def_binary<&gt, static_cast<ScalarBinaryFn>(&gt)>(m, cls, "gt", "__gt__", nullptr);
  def_binary<&ge, static_cast<ScalarBinaryFn>(&ge)>(m, cls, "ge", "__ge__", nullptr);
  // Python reflects a comparison with the scalar on the left itself: 2 < t is t > 2.

  // In-place forms: x += y keeps x's dtype; the core refuses results x cannot hold.
  const std::pair<const char*, BinaryInplaceFn> core_inplace[] = {
      {"__iadd__", &add_}, {"__isub__", &sub_}, {"__imul__", &mul_}, {"__itruediv__", &div_},
      {"mul_", &mul_},     {"div_", &div_}};
  for (const auto& [name, fn] : core_inplace) {
    cls.def(name, inplace<const Tensor&>(fn), py::is_operator());
    cls.def(name, inplace<const Scalar&>([fn = fn](Tensor& a, const Scalar& b) { fn(a, wrap_scalar(a, b)); }),
            py::is_operator());
  }
  // Each op's in-place method and augmented assignment: {op, method, operator}.
  struct StoredInplace {
    const char* op;
    const char* method;
    const char* dunder;
    BinaryFn fn;
  };
  const StoredInplace stored[] = {{"pow", "pow_", "__ipow__", &pow},
                                  {"atan2", "atan2_", nullptr, &atan2},
                                  {"arctan2", "arctan2_", nullptr, &atan2},
                                  {"floor_divide", "floor_divide_", "__ifloordiv__", &floor_divide},
                                  {"remainder", "remainder_", "__imod__", &remainder},
                                  {"bitwise_and", "bitwise_and_", "__iand__", &bitwise_and},
                                  {"bitwise_or", "bitwise_or_", "__ior__", &bitwise_or},
                                  {"bitwise_xor", "bitwise_xor_", "__ixor__", &bitwise_xor}};
  for (const StoredInplace& entry : stored) {
    auto store = [entry](Tensor& a, const Tensor& b) {
      apply_inplace(a, [&](const Tensor& x) { return entry.fn(x, b); }, entry.op, {b});
    };
    for (const char* name : {entry.method, entry.dunder}) {
      if (name == nullptr) continue;
      cls.def(name, inplace<const Tensor&>(store), py::is_operator());
      cls.def(name, inplace<const Scalar&>([store](Tensor& a, const Scalar& b) { store(a, wrap_scalar(a, b)); }),
              py::is_operator());
    }
  }

  m.def("where", py::overload_cast<const Tensor&, const Tensor&, const Tensor&>(&where), py::arg("condition"),
        py::arg("input"), py::arg("other"), no_gil);
  m.def("where", py::overload_cast<const Tensor&, const Scalar&, const Tensor&>(&where), py::arg("condition"),
        py::arg("input"), py::arg("other"), no_gil);
  m.def("where", py::overload_cast<const Tensor&, const Tensor&, const Scalar&>(&where), py::arg("condition"),
        py::arg("input"), py::arg("other"), no_gil);
  m.def("where", py::overload_cast<const Tensor&, const Scalar&, const Scalar&>(&where), py::arg("condition"),
        py::arg("input"), py::arg("other"), no_gil);
  // x.where(condition, y) keeps x where condition holds.
  cls.def("where", [](const Tensor& x, const Tensor& cond, const Tensor& y) { return where(cond, x, y); },
          py::arg("condition"), py::arg("other"), no_gil);
  cls.def("where", [](const Tensor& x, const Tensor& cond, const Scalar& y) { return where(cond, x, y); },
          py::arg("condition"), py::arg("other"), no_gil);
  def_op(m, cls, "clamp",
         [](const Tensor& x, std::optional<Scalar> lo, std::optional<Scalar> hi) { return clamp(x, lo, hi); },
         py::arg("min") = py::none(), py::arg("max") = py::none());
  def_op(m, cls, "clip",
         [](const Tensor& x, std::optional<Scalar> lo, std::optional<Scalar> hi) { return clamp(x, lo, hi); },
         py::arg("min") = py::none(), py::arg("max") = py::none());
  cls.def("clamp_",
          inplace<std::optional<Scalar>, std::optional<Scalar>>(
              [](Tensor& t, std::optional<Scalar> lo, std::optional<Scalar> hi) {
                apply_inplace(t, [&](const Tensor& x) { return clamp(x, lo, hi); }, "clamp");
              }),
          py::arg("min") = py::none(), py::arg("max") = py::none());
  def_op(m, cls, "masked_fill",
         [](const Tensor& x, const Tensor& mask, const Scalar& value) { return masked_fill(x, mask, value); },
         py::arg("mask"), py::arg("value"));
  cls.def("masked_fill_",
          inplace<const Tensor&, const Scalar&>(
              [](Tensor& t, const Tensor& mask, const Scalar& value) {
                apply_inplace(t, [&](const Tensor& x) { return masked_fill(x, mask, value); }, "masked_fill");
              }),
          py::arg("mask"), py::arg("value"));
  // x.f_(...) for the in-place methods written in Python: fn(x) stored into
  // x (ember::apply_inplace: x's shape, a dtype x can hold, the write
  // recorded). x is passed among the operands, so that the store never takes
  // the in-place kernel of a primitive called `name`: fn may give that
  // primitive arguments of its own.
  m.def(
      "_apply_inplace",
      [](py::object self, const py::function& fn, const std::string& name) {
        Tensor& x = self.cast<Tensor&>();
        apply_inplace(x, [&fn](const Tensor& t) { return fn(t).cast<Tensor>(); }, name, {x});
        return self;
      },
      py::arg("self"), py::arg("fn"), py::arg("name"));
  cls.def("copy_", inplace<const Tensor&>([](Tensor& t, const Tensor& src) { t.copy_(src); }), py::arg("src"));
  cls.def("fill_", inplace<const Scalar&>([](Tensor& t, const Scalar& v) { t.fill_(v); }), py::arg("value"));
  // A 0-d tensor as the value, as PyTorch allows: copied in, so it may live on the device and carry a gradient.
  cls.def("fill_",
          inplace<const Tensor&>([](Tensor& t, const Tensor& value) {
            if (value.dim() != 0) {
              throw_error(ErrorKind::Runtime, "fill_ only supports 0-dimension value tensor but got tensor with " +
                                                  std::to_string(value.dim()) + " dimensions.");
            }
            t.copy_(value.expand(t.sizes()));
          }),
          py::arg("value"));
  cls.def("zero_", inplace<>([](Tensor& t) { t.fill_(0); }));
  def_op(m, cls, "result_type",
         [](const Tensor& a, const Tensor& b) { return result_type(a, b); }, py::arg("other"));
  def_op(m, cls, "result_type",
         [](const Tensor& a, const Scalar& b) { return result_type(a, b); }, py::arg("other"));
}

void bind_reductions(py::module_& m, TensorClass& cls) {
  def_op(m, cls, "sum",
         [](const Tensor& x, const Dims& dim, bool keepdim, std::optional<DType> dtype) {
           return sum(x, dim.values, keepdim, dtype);
         },
         py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(), py::arg("dtype") = py::none());
  using DimsReduce = Tensor (*)(const Tensor&, IntArrayRef, bool);
  const std::pair<const char*, DimsReduce> dims_reductions[] = {
      {"mean", &mean}, {"amax", &amax}, {"amin", &amin}, {"logsumexp", &logsumexp}};
  for (const auto& [name, fn] : dims_reductions) {
    def_op(m, cls, name,
           [fn = fn](const Tensor& x, const Dims& dim, bool keepdim) { return fn(x, dim.values, keepdim); },
           py::arg("dim") = py::none(), py::arg("keepdim") = false);
  }
  // prod takes one dim (or none), as PyTorch's.
  def_op(m, cls, "prod",
         [](const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
           return dim ? prod(x, {*dim}, keepdim) : prod(x);
         },
         py::arg("dim") = py::none(), py::arg("keepdim") = false);
  for (const char* name : {"var", "std"}) {
    const bool is_var = name[0] == 'v';
    def_op(m, cls, name,
           [is_var](const Tensor& x, const Dims& dim, std::optional<bool> unbiased, std::optional<double> correction,
                    bool keepdim) {
             const double c = correction ? *correction : (unbiased.value_or(true) ? 1.0 : 0.0);
             return is_var ? var(x, dim.values, c, keepdim) : ember::std(x, dim.values, c, keepdim);
           },
           py::arg("dim") = py::none(), py::arg("unbiased") = py::none(), py::kw_only(),
           py::arg("correction") = py::none(), py::arg("keepdim") = false);
  }
  def_op(m, cls, "norm",
         [](const Tensor& x, double p, const Dims& dim, bool keepdim) { return norm(x, p, dim.values, keepdim); },
         py::arg("p") = 2.0, py::arg("dim") = py::none(), py::arg("keepdim") = false);
  def_op(m, cls, "argmax", &argmax, py::arg("dim") = py::none(), py::arg("keepdim") = false);
  def_op(m, cls, "argmin", &argmin, py::arg("dim") = py::none(), py::arg("keepdim") = false);
  for (const char* name : {"max", "min"}) {
    const bool is_max = name[1] == 'a';
    def_op(m, cls, name, [is_max](const Tensor& x) { return is_max ? max(x) : min(x); });
    def_op(m, cls, name,
           [is_max](const Tensor& x, int64_t dim, bool keepdim) {
             return is_max ? max(x, dim, keepdim) : min(x, dim, keepdim);
           },
           py::arg("dim"), py::arg("keepdim") = false);
    def_op(m, cls, name, [is_max](const Tensor& a, const Tensor& b) { return is_max ? maximum(a, b) : minimum(a, b); },
           py::arg("other"));
  }
  def_op(m, cls, "cumsum", &cumsum, py::arg("dim"), py::kw_only(), py::arg("dtype") = py::none());
  def_op(m, cls, "sort",
         [](const Tensor& x, int64_t dim, bool descending, bool stable) { return sort(x, dim, descending, stable); },
         py::arg("dim") = -1, py::arg("descending") = false, py::kw_only(), py::arg("stable") = false);
  def_op(m, cls, "argsort",
         [](const Tensor& x, int64_t dim, bool descending, bool stable) {
           return sort(x, dim, descending, stable).indices;
         },
         py::arg("dim") = -1, py::arg("descending") = false, py::kw_only(), py::arg("stable") = false);
  def_op(m, cls, "topk",
         [](const Tensor& x, int64_t k, int64_t dim, bool largest, bool sorted) {
           return topk(x, k, dim, largest, sorted);
         },
         py::arg("k"), py::arg("dim") = -1, py::arg("largest") = true, py::arg("sorted") = true);
  def_op(m, cls, "softmax", [](const Tensor& x, int64_t dim) { return softmax(x, dim); }, py::arg("dim"));
  def_op(m, cls, "log_softmax", [](const Tensor& x, int64_t dim) { return log_softmax(x, dim); }, py::arg("dim"));
}

void bind_linalg_and_shape(py::module_& m, TensorClass& cls) {
  const auto no_gil = py::call_guard<py::gil_scoped_release>();
  def_op(m, cls, "matmul", &matmul, py::arg("other"));
  def_op(m, cls, "mm", &mm, py::arg("mat2"));
  def_op(m, cls, "bmm", &bmm, py::arg("mat2"));
  cls.def("__matmul__", &matmul, py::is_operator(), no_gil);
  def_op(m, cls, "index_select", &index_select, py::arg("dim"), py::arg("index"));
  def_op(m, cls, "gather", &gather, py::arg("dim"), py::arg("index"));
  def_op(m, cls, "scatter_add", &scatter_add, py::arg("dim"), py::arg("index"), py::arg("src"));
  def_op(m, cls, "flip", [](const Tensor& x, const Dims& dims) { return flip(x, dims.values); }, py::arg("dims"));
  def_op(m, cls, "roll",
         [](const Tensor& x, const Dims& shifts, const Dims& dims) { return roll(x, shifts.values, dims.values); },
         py::arg("shifts"), py::arg("dims") = py::none());
  def_op(m, cls, "tril", &tril, py::arg("diagonal") = 0);
  def_op(m, cls, "triu", &triu, py::arg("diagonal") = 0);
  def_op(m, cls, "split",
         [](const Tensor& x, int64_t size, int64_t dim) { return split(x, size, dim); },
         py::arg("split_size_or_sections"), py::arg("dim") = 0);
  def_op(m, cls, "split",
         [](const Tensor& x, const std::vector<int64_t>& sizes, int64_t dim) { return split(x, sizes, dim); },
         py::arg("split_size_or_sections"), py::arg("dim") = 0);
  def_op(m, cls, "chunk", &chunk, py::arg("chunks"), py::arg("dim") = 0);
  m.def("cat", &cat, py::arg("tensors"), py::arg("dim") = 0, no_gil);
  m.def("concat", &cat, py::arg("tensors"), py::arg("dim") = 0, no_gil);
  m.def("stack", &stack, py::arg("tensors"), py::arg("dim") = 0, no_gil);
}

}  // namespace

py::object values_indices_type() { return py::reinterpret_borrow<py::object>(g_values_indices); }

void bind_ops(py::module_& m) {
  g_values_indices =
      py::module_::import("collections").attr("namedtuple")("return_types", "values indices").release().ptr();
  m.attr("return_types") = py::handle(g_values_indices);
  TensorClass cls = tensor_class(m);
  bind_unary(m, cls);
  bind_binary(m, cls);
  bind_reductions(m, cls);
  bind_linalg_and_shape(m, cls);
}

}  // namespace ember::python
