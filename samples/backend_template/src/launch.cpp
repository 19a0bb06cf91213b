#include "launch.h"

#include <memory>
#include <string>
#include <vector>

#include "emu_device.h"

namespace emu {

namespace {

// A deep copy of an ember_kernel_call that the worker can use after the
// core's call has returned.
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
    call_.allocate_scratch = nullptr;  // host callbacks are valid only during the call
    call_.host_context = nullptr;
  }

  const ember_kernel_call& call() const { return call_; }

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

}  // namespace

// [guide:launch]
void launch(const ember_kernel_call& call, KernelBody body) {
  EmuDevice& device = emu_device(call.device_index);
  Stream& stream = device.stream(call.stream);
  stream.raise_pending_error();
  auto owned = std::make_shared<const OwnedCall>(call);
  stream.enqueue([owned, body, &device] {
    Arena::Access access(device.arena());
    body(owned->call());
  });
}
// [/guide:launch]

}  // namespace emu
