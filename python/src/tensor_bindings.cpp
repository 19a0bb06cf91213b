// ember.Tensor: metadata, views, conversions and the autograd attributes.
// Arithmetic lives in ops_bindings.cpp, indexing in indexing.cpp.
#include <pybind11/stl.h>

#include <algorithm>
#include <string>
#include <vector>

#include "autograd/node.h"
#include "autograd/record.h"
#include "bindings.h"
#include "casters.h"
#include "compile/tracer.h"
#include "ember/autograd.h"
#include "ember/error.h"
#include "ember/ops.h"
#include "ember/printing.h"
#include "op_helpers.h"

namespace py = pybind11;

namespace ember::python {
namespace {

PyTypeObject* g_tensor_type = nullptr;
// ember.Size (a tuple subclass defined in Python), or tuple until it is set.
PyObject* g_size_type = reinterpret_cast<PyObject*>(&PyTuple_Type);

py::object make_size(IntArrayRef sizes) {
  py::tuple values(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) values[i] = py::int_(sizes[i]);
  if (g_size_type == reinterpret_cast<PyObject*>(&PyTuple_Type)) return values;
  return py::reinterpret_borrow<py::object>(g_size_type)(values);
}

int64_t wrap_dim(const Tensor& t, int64_t dim, const char* op) {
  const int64_t rank = std::max<int64_t>(t.dim(), 1);
  if (dim < -rank || dim >= rank) {
    throw_error(ErrorKind::Index, std::string(op) + ": dimension " + std::to_string(dim) +
                                      " is out of range for a tensor of " + std::to_string(t.dim()) + " dims");
  }
  return dim < 0 ? dim + rank : dim;
}

template <typename T>
py::object nested_list(const std::vector<T>& values, IntArrayRef sizes, size_t dim, size_t& next) {
  if (dim == sizes.size()) return py::cast(values[next++]);
  py::list out(static_cast<size_t>(sizes[dim]));
  for (int64_t i = 0; i < sizes[dim]; ++i) out[static_cast<size_t>(i)] = nested_list(values, sizes, dim + 1, next);
  return out;
}

template <typename T>
py::object to_nested_list(const Tensor& t) {
  std::vector<T> values;
  {
    py::gil_scoped_release no_gil;
    values = t.tolist<T>();
  }
  size_t next = 0;
  return nested_list(values, t.sizes(), 0, next);
}

// PyTorch's repr adds the autograd state after the values.
std::string tensor_repr(const Tensor& t) {
  std::string text = t.str();
  std::string suffix;
  if (auto fn = t.grad_fn()) {
    suffix = ", grad_fn=<" + fn->name() + ">";
  } else if (t.requires_grad()) {
    suffix = ", requires_grad=True";
  }
  if (!suffix.empty() && !text.empty() && text.back() == ')') text.insert(text.size() - 1, suffix);
  return text;
}

// PyTorch raises RuntimeError for item() and bool() of several elements,
// ValueError for float() and int(), TypeError for __index__.
Tensor one_element(const Tensor& t, const char* what, ErrorKind kind = ErrorKind::Runtime) {
  if (t.numel() != 1) {
    throw_error(kind, std::string(what) + " of a tensor with " + std::to_string(t.numel()) +
                          " elements is ambiguous; only one-element tensors convert");
  }
  return t;
}

// Note [Custom function cycles]
// `ctx.out = out` in an ember.autograd.Function is a reference cycle that
// runs through C++: the ctx object holds the output tensor, whose grad_fn
// node holds the ctx. Python's collector only sees references that objects
// report, so the Tensor type reports the ctx as well: when this Python
// object is the only owner of its tensor and the tensor the only owner of
// its node, the node's reference to the ctx belongs to this object, and the
// collector can free the cycle (PyTorch's THPVariable traverse does the
// same). custom_function.cpp returns forward's own Python objects from
// apply(), so that `ctx.out` and the caller's result are one object.
traverseproc g_dynamic_attr_traverse = nullptr;

int traverse_tensor(PyObject* self, visitproc visit, void* arg) {
  if (int status = g_dynamic_attr_traverse(self, visit, arg)) return status;
  // The collector can run between the allocation of an instance and the
  // allocation of its value-and-holder layout (pybind11 registers a Python
  // subclass such as nn.Parameter, which allocates, when its first instance
  // is made); such an instance owns nothing yet, and is_holder_constructed
  // would read its missing layout.
  const auto* instance = reinterpret_cast<const py::detail::instance*>(self);
  if (!instance->simple_layout && instance->nonsimple.values_and_holders == nullptr) return 0;
  if (!py::detail::is_holder_constructed(self)) return 0;
  const Tensor& t = py::handle(self).cast<const Tensor&>();
  if (!t.defined() || t.impl_ptr().use_count() != 1) return 0;
  const autograd::AutogradMeta* meta = t.impl()->autograd_meta();
  if (meta == nullptr || meta->grad_fn == nullptr || meta->grad_fn.use_count() != 1) return 0;
  Py_VISIT(python_function_context(*meta->grad_fn));
  return 0;
}

}  // namespace

bool is_tensor(py::handle obj) { return g_tensor_type != nullptr && PyObject_TypeCheck(obj.ptr(), g_tensor_type); }

std::vector<int64_t> shape_from_sequence(py::handle source, const char* op) {
  std::vector<int64_t> shape;
  try {
    for (py::handle item : py::reinterpret_borrow<py::sequence>(source)) {
      shape.push_back(PyLong_Check(item.ptr()) ? int64_from_pylong(item, PyExc_TypeError) : item.cast<int64_t>());
    }
  } catch (const py::cast_error&) {
    throw py::type_error(std::string(op) + "(): a shape is ints or one sequence of ints, got " +
                         std::string(py::str(source)));
  }
  return shape;
}

std::vector<int64_t> shape_from_args(const py::args& args, const char* op) {
  py::handle source = args;
  if (args.size() == 1 && !PyLong_Check(args[0].ptr())) source = args[0];
  return shape_from_sequence(source, op);
}

void bind_tensor(py::module_& m) {
  auto cls = py::class_<Tensor>(m, "Tensor", py::dynamic_attr(), py::custom_type_setup([](PyHeapTypeObject* heap) {
                                  g_dynamic_attr_traverse = heap->ht_type.tp_traverse;
                                  heap->ht_type.tp_traverse = &traverse_tensor;
                                }));
  g_tensor_type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  m.def("_set_size_type", [](py::object type) { g_size_type = type.inc_ref().ptr(); });
  m.def(
      "_set_print_options",
      [](int precision, int64_t threshold, int64_t edgeitems, int64_t linewidth, std::optional<bool> sci_mode) {
        set_print_options({precision, threshold, edgeitems, linewidth, sci_mode});
      },
      py::arg("precision"), py::arg("threshold"), py::arg("edgeitems"), py::arg("linewidth"), py::arg("sci_mode"));
  m.def("_print_options", [] {
    const PrintOptions o = print_options();
    py::dict d;
    d["precision"] = o.precision;
    d["threshold"] = o.threshold;
    d["edgeitems"] = o.edgeitems;
    d["linewidth"] = o.linewidth;
    d["sci_mode"] = o.sci_mode ? py::cast(*o.sci_mode) : py::none();
    return d;
  });

  // A new handle to the same tensor: how Python subclasses (nn.Parameter)
  // wrap an existing tensor.
  cls.def(py::init<const Tensor&>(), py::arg("data"));

  // The in-place view methods (squeeze_, unsqueeze_, t_, transpose_): self
  // takes `view`'s sizes and strides, view being one of self's view ops.
  // Where autograd records the write (a non-leaf that requires grad), this
  // handle becomes the view, whose history leads through the view op back to
  // self's, as PyTorch's grad_fn does; otherwise the tensor itself is
  // repointed (as by Tensor.data assignment), so that every handle on it
  // sees the new shape. A leaf that requires grad is refused, as PyTorch does.
  m.def(
      "_become_view",
      [](py::object self, const Tensor& view, const std::string& name) {
        Tensor& t = self.cast<Tensor&>();
        autograd::check_inplace(t, name);
        if (autograd::is_grad_enabled() && t.requires_grad()) {
          t = view;
        } else {
          t.set_data(view);
        }
        return self;
      },
      py::arg("self"), py::arg("view"), py::arg("name"));

  // --- metadata
  cls.def_property_readonly("shape", [](const Tensor& t) { return make_size(t.sizes()); })
      .def("size", [](const Tensor& t) { return make_size(t.sizes()); })
      .def("size", [](const Tensor& t, int64_t dim) { return t.size(dim); }, py::arg("dim"))
      .def_property_readonly("dtype", &Tensor::dtype)
      .def_property_readonly("device", &Tensor::device)
      .def_property_readonly("ndim", &Tensor::dim)
      .def("dim", &Tensor::dim)
      .def("ndimension", &Tensor::dim)
      .def("numel", &Tensor::numel)
      .def("nelement", &Tensor::numel)
      .def("stride", [](const Tensor& t) { return py::tuple(py::cast(t.strides().vec())); })
      .def("stride", [](const Tensor& t, int64_t dim) { return t.stride(dim); }, py::arg("dim"))
      .def("storage_offset", &Tensor::storage_offset)
      .def("is_contiguous", &Tensor::is_contiguous)
      .def("element_size", &Tensor::element_size)
      .def_property_readonly("itemsize", &Tensor::element_size)
      .def_property_readonly("nbytes", [](const Tensor& t) { return t.numel() * int64_t(t.element_size()); })
      .def("data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data_ptr()); })
      .def("is_floating_point", [](const Tensor& t) { return is_floating(t.dtype()); })
      .def("is_complex", [](const Tensor&) { return false; })
      .def_property_readonly("is_cpu", [](const Tensor& t) { return t.device().is_cpu(); })
      .def_property_readonly("is_meta", [](const Tensor& t) { return t.device().is_meta(); })
      .def_property_readonly("_version", &Tensor::version)
      .def("is_alias_of", &Tensor::is_alias_of, py::arg("other"));

  // --- views
  cls.def("view", [](const Tensor& t, const py::args& shape) { return t.view(shape_from_args(shape, "view")); })
      .def("reshape",
           [](const Tensor& t, const py::args& shape) { return t.reshape(shape_from_args(shape, "reshape")); })
      .def("expand", [](const Tensor& t, const py::args& shape) { return t.expand(shape_from_args(shape, "expand")); })
      .def("permute",
           [](const Tensor& t, const py::args& dims) { return t.permute(shape_from_args(dims, "permute")); })
      .def("view_as", [](const Tensor& t, const Tensor& other) { return t.view(other.sizes()); }, py::arg("other"))
      .def("reshape_as", [](const Tensor& t, const Tensor& other) { return t.reshape(other.sizes()); },
           py::arg("other"))
      .def("expand_as", &Tensor::expand_as, py::arg("other"))
      .def("flatten", &Tensor::flatten, py::arg("start_dim") = 0, py::arg("end_dim") = -1)
      .def("transpose", &Tensor::transpose, py::arg("dim0"), py::arg("dim1"))
      .def("swapaxes", &Tensor::transpose, py::arg("axis0"), py::arg("axis1"))
      .def("t", &Tensor::t)
      .def_property_readonly("T",
                             [](const Tensor& t) {
                               std::vector<int64_t> reversed;
                               for (int64_t d = t.dim() - 1; d >= 0; --d) reversed.push_back(d);
                               return t.permute(reversed);
                             })
      .def_property_readonly("mT",
                             [](const Tensor& t) {
                               if (t.dim() < 2) {
                                 throw_error(ErrorKind::Runtime, "mT: tensor of " + std::to_string(t.dim()) +
                                                                     " dims has no matrices to transpose");
                               }
                               return t.transpose(-2, -1);
                             })
      .def("squeeze",
           [](const Tensor& t, const Dims& dims) {
             if (dims.values.empty()) return t.squeeze();
             // Squeeze the highest dims first so the lower ones keep their numbers.
             std::vector<int64_t> wrapped;
             for (int64_t d : dims.values) wrapped.push_back(wrap_dim(t, d, "squeeze"));
             std::sort(wrapped.rbegin(), wrapped.rend());
             Tensor out = t;
             for (int64_t d : wrapped) out = out.squeeze(d);
             return out;
           },
           py::arg("dim") = py::none())
      .def("unsqueeze", &Tensor::unsqueeze, py::arg("dim"))
      .def("narrow", &Tensor::narrow, py::arg("dim"), py::arg("start"), py::arg("length"))
      .def("select", &Tensor::select, py::arg("dim"), py::arg("index"))
      .def("as_strided",
           [](const Tensor& t, const std::vector<int64_t>& size, const std::vector<int64_t>& stride,
              std::optional<int64_t> offset) { return t.as_strided(size, stride, offset); },
           py::arg("size"), py::arg("stride"), py::arg("storage_offset") = py::none());

  // --- copies and conversion
  const auto no_gil = py::call_guard<py::gil_scoped_release>();
  cls.def("contiguous", &Tensor::contiguous, no_gil)
      .def("clone", &Tensor::clone, no_gil)
      .def("detach", &Tensor::detach)
      .def("detach_", inplace<>([](Tensor& t) {
             // A view shares its base's history; cutting it alone would leave
             // the base's graph writing through a tensor that no longer says so.
             const TensorImpl& impl = *t.impl();
             if (impl.is_view() && impl.view_base()->autograd_meta() != nullptr && t.requires_grad()) {
               throw_error(ErrorKind::Runtime, "detach_: can't detach views in-place; use detach() instead");
             }
             t.impl()->reset_autograd_meta();
           }))
      .def(
          "_to",
          [](const Tensor& t, std::optional<Device> device, std::optional<DType> dtype, bool copy) {
            const Device d = device.value_or(t.device());
            const DType dt = dtype.value_or(t.dtype());
            if (copy && d == t.device() && dt == t.dtype()) return t.clone();
            return t.to(d, dt);
          },
          py::arg("device"), py::arg("dtype"), py::arg("copy"), no_gil)
      .def(
          "cpu", [](const Tensor& t) { return t.to(Device(kCpuDeviceType, 0)); }, no_gil)
      .def(
          "type_as", [](const Tensor& t, const Tensor& other) { return t.to(other.dtype()); }, no_gil)
      .def("item", [](const Tensor& t) { return one_element(t, "item()").item(); })
      .def("tolist",
           [](const Tensor& t) {
             if (t.dtype() == DType::Bool) return to_nested_list<bool>(t);
             if (is_floating(t.dtype())) return to_nested_list<double>(t);
             return to_nested_list<int64_t>(t);
           })
      .def("__repr__", &tensor_repr)
      .def("__str__", &tensor_repr)
      .def("__bool__", [](const Tensor& t) { return one_element(t, "Boolean value").item().to_bool(); })
      .def("__float__", [](const Tensor& t) { return one_element(t, "float()", ErrorKind::Value).item().to_double(); })
      // Through Python's int(), as PyTorch: NaN is a ValueError, infinity an
      // OverflowError and a large float a large int, never a wrapped int64.
      .def("__int__",
           [](const Tensor& t) { return py::int_(py::cast(one_element(t, "int()", ErrorKind::Value).item())); })
      .def("__index__",
           [](const Tensor& t) {
             if (!is_integral(t.dtype(), true)) {
               throw py::type_error("only integer tensors of a single element can be converted to an index, got " +
                                    std::string(dtype_name(t.dtype())));
             }
             return one_element(t, "__index__", ErrorKind::Type).item().to_int();
           })
      .def("__len__",
           [](const Tensor& t) {
             if (t.dim() == 0) throw py::type_error("len() of a 0-d tensor");
             return t.size(0);
           })
      .def("__hash__", [](py::handle self) { return py::hash(py::int_(reinterpret_cast<uintptr_t>(self.ptr()))); });
  for (const char* name : {"float", "double", "half", "bfloat16", "int", "long", "short", "bool", "byte", "char"}) {
    const DType dtype = dtype_from_name(name == std::string("byte")   ? "uint8"
                                        : name == std::string("char") ? "int8"
                                                                      : name);
    cls.def(name, [dtype](const Tensor& t) { return t.to(dtype); }, no_gil);
  }

  // --- autograd attributes (backward, hooks: autograd_bindings.cpp)
  cls.def_property(
         "requires_grad", &Tensor::requires_grad,
         [](Tensor& t, bool requires_grad) { t.requires_grad_(requires_grad); })
      .def(
          "requires_grad_",
          [](py::object self, bool requires_grad) {
            self.cast<Tensor&>().requires_grad_(requires_grad);
            return self;
          },
          py::arg("requires_grad") = true)
      .def_property_readonly("is_leaf", &Tensor::is_leaf)
      .def_property(
          "grad",
          [](const Tensor& t) -> std::optional<Tensor> {
            Tensor g = t.grad();
            if (!g.defined()) return std::nullopt;
            if (compile::Tracer* tracer = compile::Tracer::current(); tracer != nullptr) tracer->note_grad_read(t, g);
            return g;
          },
          [](Tensor& t, std::optional<Tensor> grad) { t.set_grad(grad.value_or(Tensor())); })
      .def_property_readonly("grad_fn", &Tensor::grad_fn)
      .def_property(
          "data", &Tensor::detach,
          [](Tensor& t, const Tensor& value) { t.set_data(value); });
}

}  // namespace ember::python
