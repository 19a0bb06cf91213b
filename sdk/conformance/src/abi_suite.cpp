#include "abi_suite.h"

#include <cstddef>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <set>
#include <mutex>
#include <thread>

#include <ember/ember.h>
#include <ember/ember_plugin.hpp>

#include "tensor_compare.h"

namespace ember::conformance {

namespace {

std::string describe(const StatusCopy& status) {
  return "status " + std::to_string(status.code) + " '" + status.message + "'";
}

void expect_ok(ember_status* status, const std::string& what) {
  const StatusCopy copy = take_status(status);
  if (!copy.ok) fail_check(what + " failed: " + describe(copy));
}

// The device functions this suite calls, with their documented defaults.
class DeviceApi {
 public:
  explicit DeviceApi(const PluginHarness& harness) : api_(harness.device()) {
    if (api_ == nullptr) throw CheckSkipped("the plugin provides no device");
  }
  const ember_device_api& operator*() const { return *api_; }
  const ember_device_api* operator->() const { return api_; }
  // Whether the optional function at `offset` lies within the plugin's
  // struct and is set; its bytes are read without knowing its type.
  bool has(size_t offset) const {
    if (offset >= api_->struct_size) return false;
    uintptr_t bits = 0;
    std::memcpy(&bits, reinterpret_cast<const char*>(api_) + offset, sizeof bits);
    return bits != 0;
  }

 private:
  const ember_device_api* api_;
};

// Device memory from the plugin's raw allocator, returned on destruction.
class DeviceBuffer {
 public:
  DeviceBuffer(const DeviceApi& api, size_t bytes, size_t alignment = 64) : api_(api) {
    expect_ok(api->allocate(0, bytes, alignment, &ptr_), "allocate(" + std::to_string(bytes) + ")");
    if (bytes > 0) expect(ptr_ != nullptr, "allocate(" + std::to_string(bytes) + ") returned NULL without an error");
  }
  ~DeviceBuffer() {
    if (ptr_ != nullptr) take_status(api_->deallocate(0, ptr_));
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return ptr_; }

