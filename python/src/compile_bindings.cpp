// Graph capture and compiled plans (runtime/src/compile) for the Python
// front end, python/ember/compiler.
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <tuple>
#include <utility>

#include "bindings.h"
#include "compile/compile_log.h"
#include "compile/disk_cache.h"
#include "compile/fusion.h"
#include "compile/kernel_compiler.h"
#include "compile/tracer.h"
#include "compile/training.h"
#include "core/memory_overlap.h"
#include "dispatch/trace_hooks.h"

namespace py = pybind11;

namespace ember::python {

using compile::Graph;
using compile::Plan;
using compile::Tracer;
using compile::TrainingPlan;

namespace {

py::dict describe_graph(const Graph& g) {
  py::list values;
  for (const compile::Value& v : g.values) {
    py::dict d;
    d["origin"] = v.origin == compile::ValueOrigin::Input      ? "input"
                  : v.origin == compile::ValueOrigin::Constant ? "constant"
                                                               : "node";
    d["dtype"] = std::string(dtype_name(v.dtype));
    d["device"] = v.device.str();
    d["shape"] = std::vector<int64_t>(v.sizes.begin(), v.sizes.end());
    d["constant"] = v.constant;
    values.append(d);
  }
  py::list nodes;
  for (const compile::Node& n : g.nodes) {
    py::dict d;
    d["op"] = g.op_of(n).name();
    d["inputs"] = n.inputs;
    d["outputs"] = n.outputs;
    py::dict attrs;
    for (const compile::Attribute& a : n.attrs) {
      switch (a.kind) {
        case EMBER_ATTR_INT:
          attrs[a.name.c_str()] = a.int_value;
          break;
        case EMBER_ATTR_BOOL:
          attrs[a.name.c_str()] = a.int_value != 0;
          break;
        case EMBER_ATTR_FLOAT:
          attrs[a.name.c_str()] = a.float_value;
          break;
        case EMBER_ATTR_INTS:
          attrs[a.name.c_str()] = a.ints;
          break;
      }
    }
    d["attrs"] = attrs;
    nodes.append(d);
  }
  py::dict out;
  out["values"] = values;
  out["nodes"] = nodes;
  out["inputs"] = g.inputs;
  out["outputs"] = g.outputs;
  out["code"] = g.code();
  return out;
}

// The per-call check of a variant's tensor guards (python/ember/compiler/
// _guards.py words the failure; this only finds it, without Python objects
// per dimension).
struct TensorGuardSpec {
  size_t leaf;
  Device device;
  DType dtype;
  std::vector<int64_t> sizes;
  std::vector<bool> dynamic;
  std::vector<int64_t> strides;  // empty: the layout class is checked instead
  bool contiguous;
  bool requires_grad;
  int shares_memory_with = -1;  // Note [Aliasing arguments]: an earlier guard's position, or -1
  bool is_same_tensor = false;  // ... and whether it is that tensor itself
};

// Note [Aliasing arguments]
// A trace gives every tensor argument a buffer of its own, so a compiled
// function that writes into one argument and reads another is wrong when
// the two share memory (f(x, x) with an in-place op). Which arguments share
// memory is therefore a guard: a variant serves only calls whose arguments
// share memory as they did when it was traced. The same tensor passed twice
// is traced as one input, as Dynamo dedupes it; arguments that are different
// views whose address ranges meet make the variant run eagerly (PyTorch's
// AOTAutograd builds a synthetic base for them instead). Views of one
// storage that lie apart (the chunks of one tensor) are independent memory.

class TensorGuardSet {
 public:
  void add(size_t leaf, const Tensor& t, const std::vector<int64_t>& dynamic_dims) {
    TensorGuardSpec spec{leaf,
                         t.device(),
                         t.dtype(),
                         std::vector<int64_t>(t.sizes().begin(), t.sizes().end()),
                         std::vector<bool>(t.sizes().size(), false),
                         {},
                         t.is_contiguous(),
                         t.requires_grad()};
    for (int64_t d : dynamic_dims) spec.dynamic[static_cast<size_t>(d)] = true;
    if (dynamic_dims.empty()) spec.strides.assign(t.strides().begin(), t.strides().end());
    specs_.push_back(std::move(spec));
  }

