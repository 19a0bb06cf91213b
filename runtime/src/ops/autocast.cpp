// Autocast: the thread's mixed-precision state, the cast policy of each
// catalogue op and the Autocast dispatch step (Note [Autocast]).
#include "ember/autocast.h"

#include <array>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "dispatch/dispatcher.h"
#include "dispatch/op_id.h"
#include "dispatch/trace_hooks.h"
#include "ember/dispatch_key.h"
#include "ember/error.h"
#include "ops/autocast_step.h"

namespace ember::autocast {
namespace {

using dispatch::OpId;

const DispatchKeySet kAutocastKey = DispatchKeySet::of(DispatchKey::Autocast);

struct DeviceTypeState {
  bool enabled = false;
  std::optional<DType> dtype;  // unset: default_dtype(type)
};

struct CachedCast {
  Tensor source;  // kept alive, so that its address names no other tensor
  uint32_t version = 0;
  Tensor cast;
};

struct ThreadState {
  std::array<DeviceTypeState, kMaxDeviceTypes> types{};
  int enabled_count = 0;
  int region_depth = 0;
  bool cache_enabled = true;
  std::unordered_map<const TensorImpl*, CachedCast> cache;
};

// Only a pointer is thread-local: glibc serves a dlopen'ed library's TLS
// from the small static surplus when it fits, and a large block there leaves
// none for an OpenMP runtime loaded after it (libgomp needs static TLS).
ThreadState& state() {
  thread_local std::unique_ptr<ThreadState> s;
  if (!s) s = std::make_unique<ThreadState>();
  return *s;
}

void check_type(DeviceTypeId type) {
  if (type < 0 || type >= kMaxDeviceTypes) {
    throw_error(ErrorKind::Value, "autocast: device type id " + std::to_string(type) + " is out of range");
  }
}

// The Autocast key is on the thread exactly while some device type has
// autocast enabled, so a program without autocast pays nothing per op.
void update_key(ThreadState& s) {
  LocalDispatchKeys& keys = local_dispatch_keys();
  keys.included = s.enabled_count > 0 ? keys.included | kAutocastKey : keys.included - kAutocastKey;
}

bool castable_to(DType dtype) { return dtype == DType::Float16 || dtype == DType::BFloat16; }

std::optional<DType> target_dtype(const Tensor& t, CastPolicy policy) {
  const DType from = t.dtype();
  if (!is_floating(from) || from == DType::Float64) return std::nullopt;
  if (policy == CastPolicy::Float32) {
    return from == DType::Float32 ? std::nullopt : std::optional<DType>(DType::Float32);
  }
  const DType to = dtype(t.device().type);
  return from == to ? std::nullopt : std::optional<DType>(to);
}

Tensor cast_now(const Tensor& t, DType to) {
  ExcludeDispatchKeysGuard below_autocast(kAutocastKey);
  return t.to(to);
}

// PyTorch's lists (aten/src/ATen/autocast_mode.cpp), restricted to the ops
// of Ember's catalogue. On an accelerator the reductions, softmax and layer
// norm also run in float32; the CPU keeps them in the lower precision.
std::optional<CastPolicy> policy_of(OpId id, bool accelerator) {
  switch (id) {
    case OpId::Mm:
    case OpId::MmBias:
    case OpId::Bmm:
    case OpId::Conv2d:
    case OpId::Conv2dBias:
      return CastPolicy::LowerPrecision;
    case OpId::Prod:
    case OpId::CrossEntropy:
    case OpId::LinalgCholeskyEx:
    case OpId::LinalgLuFactorEx:
    case OpId::LinalgSolveTriangular:
    case OpId::LinalgQr:
    case OpId::LinalgEigh:
    case OpId::LinalgSvd:
      return CastPolicy::Float32;
    case OpId::Sum:
    case OpId::Cumsum:
    case OpId::Softmax:
    case OpId::LogSoftmax:
    case OpId::LayerNorm:
      return accelerator ? std::optional<CastPolicy>(CastPolicy::Float32) : std::nullopt;
    default:
      return std::nullopt;
  }
}

bool writes_given_output(const dispatch::OpCall& call) {
  for (int64_t i = 0; i < call.num_outputs; ++i) {
    if (call.outputs[i].defined()) return true;
  }
  return false;
}

}  // namespace

DType default_dtype(DeviceTypeId type) { return type == kCpuDeviceType ? DType::BFloat16 : DType::Float16; }

bool is_enabled(DeviceTypeId type) {
  check_type(type);
  return state().types[type].enabled;
}

bool any_enabled() { return state().enabled_count > 0; }

DType dtype(DeviceTypeId type) {
  check_type(type);
  return state().types[type].dtype.value_or(default_dtype(type));
}

void set_enabled(DeviceTypeId type, bool enabled) {
  check_type(type);
  ThreadState& s = state();
  if (s.types[type].enabled == enabled) return;
  s.types[type].enabled = enabled;
  s.enabled_count += enabled ? 1 : -1;
  update_key(s);
}

void set_dtype(DeviceTypeId type, DType dtype) {
  check_type(type);
  if (!castable_to(dtype)) {
    throw_error(ErrorKind::Value, std::string("autocast: dtype ") + std::string(dtype_name(dtype)) +
                                      " is not supported; autocast computes in float16 or bfloat16");
  }
  state().types[type].dtype = dtype;
}

void clear_cache() { state().cache.clear(); }

Tensor cast(const Tensor& t, CastPolicy policy) {
  if (!t.defined()) return t;
  ThreadState& s = state();
  if (s.enabled_count == 0 || !s.types[t.device().type].enabled) return t;
  const std::optional<DType> to = target_dtype(t, policy);
  if (!to) return t;
  // Only weights are worth keeping: leaves that require grad, reused across
  // the region; anything else is cast where it is used.
  // A cast made while a function is traced belongs to that trace, not to the region.
  if (!s.cache_enabled || s.region_depth == 0 || !t.is_leaf() || !t.requires_grad() ||
      dispatch::tracing_on_this_thread()) {
    return cast_now(t, *to);
  }
  auto found = s.cache.find(t.impl());
  if (found != s.cache.end() && found->second.version == t.version() && found->second.cast.dtype() == *to) {
    return found->second.cast;
  }
  Tensor cast = cast_now(t, *to);
  s.cache[t.impl()] = CachedCast{t, t.version(), cast};
  return cast;
}

std::optional<Tensor> cast(const std::optional<Tensor>& t, CastPolicy policy) {
  return t ? std::optional<Tensor>(cast(*t, policy)) : std::nullopt;
}

AutocastGuard::AutocastGuard(DeviceTypeId type, DType dtype_in, bool enabled, bool cache_enabled)
    : type_(type),
      was_enabled_(is_enabled(type)),
      previous_dtype_(dtype(type)),
      previous_cache_enabled_(state().cache_enabled) {
  if (enabled) set_dtype(type, dtype_in);
  set_enabled(type, enabled);
  ThreadState& s = state();
  s.cache_enabled = cache_enabled;
  ++s.region_depth;
}

AutocastGuard::~AutocastGuard() {
  ThreadState& s = state();
  if (--s.region_depth == 0) s.cache.clear();
  s.cache_enabled = previous_cache_enabled_;
  s.types[type_].dtype = previous_dtype_;
  set_enabled(type_, was_enabled_);
}

void run_autocast_step(const dispatch::Op& op, dispatch::OpCall& call) {
  ExcludeDispatchKeysGuard below(kAutocastKey);
  // An in-place or out= call keeps the dtype of the tensor it writes, as in
  // PyTorch, where autocast leaves those overloads alone.
  if (call.num_inputs == 0 || writes_given_output(call)) {
    dispatch::call(op, call);
    return;
  }
  const DeviceTypeId type = call.inputs[0].device().type;
  const std::optional<CastPolicy> policy =
      state().types[type].enabled ? policy_of(static_cast<OpId>(op.index()), type != kCpuDeviceType) : std::nullopt;
  if (!policy) {
    dispatch::call(op, call);
    return;
  }
  std::vector<Tensor> inputs(call.inputs, call.inputs + call.num_inputs);
  for (Tensor& t : inputs) t = cast(t, *policy);
  dispatch::OpCall cast_call = call;
  cast_call.inputs = inputs.data();
  dispatch::call(op, cast_call);
}

}  // namespace ember::autocast
