// The blob a GPU-style generator's compile writes and its load reads (Note
// [Kernel blobs] in kernel_blob.cpp): the kernel's EKIR and its binaries,
// each under the target it was built for (a device's fingerprint, an
// architecture such as "sm_90").
#ifndef EMBER_KERNEL_IR_KERNEL_BLOB_H_
#define EMBER_KERNEL_IR_KERNEL_BLOB_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ember::kernel_ir {

struct BlobBinary {
  std::string target;
  std::string binary;
};

struct KernelBlob {
  std::string ir;  // the EKIR text the binaries were compiled from
  std::vector<BlobBinary> binaries;
};

// Whose blobs: the generator's name for messages ("xpu codegen"), the
// 8 bytes a blob of it starts with, and the version of its layout, which
// the generator raises when what a binary expects changes.
struct BlobFormat {
  const char* generator;
  std::string_view magic;
  uint64_t version;
};

std::string write_kernel_blob(const BlobFormat& format, const KernelBlob& blob);

// INVALID_ARGUMENT "<generator>: not a kernel blob of this plugin: <why>"
// for anything write_kernel_blob did not write with this format: another
// generator's blob, another version, a truncated or damaged one.
KernelBlob read_kernel_blob(const BlobFormat& format, const void* data, size_t size);

}  // namespace ember::kernel_ir

#endif  // EMBER_KERNEL_IR_KERNEL_BLOB_H_
