#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "compile/graph.h"
#include "compile/plan.h"
#include "compile/training.h"
#include "ember/tensor.h"

namespace ember::compile {

// Note [Capture by tracing]
// A Tracer runs on one thread while the user's function runs: it includes
// the Trace key there, so every op of the catalogue reaches its Trace step
// (trace_step.cpp), which records a node and answers with tracing tensors
// (the value's metadata over a storage without memory, Note [Trace hooks]).
// Tensors the trace meets that it did not make (parameters, closures,
// globals) become graph inputs read at every call, never constants; only
// one-element tensors the function itself made while tracing (Python
// numbers turned into tensors) are folded in as constants. Results of
// factories on constants are computed once, while tracing.
//
// Note [Graph breaks]
// A read of a tracing tensor's values (item(), bool(), printing, NumPy)
// ends a segment: the graph recorded so far is compiled and run on the
// call's real inputs, every tracing tensor still alive becomes the real
// tensor it stands for, and tracing goes on in a new segment whose inputs
// those tensors are. Segments are found again by their graph's signature,
// so a function with breaks re-runs its Python at every call but compiles
// each segment once.

// Note [Eager regions]
// ember.compiler.disable reached while tracing (a disabled function called
// from a compiled one, or its `with` block) runs its code eagerly, as
// torch.compiler.disable does under Dynamo: the segment ends as at a break,
// the region runs with the Trace key excluded on the thread, so its ops
// compute on the real tensors the break left, and tracing resumes in a new
// segment whose inputs include what the region made.

// Why a function cannot be captured; the caller runs it eagerly instead.
class TraceUnsupported : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A break as the user reads it.
struct GraphBreak {
  std::string reason;
  std::string location;  // file:line of the user's code, where known
};

struct TraceOptions {
  bool fullgraph = false;
  // Softmax, log_softmax and layer_norm keep a backend's fused kernel
  // (Note [Fused composites in traces]); export, whose programs hold the
  // ops the graph check takes, decomposes them always.
  bool fused_composites = true;
  PlanOptions plan;
  // The user's file:line at the moment of a break (the Python layer's).
  std::function<std::string()> location;
};

// Compiled segments by graph signature, shared by the calls of a function.
class SegmentCache {
 public:
  std::shared_ptr<const Plan> find(const std::string& signature) const;
  void add(const std::string& signature, std::shared_ptr<const Plan> plan);
  size_t size() const { return plans_.size(); }

 private:
  std::unordered_map<std::string, std::shared_ptr<const Plan>> plans_;
};

// RAII: an eager region (Note [Eager regions]) on this thread; does
// nothing where no trace is running.
class EagerRegion {
 public:
  explicit EagerRegion(const std::string& reason);
  ~EagerRegion();
  EagerRegion(const EagerRegion&) = delete;
  EagerRegion& operator=(const EagerRegion&) = delete;

 private:
  std::optional<DispatchKeySet> included_before_;
};

class Tracer {
 public:
  Tracer(TraceOptions options, std::shared_ptr<SegmentCache> cache);
  ~Tracer();
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  // Stops tracing on this thread (the destructor does it too); idempotent.
  void close();

  // The tracer of this thread, or null.
  static Tracer* current();

  // A tracing tensor standing for the call's argument `real`.
  Tensor add_input(const Tensor& real);
  // Ends the trace: runs the last segment and returns the real tensors for
  // `outputs` (tracing or real). A training trace (Note [Compiled
  // training]) makes its training plan and runs that, with
  // `eager_backward` for a backward with create_graph=True.
  std::vector<Tensor> finish(const std::vector<Tensor>& outputs, EagerBackward eager_backward = nullptr);

  const std::vector<GraphBreak>& breaks() const { return breaks_; }
  // The plans the segments ran, in order.
  const std::vector<std::shared_ptr<const Plan>>& segments() const { return segments_; }
  // For a trace without breaks: the graph inputs beyond the arguments (the
  // tensors read from outside), to pass again at every later call.
  const std::vector<Tensor>& captured() const { return captured_; }
  // For each of captured() (Note [Gradients read while tracing]), the
  // parameter whose .grad it was when the function read it (undefined for
  // any other tensor).
  std::vector<Tensor> captured_grad_owners() const;
  void note_grad_read(const Tensor& param, const Tensor& grad);
  int num_arguments() const { return num_arguments_; }
  const Graph& graph() const { return graph_; }
  // Whether a tensor the function made outlived the trace (Note [Escaped
  // tensors]): the plan served this call only.
  bool escaped() const { return escaped_; }
  // Set by a trace that recorded derivatives, in place of the one segment.
  const std::shared_ptr<const TrainingPlan>& training_plan() const { return training_plan_; }

