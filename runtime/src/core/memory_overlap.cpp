#include "core/memory_overlap.h"

#include <string>

#include "core/shape.h"
#include "ember/error.h"

namespace ember {
namespace {

enum class Overlap { None, Full, Partial, TooHard };

bool has_internal_overlap(const Tensor& t) {
  if (t.numel() == 0) return false;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.strides()[d] == 0 && t.sizes()[d] > 1) return true;
  }
  return false;
}

Overlap overlap_of(const Tensor& a, const Tensor& b) {
  if (!may_share_elements(a, b)) return Overlap::None;
  if (a.storage_offset() == b.storage_offset() && a.sizes() == b.sizes() && a.strides() == b.strides()) {
    return Overlap::Full;
  }
  if (is_non_overlapping_and_dense(a.sizes(), a.strides()) && is_non_overlapping_and_dense(b.sizes(), b.strides())) {
    return Overlap::Partial;
  }
  return Overlap::TooHard;
}

}  // namespace

bool may_share_elements(const Tensor& a, const Tensor& b) {
  if (a.numel() == 0 || b.numel() == 0 || !a.is_alias_of(b)) return false;
  const int64_t a_end = a.storage_offset() + span_elements(a.sizes(), a.strides());
  const int64_t b_end = b.storage_offset() + span_elements(b.sizes(), b.strides());
  return a_end > b.storage_offset() && b_end > a.storage_offset();
}

void check_no_internal_overlap(const Tensor& t, std::string_view op) {
  if (has_internal_overlap(t)) {
    throw_error(ErrorKind::Runtime, std::string(op) +
                                        ": unsupported operation: more than one element of the "
                                        "written-to tensor (sizes " +
                                        shape_str(t.sizes()) + ", strides " + shape_str(t.strides()) +
                                        ") refers to a single memory location. "
                                        "Please clone() the tensor before performing the operation.");
  }
}

Tensor input_for_inplace(const Tensor& out, const Tensor& input, std::string_view op) {
  switch (overlap_of(out, input)) {
    case Overlap::None:
    case Overlap::Full:
      return input;
    case Overlap::Partial:
      throw_error(ErrorKind::Runtime, std::string(op) +
                                          ": unsupported operation: some elements of the input "
                                          "tensor and the written-to tensor refer to a single memory location. "
                                          "Please clone() the tensor before performing the operation.");
    case Overlap::TooHard:
      break;
  }
  return input.clone();
}

}  // namespace ember