  // Records which guarded arguments share memory, after the add() calls,
  // and returns it as sharing() words it.
  std::vector<std::pair<int, bool>> record_sharing(const py::list& leaves) {
    std::vector<std::pair<int, bool>> now = sharing(leaves);
    for (size_t k = 0; k < specs_.size(); ++k) {
      std::tie(specs_[k].shares_memory_with, specs_[k].is_same_tensor) = now[k];
    }
    return now;
  }

  // Per guard, the earlier guard whose tensor shares memory with its own
  // (-1: none) and whether it is the same tensor, in `leaves` (every guard's
  // leaf a tensor).
  std::vector<std::pair<int, bool>> sharing(const py::list& leaves) const {
    std::vector<const Tensor*> tensors;
    tensors.reserve(specs_.size());
    for (const TensorGuardSpec& g : specs_) tensors.push_back(&leaves[g.leaf].cast<const Tensor&>());
    return sharing_of(tensors);
  }

  // The position of the first guard `leaves` fails, or -1.
  int check(const py::list& leaves) const {
    std::vector<const Tensor*> tensors;
    tensors.reserve(specs_.size());
    for (size_t k = 0; k < specs_.size(); ++k) {
      const TensorGuardSpec& g = specs_[k];
      if (g.leaf >= leaves.size()) return static_cast<int>(k);
      py::handle obj = leaves[g.leaf];
      if (!py::isinstance<Tensor>(obj)) return static_cast<int>(k);
      const Tensor& t = obj.cast<const Tensor&>();
      tensors.push_back(&t);
      if (t.device() != g.device || t.dtype() != g.dtype || t.requires_grad() != g.requires_grad ||
          t.sizes().size() != g.sizes.size()) {
        return static_cast<int>(k);
      }
      for (size_t d = 0; d < g.sizes.size(); ++d) {
        const int64_t now = t.sizes()[d];
        if (g.dynamic[d] ? now < 2 : now != g.sizes[d]) return static_cast<int>(k);
      }
      if (g.strides.empty()) {
        if (t.is_contiguous() != g.contiguous) return static_cast<int>(k);
      } else if (!std::equal(g.strides.begin(), g.strides.end(), t.strides().begin(), t.strides().end())) {
        return static_cast<int>(k);
      }
    }
    const std::vector<std::pair<int, bool>> now = sharing_of(tensors);
    for (size_t k = 0; k < specs_.size(); ++k) {
      if (now[k] != std::pair(specs_[k].shares_memory_with, specs_[k].is_same_tensor)) return static_cast<int>(k);
    }
    return -1;
  }

 private:
  // Pairs of tensors in different storages are told apart by a pointer
  // compare, so a call with many tensor arguments costs no more than that.
  static std::vector<std::pair<int, bool>> sharing_of(const std::vector<const Tensor*>& tensors) {
    std::vector<std::pair<int, bool>> out(tensors.size(), {-1, false});
    for (size_t k = 0; k < tensors.size(); ++k) {
      const Tensor& t = *tensors[k];
      for (size_t j = 0; j < k; ++j) {
        const Tensor& earlier = *tensors[j];
        if (t.impl()->storage() != earlier.impl()->storage()) continue;
        if (t.impl() == earlier.impl()) {
          out[k] = {static_cast<int>(j), true};
          break;
        }
        if (may_share_elements(t, earlier)) {
          out[k] = {static_cast<int>(j), false};
          break;
        }
      }
    }
    return out;
  }

