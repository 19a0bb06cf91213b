// ember.autograd.Function: a Python forward/backward pair run as a C++
// autograd::CustomFunction, so the engine schedules it like any other node
// (PyTorch's PyNode). The Python ctx object lives as long as the node and
// reaches the C++ FunctionContext only while forward or backward runs.
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "bindings.h"
#include "casters.h"
#include "autograd/node.h"
#include "ember/autograd.h"
#include "ember/error.h"
#include "ember/ops.h"
#include "gil_safe.h"

namespace py = pybind11;

namespace ember::python {
namespace {

struct FunctionCtx {
  autograd::FunctionContext* active = nullptr;  // set only inside forward/backward
  std::vector<bool> arg_is_tensor;              // per forward argument
  std::string function_name;
  // PyTorch hands backward zeros for the outputs no gradient reached, unless
  // ctx.set_materialize_grads(False) asked for None.
  bool materialize_grads = true;

  autograd::FunctionContext& context(const char* what) const {
    if (active == nullptr) {
      throw_error(ErrorKind::Runtime, function_name + ": ctx." + what +
                                          " is only available inside forward and backward");
    }
    return *active;
  }
};

// Points a ctx at the C++ context for the duration of one call.
class ActiveContext {
 public:
  ActiveContext(FunctionCtx& ctx, autograd::FunctionContext& context) : ctx_(ctx) { ctx_.active = &context; }
  ~ActiveContext() { ctx_.active = nullptr; }
  ActiveContext(const ActiveContext&) = delete;
  ActiveContext& operator=(const ActiveContext&) = delete;

 private:
  FunctionCtx& ctx_;
};

// None stands for an undefined tensor where PyTorch allows it (save_for_backward).
std::vector<Tensor> tensors_of(const py::args& values, const char* function, const char* what,
                               bool none_allowed = false) {
  std::vector<Tensor> out;
  for (py::handle v : values) {
    if (none_allowed && v.is_none()) {
      out.emplace_back();
      continue;
    }
    if (!is_tensor(v)) {
      throw py::type_error(std::string(function) + "." + what + " takes tensors, got " +
                           std::string(py::str(py::type::handle_of(v).attr("__name__"))));
    }
    out.push_back(v.cast<Tensor>());
  }
  return out;
}

class PythonFunction : public autograd::CustomFunction {
 public:
  PythonFunction(py::type cls, py::tuple args, py::object ctx, bool separate_setup_context)
      : cls_(gil_safe<py::object>(std::move(cls))),
        args_(gil_safe<py::object>(std::move(args))),
        ctx_(gil_safe<py::object>(std::move(ctx))),
        name_(py::str(cls_->attr("__name__"))),
        separate_setup_context_(separate_setup_context) {}

  std::string name() const override { return name_; }
  bool single_output() const { return single_output_; }

  std::vector<Tensor> forward(autograd::FunctionContext& context, const std::vector<Tensor>&) override {
    py::gil_scoped_acquire gil;
    FunctionCtx& ctx = ctx_->cast<FunctionCtx&>();
    ActiveContext active(ctx, context);
    const auto args = py::reinterpret_borrow<py::tuple>(*args_);
    // A forward without ctx leaves the saving to setup_context(ctx, inputs, output).
    py::object result = separate_setup_context_ ? cls_->attr("forward")(*args) : cls_->attr("forward")(*ctx_, *args);
    if (separate_setup_context_) cls_->attr("setup_context")(*ctx_, args, result);
    single_output_ = is_tensor(result);
    if (single_output_) {
      forward_outputs_ = py::make_tuple(result);
      remember_output_shapes({result.cast<Tensor>()});
      return {result.cast<Tensor>()};
    }
    if (!py::isinstance<py::tuple>(result)) {
      throw py::type_error(name_ + ".forward must return a Tensor or a tuple of Tensors");
    }
    std::vector<Tensor> outputs;
    for (py::handle item : result) {
      if (!is_tensor(item)) throw py::type_error(name_ + ".forward returned a non-Tensor output");
      outputs.push_back(item.cast<Tensor>());
    }
    forward_outputs_ = py::reinterpret_borrow<py::tuple>(result);
    remember_output_shapes(outputs);
    return outputs;
  }