  // The Trace step and hooks (trace_step.cpp).
  void record(const dispatch::Op& op, dispatch::OpCall& call);
  void note_fresh(const Tensor& t);
  void materialize(const Tensor& t, const char* reason);
  // Ends the segment (Note [Graph breaks]) for `reason`, said in words.
  void break_graph(const std::string& reason);
  // Whether `t` is a value this segment computed by pointwise ops (seen
  // through views), which a reduction over it could fuse with.
  bool made_by_pointwise(const Tensor& t) const;
  const TraceOptions& options() const { return options_; }
  void alias(const Tensor& t, const Tensor& same);

 private:
  struct Known {
    std::weak_ptr<TensorImpl> impl;
    int value = -1;
  };

  int value_of(const Tensor& t);
  int capture(const Tensor& real);
  int new_value(const dispatch::TensorMeta& meta, Device device, int storage_of);
  Tensor tracing_tensor(int value, const std::shared_ptr<Storage>& storage);
  void bind(const Tensor& tracing, int value);
  bool is_fresh(const Tensor& t) const;
  std::vector<Tensor> run_segment(const std::vector<int>& segment_outputs);
  // Appends the latest value of every updated graph input to `outputs`
  // and records the updates (Note [Input updates]).
  void add_input_updates(std::vector<int>& outputs);
  // Tensors the function made that outlive the trace beside what the caller
  // holds (Note [Escaped tensors]), and their values.
  struct Escaped {
    std::vector<std::shared_ptr<TensorImpl>> tensors;
    std::vector<int> values;
  };
  Escaped find_escaped(const std::vector<Tensor>& held, const std::vector<int>& held_values,
                       bool without_history) const;
  std::vector<Tensor> give_escaped_values(std::vector<Tensor> results, const Escaped& escaped, size_t num_outputs);
  void give_values_before_abandoning();
  // Runs a plan on the call's real tensors, outside the trace, from the
  // random stream's position at the segment's start.
  std::vector<Tensor> run_plan(const std::function<std::vector<Tensor>()>& run);
  // Unmarks the tensors of `updated_` once their updates are written.
  void release_updated();
  std::vector<Tensor> finish_training(const std::vector<Tensor>& outputs, const std::vector<int>& ids,
                                      EagerBackward eager_backward);
  void start_segment();

  TraceOptions options_;
  std::shared_ptr<SegmentCache> cache_;
  Tracer* previous_ = nullptr;
  std::unique_ptr<IncludeDispatchKeysGuard> include_trace_;

  Graph graph_;
  std::unordered_map<TensorImpl*, Known> known_;
  std::vector<Tensor> bindings_;  // real tensor of each graph input, this call
  std::vector<Tensor> captured_;
  std::vector<std::weak_ptr<TensorImpl>> fresh_;
  // grad's impl -> (grad, its parameter), Note [Gradients read while tracing]
  std::unordered_map<TensorImpl*, std::pair<std::weak_ptr<TensorImpl>, std::weak_ptr<TensorImpl>>> grad_owners_;
  std::unordered_map<TensorImpl*, int> fresh_index_;
  std::vector<GraphBreak> breaks_;
  std::vector<std::shared_ptr<const Plan>> segments_;
  int num_arguments_ = 0;
  bool active_ = true;
  // Grad mode of the call (the Trace step runs below Autograd, where it
  // always reads off).
  bool grad_enabled_ = false;
  // Where the random stream stood when the segment began: its plan draws
  // from there, as eager would have.
  uint64_t random_position_ = 0;
  // A graph input required grad with grad mode on: derivatives are traced.
  bool training_ = false;
  bool escaped_ = false;
  std::vector<std::pair<int, Tensor>> differentiable_arguments_;  // graph input, tracing tensor
  std::shared_ptr<const TrainingPlan> training_plan_;
  // In-place updates of graph inputs in this segment: the input a value
  // updates, and the latest value of each updated input.
  std::unordered_map<int, int> update_of_value_;
  std::map<int, int> latest_update_;
  // Tensors read from outside with an update pending, marked as tracing.
  std::unordered_map<TensorImpl*, std::shared_ptr<TensorImpl>> updated_;
};

// Installs the Trace step and hooks (once; idempotent).
void install_trace_step();

}  // namespace ember::compile