  std::vector<TensorGuardSpec> specs_;
};

// A Python callable as the eager backward of a training plan: called from
// the engine, which may run without the GIL; None gradients are undefined.
compile::EagerBackward eager_backward_from(py::object fn) {
  if (fn.is_none()) return nullptr;
  std::shared_ptr<py::object> holder(new py::object(std::move(fn)), [](py::object* o) {
    py::gil_scoped_acquire gil;
    delete o;
  });
  return [holder](const std::vector<Tensor>& grads) {
    py::gil_scoped_acquire gil;
    py::list in;
    for (const Tensor& g : grads) in.append(g.defined() ? py::cast(g) : py::none());
    py::object out = (*holder)(in);
    std::vector<Tensor> result;
    for (py::handle h : out) result.push_back(h.is_none() ? Tensor() : h.cast<Tensor>());
    return result;
  };
}

}  // namespace

void bind_compile(py::module_& m) {
  py::class_<TensorGuardSet>(m, "_TensorGuardSet")
      .def(py::init<>())
      .def("add", &TensorGuardSet::add, py::arg("leaf"), py::arg("tensor"), py::arg("dynamic_dims"))
      .def("record_sharing", &TensorGuardSet::record_sharing)
      .def("sharing", &TensorGuardSet::sharing)
      .def("check", &TensorGuardSet::check);

  py::register_exception<compile::TraceUnsupported>(m, "_TraceUnsupported", PyExc_RuntimeError);

  py::class_<compile::SegmentCache, std::shared_ptr<compile::SegmentCache>>(m, "_SegmentCache")
      .def(py::init<>())
      .def("__len__", &compile::SegmentCache::size);

  py::class_<Plan, std::shared_ptr<Plan>>(m, "_Plan")
      .def("run",
           [](const Plan& p, const std::vector<Tensor>& inputs) {
             ExcludeDispatchKeysGuard no_trace(DispatchKeySet::of(DispatchKey::Trace));
             return p.run(inputs);
           })
      .def_property_readonly("num_kernels", &Plan::num_kernels)
      .def_property_readonly("num_extern_calls", &Plan::num_extern_calls)
      .def_property_readonly("num_buffers", &Plan::num_buffers)
      .def_property_readonly("num_in_place_updates", &Plan::num_in_place_updates)
      .def_property_readonly("eager_reasons", &Plan::eager_reasons)
      .def_property_readonly("kernel_sources", &Plan::kernel_sources)
      .def_property_readonly("graph", [](const Plan& p) { return describe_graph(p.graph()); });

  py::register_exception<compile::StaleTrace>(m, "_StaleTrace", PyExc_RuntimeError);
  py::class_<TrainingPlan, std::shared_ptr<TrainingPlan>>(m, "_TrainingPlan")
      .def(
          "run",
          [](const TrainingPlan& p, const std::vector<Tensor>& inputs, py::object eager_backward) {
            ExcludeDispatchKeysGuard no_trace(DispatchKeySet::of(DispatchKey::Trace));
            return p.run(inputs, eager_backward_from(std::move(eager_backward)));
          },
          py::arg("inputs"), py::arg("eager_backward") = py::none())
      .def_property_readonly("forward", [](const TrainingPlan& p) { return std::const_pointer_cast<Plan>(p.forward()); })
      .def_property_readonly("backward",
                             [](const TrainingPlan& p) { return std::const_pointer_cast<Plan>(p.backward()); })
      .def_property_readonly("num_saved", [](const TrainingPlan& p) {
        return p.partition().num_saved_values + static_cast<int>(p.partition().saved_primals.size());
      })
      .def_property_readonly("saved_bytes", [](const TrainingPlan& p) { return p.partition().saved_bytes; })
      .def_property_readonly("save_everything_bytes",
                             [](const TrainingPlan& p) { return p.partition().save_everything_bytes; });
  py::class_<Tracer>(m, "_Tracer")
      .def(py::init([](bool fullgraph, bool dynamic, bool deterministic, bool codegen,
                       std::shared_ptr<compile::SegmentCache> cache, std::function<std::string()> location,
                       bool fused_composites) {
             compile::TraceOptions options;
             options.fullgraph = fullgraph;
             options.fused_composites = fused_composites;
             options.plan.dynamic = dynamic;
             options.plan.deterministic = deterministic;
             options.plan.codegen = codegen;
             options.location = std::move(location);
             return std::make_unique<Tracer>(std::move(options), std::move(cache));
           }),
           py::arg("fullgraph"), py::arg("dynamic"), py::arg("deterministic"), py::arg("codegen"), py::arg("cache"),
           py::arg("location"), py::arg("fused_composites") = true)
      .def("input", &Tracer::add_input)
      .def(
          "finish",
          [](Tracer& t, const std::vector<Tensor>& outputs, py::object eager_backward) {
            return t.finish(outputs, eager_backward_from(std::move(eager_backward)));
          },
          py::arg("outputs"), py::arg("eager_backward") = py::none())
      .def_property_readonly("escaped", &Tracer::escaped)
      .def_property_readonly("training_plan",
                             [](const Tracer& t) { return std::const_pointer_cast<TrainingPlan>(t.training_plan()); })
      .def("close", &Tracer::close)
      .def_property_readonly("breaks",
                             [](const Tracer& t) {
                               std::vector<std::pair<std::string, std::string>> out;
                               for (const auto& b : t.breaks()) out.emplace_back(b.reason, b.location);
                               return out;
                             })
      .def_property_readonly("segments",
                             [](const Tracer& t) {
                               std::vector<std::shared_ptr<Plan>> out;
                               for (const auto& p : t.segments()) out.push_back(std::const_pointer_cast<Plan>(p));
                               return out;
                             })
      .def_property_readonly("captured", &Tracer::captured)
      .def_property_readonly("captured_grad_owners", [](const Tracer& t) {
        std::vector<std::optional<Tensor>> out;
        for (const Tensor& owner : t.captured_grad_owners()) {
          out.push_back(owner.defined() ? std::optional<Tensor>(owner) : std::nullopt);
        }
        return out;
      });

  // The kernels fusion forms for a plan's graph, as EKIR, whether or not a
  // generator is loaded (tests of fusion itself).
  m.def(
      "_fusion_preview",
      [](const Plan& p, bool dynamic, bool parameter_constants) {
        compile::PlanOptions options;
        options.dynamic = dynamic;
        options.parameter_constants = parameter_constants;
        std::vector<std::string> out;
        for (const compile::FusedKernel& k : compile::fuse(p.graph(), options).kernels) out.push_back(k.ekir);
        return out;
      },
      py::arg("plan"), py::arg("dynamic") = false, py::arg("parameter_constants") = false);
  m.def(
      "_log_event",
      [](const std::string& topic, const std::string& text, const std::string& json) {
        static const std::pair<const char*, compile::LogTopic> kTopics[] = {
            {"graph", compile::LogTopic::Graph},
            {"recompiles", compile::LogTopic::Recompiles},
            {"graph_breaks", compile::LogTopic::GraphBreaks},
            {"codegen", compile::LogTopic::Codegen},
            {"cache", compile::LogTopic::Cache}};
        for (const auto& [name, value] : kTopics) {
          if (topic == name) return compile::log_event(value, text, json);
        }
        throw py::value_error("unknown compile log topic '" + topic + "'");
      },
      py::arg("topic"), py::arg("text"), py::arg("json"));
  // ember.compiler.disable's region (Note [Eager regions]), as a context
  // manager: entering ends the segment, leaving resumes tracing.
  struct PyEagerRegion {
    std::string reason;
    std::unique_ptr<compile::EagerRegion> region;
  };
  py::class_<PyEagerRegion>(m, "_EagerRegion")
      .def(py::init([](std::string reason) { return PyEagerRegion{std::move(reason), nullptr}; }), py::arg("reason"))
      .def("__enter__", [](PyEagerRegion& r) { r.region = std::make_unique<compile::EagerRegion>(r.reason); })
      .def("__exit__", [](PyEagerRegion& r, const py::args&) { r.region.reset(); });
  m.def("_is_tracing_thread", &dispatch::tracing_on_this_thread);
  m.def("_is_tracing", [](const Tensor& t) { return dispatch::is_tracing(t); });
  m.def("_codegen_stats", [] {
    const compile::CodegenStats s = compile::codegen_stats();
    py::dict d;
    d["compiles"] = s.compiles;
    d["disk_hits"] = s.disk_hits;
    d["memory_hits"] = s.memory_hits;
    d["failures"] = s.failures;
    return d;
  });
  m.def("_reset_codegen_stats", &compile::reset_codegen_stats);
  m.def("_clear_loaded_kernels", &compile::clear_loaded_kernels);
  m.def("_cache_dir", [] { return compile::DiskCache::get().root(); });
  m.def("_cache_refused", [] { return compile::DiskCache::get().refused_reason(); });
  m.def("_cache_reset", [] { compile::DiskCache::get().reset(); });
  m.def(
      "_kernel_cache_digest",
      [](const std::string& ir, const std::string& plugin_name, const std::string& plugin_version, uint32_t abi_minor,
         const std::string& fingerprint, const std::string& numerics, const std::string& core_version) {
        compile::KernelCacheKey key{ir, plugin_name, plugin_version, abi_minor, fingerprint, numerics, core_version};
        return key.digest();
      },
      py::arg("ir"), py::arg("plugin_name"), py::arg("plugin_version"), py::arg("abi_minor"), py::arg("fingerprint"),
      py::arg("numerics"), py::arg("core_version"));
  m.def("_codegen_available", [](const std::string& device) {
    std::string reason;
    const bool ok = compile::generator_for(Device(device), &reason) != nullptr;
    return std::make_pair(ok, reason);
  });
}

}  // namespace ember::python