  // The Python objects forward returned, handed out once (Note [Custom
  // function cycles]).
  py::tuple take_forward_outputs() { return std::move(forward_outputs_); }

  // The context is what user code attaches things to (ctx.out = out), so it
  // goes as soon as the graph is done with it.
  void release() override {
    py::gil_scoped_acquire gil;
    ctx_.reset();
    args_.reset();
  }

  // The Python object holding the context, for the garbage collector.
  PyObject* context_object() const { return ctx_ ? ctx_->ptr() : nullptr; }

  std::vector<Tensor> backward(autograd::FunctionContext& context, const std::vector<Tensor>& grads) override {
    py::gil_scoped_acquire gil;
    FunctionCtx& ctx = ctx_->cast<FunctionCtx&>();
    ActiveContext active(ctx, context);
    py::tuple grad_args(grads.size());
    for (size_t i = 0; i < grads.size(); ++i) {
      if (grads[i].defined()) {
        grad_args[i] = py::cast(grads[i]);
      } else if (ctx.materialize_grads && i < output_shapes_.size()) {
        const OutputShape& output = output_shapes_[i];
        grad_args[i] = py::cast(zeros(output.sizes, TensorOptions(output.dtype, output.device)));
      } else {
        grad_args[i] = py::none();
      }
    }
    py::object result = cls_->attr("backward")(*ctx_, *grad_args);
    py::tuple per_arg = is_tensor(result) || result.is_none() ? py::make_tuple(result) : py::tuple(result);
    const size_t num_args = ctx.arg_is_tensor.size();
    // PyTorch accepts extra trailing Nones and nothing else extra.
    bool extras_are_none = true;
    for (size_t i = num_args; i < per_arg.size(); ++i) extras_are_none &= per_arg[i].is_none();
    if (per_arg.size() < num_args || !extras_are_none) {
      throw_error(ErrorKind::Runtime, "function " + name_ + "Backward returned an incorrect number of gradients "
                                      "(expected " + std::to_string(num_args) + ", got " +
                                          std::to_string(per_arg.size()) + ")");
    }
    std::vector<Tensor> input_grads;
    for (size_t i = 0; i < num_args; ++i) {
      if (!ctx.arg_is_tensor[i]) {
        if (!per_arg[i].is_none()) {
          throw_error(ErrorKind::Runtime, "function " + name_ + "Backward returned a gradient different than None "
                                          "at position " + std::to_string(i + 1) +
                                              ", but the corresponding forward input was not a Variable");
        }
        continue;
      }
      if (!per_arg[i].is_none() && !is_tensor(per_arg[i])) {
        throw py::type_error("function " + name_ + "Backward returned a " +
                             std::string(py::str(py::type::handle_of(per_arg[i]).attr("__name__"))) +
                             " at position " + std::to_string(i + 1) + "; expected a Tensor or None");
      }
      input_grads.push_back(per_arg[i].is_none() ? Tensor() : per_arg[i].cast<Tensor>());
    }
    return input_grads;
  }

 private:
  // What a zero gradient of each output looks like; the outputs themselves
  // would keep this node alive through their grad_fn.
  struct OutputShape {
    std::vector<int64_t> sizes;
    DType dtype;
    Device device;
  };

  void remember_output_shapes(const std::vector<Tensor>& outputs) {
    output_shapes_.clear();
    for (const Tensor& output : outputs) {
      output_shapes_.push_back({std::vector<int64_t>(output.sizes().begin(), output.sizes().end()), output.dtype(),
                                output.device()});
    }
  }

