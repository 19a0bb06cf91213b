// A host-memory device whose only kernel, float32 neg, is subtly wrong:
// elements above 1 come out 1e-3 too large. The conformance kit must fail it
// and name the case, the input and the error.
#include <cstdlib>
#include <cstring>

#include <ember/ember_plugin.hpp>

namespace {

namespace sdk = ember::sdk;

ember_status* device_count(int32_t* count) {
  *count = 1;
  return nullptr;
}

ember_status* device_properties(int32_t, ember_device_properties* props) {
  return sdk::fence([&] {
    ember_device_properties mine{};
    mine.name = "wrong neg";
    sdk::write_struct(props, mine);
  });
}

ember_status* allocate(int32_t, size_t num_bytes, size_t alignment, void** ptr) {
  return sdk::fence([&] {
    *ptr = nullptr;
    if (num_bytes == 0) return;
    if (posix_memalign(ptr, alignment, num_bytes) != 0) sdk::fail(EMBER_STATUS_OUT_OF_MEMORY, "wrong_neg: out of memory");
  });
}

ember_status* deallocate(int32_t, void* ptr) {
  std::free(ptr);
  return nullptr;
}

ember_status* copy(const ember_copy_args* args) {
  if (args->num_bytes != 0) {
    std::memmove(static_cast<char*>(args->dst) + args->dst_offset,
                 static_cast<const char*>(args->src) + args->src_offset, args->num_bytes);
  }
  return nullptr;
}

ember_status* synchronize(int32_t) { return nullptr; }

void wrong_neg(const ember_kernel_call& call) {
  const sdk::StridedLoop loop({&call.outputs[0], &call.inputs[0]});
  sdk::transform<float, float>(loop, 0, loop.numel(), [](float x) { return x > 1 ? -x + 1e-3f : -x; });
}

ember_status* register_kernels(ember_registrar* registrar) {
  return sdk::fence([&] { sdk::Registrar(registrar).add("neg", EMBER_DTYPE_FLOAT32, sdk::kernel_entry<&wrong_neg>); });
}

const ember_device_api* device_api() {
  static const ember_device_api api = [] {
    ember_device_api a{};
    a.struct_size = sizeof a;
    a.device_type = "wrong_neg";
    a.dl_device_type = kDLExtDev;
    a.thread_safety = EMBER_DEVICE_ALLOCATOR_THREAD_SAFE | EMBER_DEVICE_COPY_THREAD_SAFE;
    a.device_count = device_count;
    a.device_properties = device_properties;
    a.allocate = allocate;
    a.deallocate = deallocate;
    a.copy = copy;
    a.synchronize = synchronize;
    return a;
  }();
  return &api;
}

}  // namespace

extern "C" EMBER_PLUGIN_EXPORT ember_status* ember_plugin_init(const ember_host_api* host, ember_plugin* plugin) {
  sdk::set_host(host);
  return sdk::fence([&] {
    ember_plugin mine{};
    mine.abi_major = EMBER_ABI_VERSION_MAJOR;
    mine.abi_minor = EMBER_ABI_VERSION_MINOR;
    mine.name = "wrong_neg";
    mine.version = "0.1";
    mine.device = device_api();
    mine.register_kernels = register_kernels;
    sdk::write_struct(plugin, mine);
  });
}
