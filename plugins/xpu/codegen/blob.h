// The blob a generated kernel is cached as: its EKIR and, for every device
// the plugin exposes, the device's fingerprint and the program binary
// (CL_PROGRAM_BINARIES) built for it, under a checksum.
#pragma once

#include <string>
#include <vector>

namespace ember::xpu::codegen {

struct DeviceBinary {
  std::string fingerprint;
  std::string binary;
};

struct BlobContents {
  std::string ir;
  std::vector<DeviceBinary> devices;
};

std::string write_blob(const BlobContents& contents);
// INVALID_ARGUMENT, saying what is wrong, for anything write_blob did not write.
BlobContents read_blob(const void* blob, size_t size);

}  // namespace ember::xpu::codegen