  std::shared_ptr<py::object> cls_;
  std::shared_ptr<py::object> args_;
  std::shared_ptr<py::object> ctx_;
  std::string name_;
  bool separate_setup_context_;
  bool single_output_ = true;
  py::tuple forward_outputs_;
  std::vector<OutputShape> output_shapes_;
};

py::object apply_python_function(py::type cls, py::tuple args, bool separate_setup_context) {
  py::object ctx_object = py::module_::import("ember._C").attr("FunctionCtx")();
  FunctionCtx& ctx = ctx_object.cast<FunctionCtx&>();
  ctx.function_name = py::str(cls.attr("__name__"));
  std::vector<Tensor> inputs;
  for (py::handle arg : args) {
    ctx.arg_is_tensor.push_back(is_tensor(arg));
    if (ctx.arg_is_tensor.back()) inputs.push_back(arg.cast<Tensor>());
  }
  auto fn = std::make_shared<PythonFunction>(std::move(cls), std::move(args), std::move(ctx_object),
                                             separate_setup_context);
  std::vector<Tensor> outputs = autograd::apply_function(fn, inputs);
  const py::tuple returned = fn->take_forward_outputs();
  // Hand back forward's own objects wherever the output is still the same
  // tensor (not an input returned as is, which became a new one), so that
  // ctx.out and the caller's result are one Python object.
  py::tuple results(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const bool same = i < returned.size() && returned[i].cast<const Tensor&>().impl() == outputs[i].impl();
    results[i] = same ? py::reinterpret_borrow<py::object>(returned[i]) : py::cast(outputs[i]);
  }
  if (fn->single_output()) return results[0];
  return results;
}

}  // namespace

PyObject* python_function_context(const autograd::Node& node) {
  const std::shared_ptr<autograd::CustomFunction> fn = autograd::custom_function_of(node);
  const auto* python_fn = dynamic_cast<const PythonFunction*>(fn.get());
  return python_fn == nullptr ? nullptr : python_fn->context_object();
}

void bind_custom_function(py::module_& m) {
  py::class_<FunctionCtx>(m, "FunctionCtx", py::dynamic_attr())
      .def(py::init<>())
      .def("save_for_backward",
           [](FunctionCtx& ctx, const py::args& tensors) {
             ctx.context("save_for_backward").save_for_backward(
                 tensors_of(tensors, ctx.function_name.c_str(), "save_for_backward", true));
           })
      .def_property_readonly("saved_tensors",
                             [](const FunctionCtx& ctx) {
                               const std::vector<Tensor> saved = ctx.context("saved_tensors").saved_tensors();
                               py::tuple out(saved.size());
                               for (size_t i = 0; i < saved.size(); ++i) {
                                 out[i] = saved[i].defined() ? py::cast(saved[i]) : py::none();
                               }
                               return out;
                             })
      .def("mark_non_differentiable",
           [](FunctionCtx& ctx, const py::args& tensors) {
             ctx.context("mark_non_differentiable")
                 .mark_non_differentiable(tensors_of(tensors, ctx.function_name.c_str(), "mark_non_differentiable"));
           })
      .def("set_materialize_grads", [](FunctionCtx& ctx, bool value) { ctx.materialize_grads = value; },
           py::arg("value"))
      .def_property_readonly("needs_input_grad", [](const FunctionCtx& ctx) {
        const autograd::FunctionContext& context = ctx.context("needs_input_grad");
        py::tuple out(ctx.arg_is_tensor.size());
        size_t tensor_index = 0;
        for (size_t i = 0; i < ctx.arg_is_tensor.size(); ++i) {
          out[i] = py::bool_(ctx.arg_is_tensor[i] && context.needs_input_grad(tensor_index++));
        }
        return out;
      });
  m.def("_apply_function", &apply_python_function, py::arg("cls"), py::arg("args"),
        py::arg("separate_setup_context") = false);
}

}  // namespace ember::python
