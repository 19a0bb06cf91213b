// The one emulated device: its memory arena and its streams. It is made on
// first use and destroyed by the plugin's shutdown (which joins the worker
// threads), so loading the plugin costs nothing until it is used.
#pragma once

#include <memory>
#include <mutex>
#include <map>

#include <ember/ember_plugin.h>

#include "arena.h"
#include "stream.h"

namespace emu {

class EmuDevice {
 public:
  explicit EmuDevice(size_t memory_bytes) : arena_(memory_bytes) {}

  Arena& arena() { return arena_; }
  // NULL is the default stream; other handles come from create_stream.
  Stream& stream(ember_stream_t handle);
  ember_stream_t create_stream();
  void destroy_stream(ember_stream_t handle);
  // Waits for every stream; throws the first pending error.
  void synchronize();

 private:
  Arena arena_;
  Stream default_stream_;
  std::mutex streams_mutex_;
  std::map<ember_stream_t, std::unique_ptr<Stream>> streams_;
};

// Bytes of device memory: EMU_MEMORY_MB from the environment, else 1 GiB.
size_t emu_memory_bytes();

// The device, made on first use; throws for any ordinal but 0.
EmuDevice& emu_device(int32_t ordinal = 0);
// Destroys the device (plugin shutdown).
void release_emu_device();

}  // namespace emu