 private:
  const DeviceApi& api_;
  void* ptr_ = nullptr;
};

ember_copy_args copy_args(ember_copy_kind kind, const void* src, size_t src_offset, void* dst, size_t dst_offset,
                          size_t bytes, ember_stream_t stream = nullptr) {
  ember_copy_args args{};
  args.struct_size = sizeof args;
  args.kind = kind;
  args.src = src;
  args.src_offset = src_offset;
  args.dst = dst;
  args.dst_offset = dst_offset;
  args.num_bytes = bytes;
  args.stream = stream;
  return args;
}

void copy(const DeviceApi& api, const ember_copy_args& args, const std::string& what) {
  expect_ok(api->copy(&args), what);
}

std::vector<unsigned char> pattern(size_t bytes, unsigned seed) {
  std::vector<unsigned char> data(bytes);
  for (size_t i = 0; i < bytes; ++i) data[i] = static_cast<unsigned char>((i * 131 + seed * 17 + (i >> 8)) & 0xff);
  return data;
}

// --- the checks ----------------------------------------------------------

void check_init(PluginHarness& harness, std::string& note) {
  const PluginHarness::InitResult result = harness.init(HostVersion{});
  expect(result.status.ok, "ember_plugin_init failed: " + describe(result.status));
  const ember_plugin& p = result.plugin;
  expect(p.abi_major == EMBER_ABI_VERSION_MAJOR,
         "abi_major is " + std::to_string(p.abi_major) + ", the host's is " + std::to_string(EMBER_ABI_VERSION_MAJOR));
  expect(p.name != nullptr && *p.name != '\0', "the plugin did not set its name");
  expect(p.register_kernels != nullptr || p.abi_minor >= 1,
         "register_kernels is NULL, which ABI 1.0 (the plugin's minor) does not allow");
  note = std::string("plugin '") + p.name + "' " + (p.version != nullptr ? p.version : "") + ", ABI " +
         std::to_string(p.abi_major) + "." + std::to_string(p.abi_minor);
}

void check_version_negotiation(PluginHarness& harness, std::string& note) {
  struct Host {
    const char* what;
    HostVersion version;
  };
  const Host hosts[] = {
      {"a newer-minor host (larger table)", {EMBER_ABI_VERSION_MINOR + 1, 2 * sizeof(void*), 0}},
      {"an ABI 1.0 host", {0, 0, EMBER_HOST_API_SIZE_V1_0}},
  };
  for (const Host& host : hosts) {
    const PluginHarness::InitResult result = harness.init(host.version);
    expect(result.status.ok, std::string("init under ") + host.what + " failed: " + describe(result.status));
    expect(result.plugin.abi_major == EMBER_ABI_VERSION_MAJOR, std::string("abi_major changed under ") + host.what);
  }
  note = "accepts hosts of ABI 1." + std::to_string(EMBER_ABI_VERSION_MINOR + 1) + " and 1.0";
}

void check_struct_sizes(PluginHarness& harness, std::string& note) {
  // An ABI 1.0 core has room for the fields up to shutdown only.
  const PluginHarness::InitResult result = harness.init(HostVersion{}, EMBER_PLUGIN_SIZE_V1_0);
  expect(result.status.ok, "init with a 1.0-sized ember_plugin failed: " + describe(result.status));
  expect(result.guard_intact, "ember_plugin_init wrote past the struct_size the host gave");
  harness.init_and_register();
  DeviceApi api(harness);
  expect(api->struct_size >= offsetof(ember_device_api, device_count),
         "ember_device_api.struct_size " + std::to_string(api->struct_size) + " is smaller than its header");
  // device_properties into a struct that ends before total_memory.
  struct Guarded {
    ember_device_properties props;
    unsigned char guard[32];
  } guarded;
  std::memset(&guarded, 0xA5, sizeof guarded);
  guarded.props.struct_size = offsetof(ember_device_properties, total_memory);
  expect_ok(api->device_properties(0, &guarded.props), "device_properties");
  const auto* bytes = reinterpret_cast<const unsigned char*>(&guarded);
  for (size_t i = guarded.props.struct_size; i < sizeof guarded; ++i) {
    expect(bytes[i] == 0xA5, "device_properties wrote past struct_size (byte " + std::to_string(i) + ")");
  }
  note = "ember_plugin and ember_device_properties written only within struct_size";
}

void check_registration(PluginHarness& harness, std::string& note) {
  harness.init_and_register();
  for (const std::string& error : harness.registration_errors()) fail_check("register_kernel refused: " + error);
  std::set<std::string> catalogue;
  for (const CatalogueOp& op : catalogue_ops()) catalogue.insert(op.name);
  std::set<std::string> ops;
  for (const RegisteredKernel& k : harness.kernels()) {
    expect(catalogue.count(k.op) == 1, "kernel for '" + k.op + "', which is not in the op catalogue");
    ops.insert(k.op);
  }
  if (!harness.kernels().empty()) expect(harness.device() != nullptr, "kernels registered without a device");
  note = std::to_string(harness.kernels().size()) + " kernels for " + std::to_string(ops.size()) + " ops";
}

void check_device_table(PluginHarness& harness, std::string& note) {
  harness.init_and_register();
  DeviceApi api(harness);
  const std::string type = api->device_type != nullptr ? api->device_type : "";
  expect(!type.empty() && std::all_of(type.begin(), type.end(),
                                      [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; }),
         "device_type '" + type + "' is not lower-case letters, digits and '_'");
  for (auto [ok, name] : {std::pair{api->device_count != nullptr, "device_count"},
                          {api->device_properties != nullptr, "device_properties"},
                          {api->allocate != nullptr, "allocate"},
                          {api->deallocate != nullptr, "deallocate"},
                          {api->copy != nullptr, "copy"},
                          {api->synchronize != nullptr, "synchronize"}}) {
    expect(ok, std::string("required device function '") + name + "' is NULL");
  }
  int32_t count = -1;
  expect_ok(api->device_count(&count), "device_count");
  expect(count >= 1, "device_count is " + std::to_string(count) + "; the kit needs a device");
  ember_device_properties props{};
  props.struct_size = sizeof props;
  expect_ok(api->device_properties(0, &props), "device_properties(0)");
  expect(props.name != nullptr, "device_properties left name NULL");
  const StatusCopy bad = take_status(api->device_properties(count, &props));
  expect(!bad.ok, "device_properties(" + std::to_string(count) + ") of a missing device succeeded");
  note = "'" + type + "': " + std::to_string(count) + " device(s), " + props.name;
}

void check_allocate(PluginHarness& harness, std::string& note) {
  harness.init_and_register();
  DeviceApi api(harness);
  // An OpenCL device's pointers are cl_mem handles (DLPack's kDLOpenCL
  // convention), not addresses: alignment is the driver's business there.
  const bool pointers_are_addresses = api->dl_device_type != kDLOpenCL;
  for (size_t alignment : {size_t{64}, size_t{256}, size_t{4096}}) {
    for (size_t bytes : {size_t{1}, size_t{3}, size_t{64}, size_t{1000003}}) {
      DeviceBuffer buffer(api, bytes, alignment);
      expect(!pointers_are_addresses || reinterpret_cast<uintptr_t>(buffer.get()) % alignment == 0,
             "allocate(" + std::to_string(bytes) + ", alignment " + std::to_string(alignment) + ") is misaligned");
    }
  }
  {
    DeviceBuffer a(api, 128), b(api, 128);
    expect(a.get() != b.get(), "two live allocations share an address");
  }
  void* zero = nullptr;
  expect_ok(api->allocate(0, 0, 64, &zero), "allocate(0 bytes)");
  if (zero != nullptr) expect_ok(api->deallocate(0, zero), "deallocate of a 0-byte allocation");
  { DeviceBuffer large(api, size_t{64} << 20); }
  void* huge = nullptr;
  const StatusCopy refused = take_status(api->allocate(0, SIZE_MAX / 2, 64, &huge));
  if (refused.ok) {
    take_status(api->deallocate(0, huge));
    fail_check("allocate(SIZE_MAX / 2) succeeded");
  }
  expect(!refused.message.empty(), "the failed allocation's status has no message");
  note = "aligned to 64..4096, 0 bytes and 64 MiB served; SIZE_MAX/2 refused with '" + refused.message + "'";
}

void check_copy(PluginHarness& harness, std::string& note) {
  harness.init_and_register();
  DeviceApi api(harness);
  constexpr size_t kBytes = 4099;  // no vector width divides it
  DeviceBuffer a(api, kBytes), b(api, kBytes);
  const std::vector<unsigned char> source = pattern(kBytes, 1);
  copy(api, copy_args(EMBER_COPY_HOST_TO_DEVICE, source.data(), 0, a.get(), 0, kBytes), "host-to-device copy");
  struct Piece {
    size_t src_offset, dst_offset, bytes;
  };
  const Piece pieces[] = {{3, 5, 37}, {0, 1, 1}, {17, 0, 1031}, {100, 200, 0}, {1, 3, 4095}};
  std::vector<unsigned char> expected(kBytes, 0);
  const std::vector<unsigned char> zeros(kBytes, 0);
  copy(api, copy_args(EMBER_COPY_HOST_TO_DEVICE, zeros.data(), 0, b.get(), 0, kBytes), "host-to-device copy");
  for (const Piece& piece : pieces) {
    copy(api, copy_args(EMBER_COPY_DEVICE_TO_DEVICE, a.get(), piece.src_offset, b.get(), piece.dst_offset, piece.bytes),
         "device-to-device copy");
    std::memcpy(expected.data() + piece.dst_offset, source.data() + piece.src_offset, piece.bytes);
  }
  expect_ok(api->synchronize(0), "synchronize");
  std::vector<unsigned char> back(kBytes, 0xEE);
  copy(api, copy_args(EMBER_COPY_DEVICE_TO_HOST, b.get(), 0, back.data(), 0, kBytes), "device-to-host copy");
  for (size_t i = 0; i < kBytes; ++i) {
    expect(back[i] == expected[i], "byte " + std::to_string(i) + " is " + std::to_string(back[i]) + ", expected " +
                                       std::to_string(expected[i]) + " after copies at odd offsets");
  }
  // Device to host at an offset into the host buffer.
  std::vector<unsigned char> window(64, 0);
  copy(api, copy_args(EMBER_COPY_DEVICE_TO_HOST, a.get(), 7, window.data(), 3, 61), "device-to-host copy");
  expect(std::equal(window.begin() + 3, window.end(), source.begin() + 7), "device-to-host copy at offsets 7 -> 3");
  note = "host<->device and device<->device at unaligned offsets and sizes, 0 bytes included";
}

void check_streams_and_events(PluginHarness& harness, std::string& note) {
  harness.init_and_register();
  DeviceApi api(harness);
  if (!api.has(offsetof(ember_device_api, stream_create))) {
    expect_ok(api->synchronize(0), "synchronize");
    note = "no streams: one in-order stream (the documented default)";
    return;
  }
  expect(api.has(offsetof(ember_device_api, stream_destroy)) && api.has(offsetof(ember_device_api, stream_synchronize)),
         "stream_create is set but stream_destroy or stream_synchronize is not");
  const bool events = api.has(offsetof(ember_device_api, event_create));
  if (events) {
    for (bool ok : {api.has(offsetof(ember_device_api, event_destroy)), api.has(offsetof(ember_device_api, event_record)),
                    api.has(offsetof(ember_device_api, event_wait)), api.has(offsetof(ember_device_api, event_synchronize))}) {
      expect(ok, "event_create is set but another event function is not");
    }
  }
  constexpr size_t kBytes = size_t{4} << 20;
  DeviceBuffer src(api, kBytes), middle(api, kBytes), dst(api, kBytes);
  const std::vector<unsigned char> data = pattern(kBytes, 7);
  copy(api, copy_args(EMBER_COPY_HOST_TO_DEVICE, data.data(), 0, src.get(), 0, kBytes), "host-to-device copy");
  ember_stream_t first = nullptr, second = nullptr;
  expect_ok(api->stream_create(0, &first), "stream_create");
  expect_ok(api->stream_create(0, &second), "stream_create");
  ember_event_t event = nullptr;
  for (int round = 0; round < 4; ++round) {
    copy(api, copy_args(EMBER_COPY_DEVICE_TO_DEVICE, src.get(), 0, middle.get(), 0, kBytes, first),
         "device-to-device copy on a stream");
    if (events) {
      if (event == nullptr) expect_ok(api->event_create(0, &event), "event_create");
      expect_ok(api->event_record(0, event, first), "event_record");
      expect_ok(api->event_wait(0, event, second), "event_wait");
    } else {
      expect_ok(api->stream_synchronize(0, first), "stream_synchronize");
    }
    copy(api, copy_args(EMBER_COPY_DEVICE_TO_DEVICE, middle.get(), 0, dst.get(), 0, kBytes, second),
         "device-to-device copy on a second stream");
    expect_ok(api->stream_synchronize(0, second), "stream_synchronize");
    if (events) expect_ok(api->event_synchronize(0, event), "event_synchronize");
    std::vector<unsigned char> back(kBytes);
    copy(api, copy_args(EMBER_COPY_DEVICE_TO_HOST, dst.get(), 0, back.data(), 0, kBytes), "device-to-host copy");
    expect(back == data, "a copy on stream 2 ordered after an event on stream 1 saw stale data");
    const std::vector<unsigned char> zeros(kBytes, 0);
    copy(api, copy_args(EMBER_COPY_HOST_TO_DEVICE, zeros.data(), 0, dst.get(), 0, kBytes), "host-to-device copy");
  }
  if (event != nullptr) expect_ok(api->event_destroy(0, event), "event_destroy");
  expect_ok(api->stream_destroy(0, first), "stream_destroy");
  expect_ok(api->stream_destroy(0, second), "stream_destroy");
  expect_ok(api->synchronize(0), "synchronize");
  note = events ? "copies ordered across two streams by an event" : "streams without events, synchronised";
}

// A tensor in device memory for a direct kernel call.
struct DeviceTensor {
  DeviceBuffer buffer;
  std::vector<int64_t> shape, strides;
  DLTensor dl{};
  DeviceTensor(const DeviceApi& api, ember_dtype dtype, std::vector<int64_t> sizes, const void* host_data)
      : buffer(api, static_cast<size_t>(sizes.empty() ? 1 : sizes[0]) * sdk::element_size(dtype)),
        shape(std::move(sizes)),
        strides(shape.size(), 1) {
    const size_t bytes = static_cast<size_t>(shape[0]) * sdk::element_size(dtype);
    copy(api, copy_args(EMBER_COPY_HOST_TO_DEVICE, host_data, 0, buffer.get(), 0, bytes), "host-to-device copy");
    dl.data = buffer.get();
    dl.device = {api->dl_device_type, 0};
    dl.ndim = static_cast<int32_t>(shape.size());
    dl.dtype = sdk::to_dl_dtype(dtype);
    dl.shape = shape.data();
    dl.strides = strides.data();
  }
};

void check_kernel_error(PluginHarness& harness, std::optional<Device> device, std::string& note) {
  harness.init_and_register();
  DeviceApi api(harness);
  const RegisteredKernel* kernel = nullptr;
  for (const RegisteredKernel& k : harness.kernels()) {
    if (k.op == "index_select" && (kernel == nullptr || k.dtype == EMBER_DTYPE_FLOAT32)) kernel = &k;
  }
  if (kernel == nullptr) throw CheckSkipped("no index_select kernel to provoke an out-of-range error with");
  const std::vector<unsigned char> zero_bytes(64, 0);
  auto run_with_index = [&](int64_t bad) {
    DeviceTensor x(api, kernel->dtype, {4}, zero_bytes.data());
    DeviceTensor index(api, EMBER_DTYPE_INT64, {1}, &bad);
    DeviceTensor out(api, kernel->dtype, {1}, zero_bytes.data());
    ember_attr dim{sizeof(ember_attr), "dim", EMBER_ATTR_INT, 0, 0.0, nullptr, 0};
    DLTensor inputs[] = {x.dl, index.dl};
    ember_kernel_call call{};
    call.struct_size = sizeof call;
    call.op_name = "index_select";
    call.inputs = inputs;
    call.num_inputs = 2;
    call.outputs = &out.dl;
    call.num_outputs = 1;
    call.attrs = &dim;
    call.num_attrs = 1;
    StatusCopy status = take_status(kernel->fn(&call, kernel->data));
    // An asynchronous device may report the error when it is next synchronised.
    if (status.ok) status = take_status(api->synchronize(0));
    const std::string what = "index_select with index " + std::to_string(bad) + " into 4 elements";
    expect(!status.ok, what + " reported no error (indices reach kernels in [0, size))");
    expect(status.code == EMBER_STATUS_OUT_OF_RANGE,
           what + " gave status code " + std::to_string(status.code) + ", not OUT_OF_RANGE");
    expect(!status.message.empty(), "the error status has an empty message");
    take_status(api->synchronize(0));
    return status;
  };
  run_with_index(-1);
  const int64_t bad_index = 99;
  const StatusCopy status = run_with_index(bad_index);
  note = "kernel error: '" + status.message + "'";
  if (!device) return;
  // The same failure through the core must arrive with the plugin's message.
  try {
    const Tensor xs = zeros({4}, TensorOptions(static_cast<DType>(kernel->dtype), *device));
    const Tensor bad = full({1}, bad_index, TensorOptions(DType::Int64, *device));
    index_select(xs, 0, bad).to(Device("cpu"));
    synchronize(*device);
  } catch (const std::exception& e) {
    expect(std::string(e.what()).find(status.message) != std::string::npos,
           std::string("through the core the message became '") + e.what() + "'");
    return;
  }
  fail_check("through the core, index_select with an out-of-range index raised nothing");
}

void check_thread_safe_kernels(std::optional<Device> device, std::string& note) {
  if (!device) throw CheckSkipped("no device");
  // Two threads run the same ops at once; the core serialises the kernels a
  // plugin did not declare thread-safe, so the results must be exact either way.
  const Tensor base = arange(0, 4096, 1, TensorOptions(DType::Float32));
  const Tensor expected = base * 3.0 + 1.0;
  std::atomic<int> mismatches{0};
  std::atomic<bool> lacks_kernel{false};
  std::string first_error;
  std::mutex error_mutex;
  auto worker = [&] {
    try {
      const Tensor x = base.to(*device);
      for (int i = 0; i < 50; ++i) {
        const Tensor y = (x * 3.0 + 1.0).to(Device("cpu"));
        if (!equal_values(y, expected)) ++mismatches;
      }
    } catch (const std::exception& e) {
      if (const auto* error = dynamic_cast<const Error*>(&e); error && error->kind() == ErrorKind::NotImplemented) {
        lacks_kernel = true;
      }
      std::lock_guard lock(error_mutex);
      if (first_error.empty()) first_error = e.what();
    }
  };
  std::thread a(worker), b(worker);
  a.join();
  b.join();
  if (lacks_kernel) throw CheckSkipped("the device cannot run float32 mul and add: " + first_error);
  expect(first_error.empty(), "a concurrent call failed: " + first_error);
  expect(mismatches == 0, std::to_string(mismatches.load()) + " of 100 concurrent results were wrong");
  note = "two threads, 50 rounds each of mul and add";
}

void check_reload(PluginHarness& harness, std::string& note) {
  harness.init_and_register();
  const size_t kernels = harness.kernels().size();
  for (int round = 0; round < 2; ++round) {
    const bool unloaded = harness.reload();
    harness.init_and_register();
    expect(harness.kernels().size() == kernels, "after reload the plugin registered " +
                                                    std::to_string(harness.kernels().size()) + " kernels instead of " +
                                                    std::to_string(kernels));
    if (harness.device() != nullptr) {
      DeviceApi api(harness);
      DeviceBuffer buffer(api, 1024);
      expect_ok(api->synchronize(0), "synchronize after reload");
    }
    note = unloaded ? "shutdown, dlclose and a fresh load, twice"
                    : "shutdown and re-init twice; the library stays resident (linked -z nodelete)";
  }
}

struct AbiCheck {
  const char* id;
  void (*fn)(PluginHarness&, std::optional<Device>, std::string&);
};

const std::vector<AbiCheck>& abi_checks() {
  static const std::vector<AbiCheck> checks = {
      {"abi/init", [](PluginHarness& h, std::optional<Device>, std::string& n) { check_init(h, n); }},
      {"abi/version_negotiation",
       [](PluginHarness& h, std::optional<Device>, std::string& n) { check_version_negotiation(h, n); }},
      {"abi/struct_size", [](PluginHarness& h, std::optional<Device>, std::string& n) { check_struct_sizes(h, n); }},
      {"abi/registration", [](PluginHarness& h, std::optional<Device>, std::string& n) { check_registration(h, n); }},
      {"abi/device_table", [](PluginHarness& h, std::optional<Device>, std::string& n) { check_device_table(h, n); }},
      {"abi/allocate", [](PluginHarness& h, std::optional<Device>, std::string& n) { check_allocate(h, n); }},
      {"abi/copy", [](PluginHarness& h, std::optional<Device>, std::string& n) { check_copy(h, n); }},
      {"abi/streams_and_events",
       [](PluginHarness& h, std::optional<Device>, std::string& n) { check_streams_and_events(h, n); }},
      {"abi/kernel_error", [](PluginHarness& h, std::optional<Device> d, std::string& n) { check_kernel_error(h, d, n); }},
      {"abi/thread_safe_kernels",
       [](PluginHarness&, std::optional<Device> d, std::string& n) { check_thread_safe_kernels(d, n); }},
      {"abi/load_unload_reload", [](PluginHarness& h, std::optional<Device>, std::string& n) { check_reload(h, n); }},
  };
  return checks;
}

}  // namespace

std::vector<std::string> abi_check_ids() {
  std::vector<std::string> ids;
  for (const AbiCheck& check : abi_checks()) ids.emplace_back(check.id);
  return ids;
}

std::vector<CheckResult> run_abi_suite(const std::string& plugin_path, std::optional<Device> device,
                                       const Filter& filter) {
  std::vector<CheckResult> results;
  std::unique_ptr<PluginHarness> harness;
  std::string load_error;
  try {
    harness = std::make_unique<PluginHarness>(plugin_path);
  } catch (const std::exception& e) {
    load_error = e.what();
  }
  for (const AbiCheck& check : abi_checks()) {
    if (!filter.matches(check.id)) continue;
    results.push_back(run_check(check.id, [&](std::string& note) {
      if (harness == nullptr) fail_check("cannot load a private copy of the plugin: " + load_error);
      check.fn(*harness, device, note);
    }));
  }
  return results;
}

}  // namespace ember::conformance
