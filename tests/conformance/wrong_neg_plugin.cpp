// A host-memory device whose only kernel, float32 neg, is subtly wrong:
// elements above 1 come out 1e-3 too large. The conformance kit must fail it
// and name the case, the input and the error.
#include <cstdlib>
#include <cstring>

#include <ember/ember_plugin.hpp>

namespace {

namespace sdk = ember::sdk;

void device_count(int32_t* count) { *count = 1; }

void device_properties(int32_t, ember_device_properties* props) {
  ember_device_properties mine{};
  mine.name = "wrong neg";
  sdk::write_struct(props, mine);
}

void allocate(int32_t, size_t num_bytes, size_t alignment, void** ptr) {
  *ptr = nullptr;
  if (num_bytes == 0) return;
  if (posix_memalign(ptr, alignment, num_bytes) != 0) sdk::fail(EMBER_STATUS_OUT_OF_MEMORY, "wrong_neg: out of memory");
}

void deallocate(int32_t, void* ptr) { std::free(ptr); }

void copy(const ember_copy_args* args) {
  if (args->num_bytes != 0) {
    std::memmove(static_cast<char*>(args->dst) + args->dst_offset,
                 static_cast<const char*>(args->src) + args->src_offset, args->num_bytes);
  }
}

void synchronize(int32_t) {}

void wrong_neg(const ember_kernel_call& call) {
  const sdk::StridedLoop loop({&call.outputs[0], &call.inputs[0]});
  sdk::transform<float, float>(loop, 0, loop.numel(), [](float x) { return x > 1 ? -x + 1e-3f : -x; });
}

void register_kernels(ember_registrar* registrar) {
  sdk::Registrar(registrar).add("neg", EMBER_DTYPE_FLOAT32, sdk::kernel_entry<&wrong_neg>);
}

const ember_device_api* device_api() {
  static const ember_device_api api = [] {
    ember_device_api a =
        sdk::device_table("wrong_neg", kDLExtDev, EMBER_DEVICE_ALLOCATOR_THREAD_SAFE | EMBER_DEVICE_COPY_THREAD_SAFE);
    a.device_count = sdk::fenced<device_count>;
    a.device_properties = sdk::fenced<device_properties>;
    a.allocate = sdk::fenced<allocate>;
    a.deallocate = sdk::fenced<deallocate>;
    a.copy = sdk::fenced<copy>;
    a.synchronize = sdk::fenced<synchronize>;
    return a;
  }();
  return &api;
}

ember_plugin describe_plugin() {
  ember_plugin plugin{};
  plugin.name = "wrong_neg";
  plugin.version = "0.1";
  plugin.device = device_api();
  plugin.register_kernels = sdk::fenced<register_kernels>;
  return plugin;
}

}  // namespace

EMBER_PLUGIN_ENTRY(describe_plugin)
