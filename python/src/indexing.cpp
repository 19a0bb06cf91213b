// Tensor.__getitem__ / __setitem__ as PyTorch does them: ints, slices, None
// and ... become views (select, slice, unsqueeze); tensors, lists and arrays
// left over are advanced indices handed to ember::index / index_put_ over
// that view, with ':' (nullopt) for the dims they skip.
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "casters.h"
#include "ember/error.h"
#include "ember/functional.h"
#include "op_helpers.h"

namespace py = pybind11;

namespace ember::python {
namespace {

struct IndexedView {
  Tensor view;
  // One entry per leading dim of `view` up to the last advanced index.
  std::vector<std::optional<Tensor>> advanced;
  bool has_advanced() const { return !advanced.empty(); }
};

// Sequences inside the index (a list, a range, a tuple within the tuple)
// are index tensors, as in PyTorch and NumPy.
bool is_advanced(py::handle item) {
  return is_tensor(item) || PyList_Check(item.ptr()) || PyRange_Check(item.ptr()) || PyTuple_Check(item.ptr()) ||
         py::hasattr(item, "__dlpack__");
}

Tensor as_tensor(py::handle item) {
  if (is_tensor(item)) return item.cast<Tensor>();
  py::object values = py::reinterpret_borrow<py::object>(item);
  if (PyRange_Check(item.ptr())) values = py::list(values);
  return py::module_::import("ember").attr("tensor")(values).cast<Tensor>();
}

// Indices may live on the host while the tensor is on a device (PyTorch
// accepts CPU indices for CUDA tensors): they move to the tensor's device.
Tensor as_index_tensor(py::handle item, const Tensor& indexed) {
  Tensor index = as_tensor(item);
  return index.device() == indexed.device() ? index : index.to(indexed.device());
}

// How many dims of the tensor an index item consumes.
int64_t dims_consumed(py::handle item) {
  if (item.is_none() || item.ptr() == Py_Ellipsis) return 0;
  if (is_tensor(item)) {
    const Tensor& t = item.cast<const Tensor&>();
    return t.dtype() == DType::Bool ? std::max<int64_t>(t.dim(), 1) : 1;
  }
  return 1;
}

IndexedView apply_index(const Tensor& x, py::handle index) {
  py::tuple items = PyTuple_Check(index.ptr()) ? py::reinterpret_borrow<py::tuple>(index) : py::make_tuple(index);
  int64_t consumed = 0;
  bool seen_ellipsis = false;
  for (py::handle item : items) {
    if (item.ptr() == Py_Ellipsis) {
      if (seen_ellipsis) throw py::index_error("an index can only have a single ellipsis ('...')");
      seen_ellipsis = true;
    }
    consumed += dims_consumed(item);
  }
  if (consumed > x.dim()) {
    throw py::index_error("too many indices for tensor of dimension " + std::to_string(x.dim()) + " (got " +
                          std::to_string(consumed) + ")");
  }
  IndexedView out{x, {}};
  int64_t dim = 0;  // the next dim of out.view to index
  for (py::handle item : items) {
    if (item.ptr() == Py_Ellipsis) {
      dim += x.dim() - consumed;
    } else if (item.is_none()) {
      out.view = out.view.unsqueeze(dim++);
    } else if (PySlice_Check(item.ptr())) {
      Py_ssize_t start = 0, stop = 0, step = 0;
      if (PySlice_Unpack(item.ptr(), &start, &stop, &step) < 0) throw py::error_already_set();
      if (step <= 0) throw py::value_error("step must be greater than zero");
      PySlice_AdjustIndices(static_cast<Py_ssize_t>(out.view.size(dim)), &start, &stop, step);
      out.view = out.view.slice(dim++, start, std::max(start, stop), step);
    } else if (is_advanced(item)) {
      Tensor index_tensor = as_index_tensor(item, out.view);
      out.advanced.resize(static_cast<size_t>(dim), std::nullopt);
      out.advanced.push_back(index_tensor);
      dim += index_tensor.dtype() == DType::Bool ? std::max<int64_t>(index_tensor.dim(), 1) : 1;
    } else if (PyBool_Check(item.ptr())) {
      throw py::index_error("indexing with a Python bool is not supported; use a bool tensor");
    } else if (PyIndex_Check(item.ptr())) {
      out.view = out.view.select(dim, py::cast<int64_t>(item));
    } else {
      const std::string message =
          "only integers, slices (':'), ellipsis ('...'), None and integer or boolean "
          "tensors are valid indices (got " +
          std::string(py::str(py::type::handle_of(item).attr("__name__"))) + ")";
      // PyTorch reads a string as data for a tensor index and fails with a TypeError.
      if (PyUnicode_Check(item.ptr())) throw py::type_error(message);
      throw py::index_error(message);
    }
  }
  return out;
}

// What x[index] = value writes: tensors move to x's device (a host tensor
// into a device tensor is fine, as with copy_); numbers and sequences become
// tensors of x's dtype.
Tensor values_for(const Tensor& target, py::handle value) {
  if (is_tensor(value)) {
    Tensor values = value.cast<Tensor>();
    return values.device() == target.device() ? values : values.to(target.device());
  }
  if (PyBool_Check(value.ptr()) || PyLong_Check(value.ptr()) || PyFloat_Check(value.ptr())) {
    // An int outside int64 is PyTorch's ValueError here (Note [Integers too large for int64]).
    const Scalar number = PyLong_Check(value.ptr()) && !PyBool_Check(value.ptr())
                              ? Scalar(int64_from_pylong(value, PyExc_ValueError))
                              : value.cast<Scalar>();
    return full({}, number, TensorOptions(target.dtype(), target.device()));
  }
  return as_tensor(value).to(target.device(), target.dtype());
}

}  // namespace

void bind_indexing(py::module_& m) {
  TensorClass cls = tensor_class(m);
  cls.def("__getitem__", [](const Tensor& x, py::handle index) {
    IndexedView indexed = apply_index(x, index);
    if (!indexed.has_advanced()) return indexed.view;
    py::gil_scoped_release no_gil;
    return ember::index(indexed.view, indexed.advanced);
  });
  cls.def("__setitem__", [](Tensor& x, py::handle index, py::handle value) {
    IndexedView indexed = apply_index(x, index);
    Tensor values = values_for(x, value);
    py::gil_scoped_release no_gil;
    if (indexed.has_advanced()) {
      index_put_(indexed.view, indexed.advanced, values);
    } else {
      indexed.view.copy_(values);
    }
  });
  def_op(m, cls, "index_put",
         [](const Tensor& x, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
            bool accumulate) { return index_put(x, indices, values, accumulate); },
         py::arg("indices"), py::arg("values"), py::arg("accumulate") = false);
  cls.def("index_put_",
          inplace<const std::vector<std::optional<Tensor>>&, const Tensor&, bool>(
              [](Tensor& x, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                 bool accumulate) { index_put_(x, indices, values, accumulate); }),
          py::arg("indices"), py::arg("values"), py::arg("accumulate") = false);
  def_op(m, cls, "nonzero", &nonzero);
}

}  // namespace ember::python
