#include <ember/kernel_ir/launch_checks.h>

#include <ember/sdk/dtypes.hpp>
#include <ember/sdk/status.hpp>

#include <cstdint>
#include <string>

namespace ember::kernel_ir {
namespace {

using Wide = __int128;

// The kernel's index and loop arithmetic runs in int64_t; work beyond this
// is refused so that none of it can overflow (generated task counts add a
// little to the number of steps).
constexpr Wide kMostSteps = Wide{1} << 62;
constexpr Wide kInt64Low = -(Wide{1} << 63);
constexpr Wide kInt64High = (Wide{1} << 63) - 1;

std::string text_of(Wide value) {
  if (value == 0) return "0";
  const bool negative = value < 0;
  std::string digits;
  for (Wide v = negative ? -value : value; v > 0; v /= 10) digits.insert(digits.begin(), char('0' + int(v % 10)));
  return (negative ? "-" : "") + digits;
}

std::string list_of(const int64_t* values, int32_t count) {
  std::string text = "[";
  for (int32_t i = 0; i < count; ++i) text += (i > 0 ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

class Checker {
 public:
  Checker(const Kernel& kernel, const ember_codegen_launch_args& args, const LaunchTarget& target)
      : kernel_(kernel), args_(args), target_(target) {}

  void run() {
    if (args_.struct_size < EMBER_STRUCT_SIZE(ember_codegen_launch_args, num_params)) {
      refuse("ember_codegen_launch_args.struct_size " + std::to_string(args_.struct_size) + " is too small");
    }
    if (args_.num_buffers != static_cast<int64_t>(kernel_.buffers.size())) {
      refuse("kernel '" + kernel_.name + "' has " + std::to_string(kernel_.buffers.size()) + " buffers, the launch " +
             std::to_string(args_.num_buffers));
    }
    if (args_.num_params != kernel_.params) {
      refuse("kernel '" + kernel_.name + "' has " + std::to_string(kernel_.params) + " parameters, the launch " +
             std::to_string(args_.num_params));
    }
    if ((args_.num_buffers > 0 && args_.buffers == nullptr) || (args_.num_params > 0 && args_.params == nullptr)) {
      refuse("buffers or params is NULL");
    }
    for (size_t b = 0; b < kernel_.buffers.size(); ++b) check_buffer(b);
    const std::vector<int64_t> outer = extents(kernel_.outer, [] { return std::string("outer extent"); });
    Wide outer_points = points(outer);
    Wide steps = outer_points;
    for (size_t l = 0; l < kernel_.loops.size(); ++l) {
      const Loop& loop = kernel_.loops[l];
      const std::vector<int64_t> inner = extents(loop.extents, [l] { return "loop " + std::to_string(l) + " extent"; });
      const Wide inner_points = points(inner);
      steps += outer_points * inner_points;
      if (steps > kMostSteps) refuse("kernel '" + kernel_.name + "' iterates over more than 2^62 elements");
      if (outer_points == 0 || inner_points == 0) continue;
      for (size_t i = 0; i < loop.body.size(); ++i) {
        const Instruction& ins = loop.body[i];
        if (ins.op == Op::load || ins.op == Op::store) {
          check_access(ins, l, i, outer, inner, outer_points * inner_points);
        }
      }
    }
  }

 private:
  [[noreturn]] void refuse(const std::string& what) const {
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, std::string(target_.generator) + " launch: " + what);
  }

  int64_t value_of(const Term& term) const { return term.is_param ? args_.params[term.value] : term.value; }

  // Descriptions of what is checked are written only for a refusal: a
  // launch that passes builds no text.
  template <class Describe>
  std::vector<int64_t> extents(const std::vector<Term>& terms, const Describe& what) const {
    std::vector<int64_t> values;
    for (size_t d = 0; d < terms.size(); ++d) {
      const int64_t v = value_of(terms[d]);
      if (v < 0) {
        refuse(what() + " " + std::to_string(d) + " is p" + std::to_string(terms[d].value) + " = " +
               std::to_string(v) + ", a negative size");
      }
      values.push_back(v);
    }
    return values;
  }

  Wide points(const std::vector<int64_t>& extents) const {
    Wide product = 1;
    for (int64_t e : extents) {
      product *= e;
      if (product > kMostSteps) refuse("kernel '" + kernel_.name + "' iterates over more than 2^62 elements");
    }
    return product;
  }

  // The buffer's dtype, device and the alignment of its element 0.
  void check_buffer(size_t b) const {
    const DLTensor& t = args_.buffers[b];
    const ember_dtype expected = kernel_.buffers[b].dtype;
    const auto name = [b] { return "buffer " + std::to_string(b); };
    ember_dtype dtype;
    if (!sdk::from_dl_dtype(t.dtype, &dtype) || dtype != expected) {
      refuse(name() + " must be " + sdk::dtype_name(expected) + " (DLPack code " + std::to_string(t.dtype.code) +
             ", bits " + std::to_string(t.dtype.bits) + ", lanes " + std::to_string(t.dtype.lanes) + " given)");
    }
    if (t.device.device_type != target_.device_type) {
      refuse(name() + " is on DLPack device type " + std::to_string(t.device.device_type) + ", not " +
             target_.device_name);
    }
    if (t.ndim < 0 || (t.ndim > 0 && t.shape == nullptr)) refuse(name() + " has no shape");
    const uintptr_t element0 = (target_.data_is_address ? reinterpret_cast<uintptr_t>(t.data) : 0) + t.byte_offset;
    if (element0 % sdk::element_size(expected) != 0) {
      refuse(name() + ": " + (target_.data_is_address ? "data + " : "") + "byte_offset is not aligned to its " +
             std::to_string(sdk::element_size(expected)) + "-byte elements");
    }
  }

  // Whether the elements [low, high] lie in what buffer b's DLTensor holds.
  template <class Describe>
  void check_within(size_t b, Wide low, Wide high, const Describe& who) const {
    const DLTensor& t = args_.buffers[b];
    Wide span_low = 0, span_high = 0;
    Wide compact_stride = 1;  // DLPack: NULL strides are row-major
    for (int32_t d = t.ndim; d-- > 0;) {
      const int64_t size = t.shape[d];
      if (size <= 0) {
        refuse(who() + " reaches elements [" + text_of(low) + ", " + text_of(high) + "] of buffer " +
               std::to_string(b) + ", whose DLTensor (shape " + list_of(t.shape, t.ndim) + ") has no element");
      }
      const Wide s = t.strides != nullptr ? Wide{t.strides[d]} : compact_stride;
      (s > 0 ? span_high : span_low) += s * (size - 1);
      if (span_high > kInt64High || span_low < kInt64Low) {
        refuse("buffer " + std::to_string(b) + ": its DLTensor's element offsets overflow 64 bits");
      }
      if (compact_stride < kMostSteps) compact_stride *= size;
    }
    if (t.data == nullptr || low < span_low || high > span_high) {
      refuse(who() + " reaches elements [" + text_of(low) + ", " + text_of(high) + "] of buffer " + std::to_string(b) +
             ", whose DLTensor (shape " + list_of(t.shape, t.ndim) +
             (t.strides ? ", strides " + list_of(t.strides, t.ndim) : "") + (t.data == nullptr ? ", data NULL" : "") +
             ") holds [" + text_of(span_low) + ", " + text_of(span_high) + "]");
    }
  }

  // A store runs `iterations` times, each on an element of its own
  // (kernel-ir.md "Loops and scopes"), so no more than its buffer has.
  void check_access(const Instruction& ins, size_t loop, size_t index, const std::vector<int64_t>& outer,
                    const std::vector<int64_t>& inner, Wide iterations) const {
    const auto who = [&] {
      return describe_instruction(ins.id, static_cast<int>(loop), static_cast<int>(index), op_name(ins.op));
    };
    if (ins.op == Op::store) {
      const DLTensor& t = args_.buffers[ins.buffer];
      Wide elements = 1;
      for (int32_t d = 0; d < t.ndim && elements <= iterations; ++d) elements *= t.shape[d] > 0 ? t.shape[d] : 0;
      if (iterations > elements) {
        refuse(who() + " stores " + text_of(iterations) + " times into buffer " + std::to_string(ins.buffer) +
               ", whose DLTensor (shape " + list_of(t.shape, t.ndim) + ") has " + text_of(elements) +
               " elements: some element would be stored twice");
      }
    }
    Wide low = value_of(ins.offset);
    Wide high = low;
    for (size_t d = 0; d < ins.strides.size(); ++d) {
      const int64_t extent = d < outer.size() ? outer[d] : inner[d - outer.size()];
      const Wide reach = Wide{value_of(ins.strides[d])} * (extent - 1);
      (reach > 0 ? high : low) += reach;
      if (low < kInt64Low || high > kInt64High) refuse(who() + ": its element indices overflow 64 bits");
    }
    check_within(static_cast<size_t>(ins.buffer), low, high, who);
  }

  const Kernel& kernel_;
  const ember_codegen_launch_args& args_;
  const LaunchTarget& target_;
};

}  // namespace

void check_launch(const Kernel& kernel, const ember_codegen_launch_args& args, const LaunchTarget& target) {
  Checker(kernel, args, target).run();
}

}  // namespace ember::kernel_ir
