// async.hpp -- helpers for devices whose kernels run after the kernel call
// returned (queued on a stream):
//   - `OwnedCall`: a deep copy of an ember_kernel_call that stays valid after
//     the call, and runs a body on it, naming the call in whatever the body
//     throws (Note [Asynchronous errors]);
//   - `describe_call()`: a call as an error message names it.
#ifndef EMBER_SDK_ASYNC_HPP_
#define EMBER_SDK_ASYNC_HPP_

#include <ember/ember_plugin.h>
#include <ember/sdk/dtypes.hpp>
#include <ember/sdk/registration.hpp>
#include <ember/sdk/status.hpp>

#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

namespace ember::sdk {

// Note [Asynchronous errors]
// A device that queues work learns of a data-dependent failure (an index out
// of range, a fault) only when the work runs, after the kernel call that
// queued it returned success. The failure then comes back from a later,
// unrelated call (the next launch, copy or synchronize on that stream), and
// the core, which wraps every status in the name of the call that returned
// it, can only name that later call. So the status of failed queued work
// names the op the work belonged to, with its call:
//     index_select(float32[3, 4], int64[2]; dim=0) failed asynchronously: <message>
// and keeps the code of the original failure (OUT_OF_RANGE stays an
// IndexError). OwnedCall::run() builds that status; a device whose errors are
// found by the driver (a CUDA fault) names the last op it queued the same way,
// through asynchronous_error().

namespace detail {
inline std::string describe_tensor(const DLTensor& t) {
  ember_dtype dtype;
  std::string text = from_dl_dtype(t.dtype, &dtype) ? dtype_name(dtype) : "unknown";
  text += '[';
  for (int d = 0; d < t.ndim; ++d) text += (d > 0 ? ", " : "") + std::to_string(t.shape[d]);
  return text + ']';
}

inline std::string describe_attr(const ember_attr& attr) {
  std::string text = std::string(attr.name) + '=';
  switch (attr.kind) {
    case EMBER_ATTR_INT:
      return text + std::to_string(attr.int_value);
    case EMBER_ATTR_BOOL:
      return text + (attr.int_value != 0 ? "true" : "false");
    case EMBER_ATTR_FLOAT: {
      char number[32];
      std::snprintf(number, sizeof number, "%.9g", attr.float_value);
      return text + number;
    }
    case EMBER_ATTR_INTS: {
      text += '[';
      for (int64_t i = 0; i < attr.num_ints; ++i) text += (i > 0 ? ", " : "") + std::to_string(attr.ints[i]);
      return text + ']';
    }
  }
  return text + '?';
}
}  // namespace detail

// "index_select(float32[3, 4], int64[2]; dim=0)": the op, its inputs' dtypes
// and shapes, and its attributes.
inline std::string describe_call(const ember_kernel_call& call) {
  std::string text = std::string(call.op_name) + '(';
  for (int64_t i = 0; i < call.num_inputs; ++i) text += (i > 0 ? ", " : "") + detail::describe_tensor(call.inputs[i]);
  for (int64_t i = 0; i < call.num_attrs; ++i) text += (i > 0 ? ", " : "; ") + detail::describe_attr(call.attrs[i]);
  return text + ')';
}

// The Error for queued work of `failed_call` (a describe_call() text) that
// failed with `code` and `message` (Note [Asynchronous errors]).
inline Error asynchronous_error(const std::string& failed_call, ember_status_code code, const std::string& message) {
  return Error(code, failed_call + " failed asynchronously: " + message);
}

// A deep copy of an ember_kernel_call (tensors, shapes, strides, attributes,
// op name) for work that runs after the core's call has returned. The host
// callbacks are valid only during the call, so the copy has none
// (allocate_scratch is NULL): queued work takes no scratch from the core.
class OwnedCall {
 public:
  explicit OwnedCall(const ember_kernel_call& call) : op_name_(call.op_name) {
    copy_tensors(call.inputs, call.num_inputs, inputs_);
    copy_tensors(call.outputs, call.num_outputs, outputs_);
    for (int64_t i = 0; i < call.num_attrs; ++i) {
      const ember_attr& a = call.attrs[i];
      attr_names_.emplace_back(a.name);
      attr_ints_.emplace_back(a.ints, a.ints + (a.kind == EMBER_ATTR_INTS ? a.num_ints : 0));
      attrs_.push_back(a);
    }
    // Pointers into the vectors are taken only now that they stop growing.
    for (size_t i = 0; i < attrs_.size(); ++i) {
      attrs_[i].name = attr_names_[i].c_str();
      attrs_[i].ints = attr_ints_[i].data();
    }
    call_ = call;
    call_.op_name = op_name_.c_str();
    call_.inputs = link(inputs_, input_dl_);
    call_.outputs = link(outputs_, output_dl_);
    call_.attrs = attrs_.data();
    call_.allocate_scratch = nullptr;
    call_.host_context = nullptr;
  }
  OwnedCall(const OwnedCall&) = delete;
  OwnedCall& operator=(const OwnedCall&) = delete;

  const ember_kernel_call& call() const { return call_; }

  // Runs `body` on the copy; anything it throws comes out as the Error of
  // asynchronous_error() naming this call, with the thrown code.
  void run(KernelBody body) const {
    try {
      body(call_);
    } catch (const Error& e) {
      if (e.passed_on_status() != nullptr) {
        // A host status cannot be read, only passed on or destroyed.
        host()->status_destroy(e.passed_on_status());
        throw asynchronous_error(describe_call(call_), EMBER_STATUS_INTERNAL, "a host call failed");
      }
      throw asynchronous_error(describe_call(call_), e.code(), e.what());
    } catch (const std::bad_alloc&) {
      throw asynchronous_error(describe_call(call_), EMBER_STATUS_OUT_OF_MEMORY, "out of host memory");
    } catch (const std::exception& e) {
      throw asynchronous_error(describe_call(call_), EMBER_STATUS_INTERNAL, e.what());
    } catch (...) {
      throw asynchronous_error(describe_call(call_), EMBER_STATUS_INTERNAL, "unknown exception in plugin");
    }
  }

 private:
  struct Tensor {
    DLTensor dl;
    std::vector<int64_t> shape, strides;
  };

  static void copy_tensors(const DLTensor* tensors, int64_t count, std::vector<Tensor>& into) {
    for (int64_t i = 0; i < count; ++i) {
      const DLTensor& t = tensors[i];
      into.push_back({t, {t.shape, t.shape + t.ndim}, {t.strides, t.strides + t.ndim}});
    }
  }

  static DLTensor* link(std::vector<Tensor>& tensors, std::vector<DLTensor>& dl) {
    for (Tensor& t : tensors) {
      t.dl.shape = t.shape.data();
      t.dl.strides = t.strides.data();
      dl.push_back(t.dl);
    }
    return dl.data();
  }

  std::string op_name_;
  std::vector<Tensor> inputs_, outputs_;
  std::vector<DLTensor> input_dl_, output_dl_;
  std::vector<std::string> attr_names_;
  std::vector<std::vector<int64_t>> attr_ints_;
  std::vector<ember_attr> attrs_;
  ember_kernel_call call_{};
};

}  // namespace ember::sdk

#endif  // EMBER_SDK_ASYNC_HPP_
