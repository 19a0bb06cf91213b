#include "core/dlpack.h"

#include <ember/ember_plugin.h>

#include <string>

#include "ember/error.h"

namespace ember {

DLDataType to_dl_dtype(DType dtype) {
  const auto bits = static_cast<uint8_t>(itemsize(dtype) * 8);
  switch (dtype) {
    case DType::Bool: return {EMBER_DL_BOOL, 8, 1};
    case DType::UInt8: return {kDLUInt, 8, 1};
    case DType::BFloat16: return {kDLBfloat, 16, 1};
    case DType::Float16:
    case DType::Float32:
    case DType::Float64: return {kDLFloat, bits, 1};
    default: return {kDLInt, bits, 1};
  }
}

DType from_dl_dtype(DLDataType dl) {
  if (dl.lanes == 1) {
    for (int i = 0; i < kNumDTypes; ++i) {
      const DLDataType candidate = to_dl_dtype(static_cast<DType>(i));
      if (candidate.code == dl.code && candidate.bits == dl.bits) return static_cast<DType>(i);
    }
  }
  throw_error(ErrorKind::Type, "unsupported DLPack dtype (code " + std::to_string(dl.code) + ", bits " +
                                   std::to_string(dl.bits) + ", lanes " + std::to_string(dl.lanes) + ")");
}

}  // namespace ember
