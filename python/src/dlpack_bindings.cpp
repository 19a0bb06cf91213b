// DLPack both ways, legacy and versioned (1.0) capsules: Tensor.__dlpack__
// lends the tensor's memory, and from_dlpack wraps a producer's memory in a
// Storage whose release calls the producer's deleter. Neither copies. A
// read-only producer's memory becomes a read-only Storage, and a read-only
// tensor is only lent with the read-only flag of a versioned capsule.
#include <dlpack/dlpack.h>
#include <pybind11/stl.h>

#include <string>
#include <type_traits>
#include <utility>

#include "bindings.h"
#include "casters.h"
#include "core/dlpack.h"
#include "core/shape.h"
#include "ember/error.h"
#include "ember/ops.h"
#include "op_helpers.h"

namespace py = pybind11;

namespace ember::python {
namespace {

// DLPack 1.0's versioned tensor, which Debian 12's DLPack 0.6 header
// predates; the layout is the 1.0 ABI's. NumPy only makes writable arrays
// from versioned capsules (a legacy one cannot say it is writable).
struct DLPackVersion {
  uint32_t major;
  uint32_t minor;
};
struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
};
// DLPack 1.0's DLPACK_FLAG_BITMASK_READ_ONLY: the consumer must not write.
constexpr uint64_t kDLPackReadOnly = uint64_t{1} << 0;

// Capsule names of each form, unconsumed and consumed.
template <typename Managed>
struct CapsuleNames;
template <>
struct CapsuleNames<DLManagedTensor> {
  static constexpr const char* fresh = "dltensor";
  static constexpr const char* used = "used_dltensor";
};
template <>
struct CapsuleNames<DLManagedTensorVersioned> {
  static constexpr const char* fresh = "dltensor_versioned";
  static constexpr const char* used = "used_dltensor_versioned";
};

// kDLOneAPI, which DLPack 0.6 (Debian 12's header) predates.
constexpr auto kDLOneApiDevice = static_cast<DLDeviceType>(14);

// DLPack device codes of the device types Ember knows by name.
const std::pair<DLDeviceType, const char*> kDeviceTypes[] = {
    {kDLCPU, "cpu"}, {kDLCUDA, "cuda"}, {kDLROCM, "rocm"}, {kDLOneApiDevice, "xpu"}};

DLDevice to_dl_device(const Device& device) {
  const std::string type = device.type_name();
  for (const auto& [code, name] : kDeviceTypes) {
    if (type == name) return {code, device.index};
  }
  throw_error(ErrorKind::Runtime, "__dlpack__: " + type + " tensors have no DLPack device type" +
                                      (device.is_meta() ? " (meta tensors hold no data)" : ""));
}

Device from_dl_device(DLDevice device) {
  for (const auto& [code, name] : kDeviceTypes) {
    if (device.device_type == code) return Device(std::string(name) + ":" + std::to_string(device.device_id));
  }
  throw_error(ErrorKind::Runtime, "from_dlpack: DLPack device type " + std::to_string(device.device_type) +
                                      " has no Ember device type");
}

// What a capsule we made owns: a handle keeping the tensor alive, and the
// shape and strides its DLTensor points at.
template <typename Managed>
struct ExportedTensor {
  Tensor tensor;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  Managed managed{};
};

template <typename Managed>
void delete_exported(Managed* managed) {
  delete static_cast<ExportedTensor<Managed>*>(managed->manager_ctx);
}

// A capsule nobody consumed still owns its tensor.
template <typename Managed>
void destroy_capsule(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, CapsuleNames<Managed>::fresh)) return;
  auto* managed = static_cast<Managed*>(PyCapsule_GetPointer(capsule, CapsuleNames<Managed>::fresh));
  if (managed != nullptr && managed->deleter != nullptr) managed->deleter(managed);
}

template <typename Managed>
py::capsule to_dlpack(const Tensor& t) {
  if (t.requires_grad()) {
    throw_error(ErrorKind::Runtime, "__dlpack__: cannot export a tensor that requires grad; use tensor.detach()");
  }
  const bool read_only = t.impl()->storage()->read_only();
  if constexpr (std::is_same_v<Managed, DLManagedTensor>) {
    if (read_only) {
      throw py::buffer_error(
          "__dlpack__: a read-only tensor cannot be exported as a legacy DLPack capsule, which "
          "cannot say it is read-only; ask for max_version=(1, 0) or pass copy=True");
    }
  }
  const DLDevice device = to_dl_device(t.device());
  auto* exported = new ExportedTensor<Managed>{t, t.sizes().vec(), t.strides().vec(), {}};
  DLTensor& dl = exported->managed.dl_tensor;
  dl.device = device;
  dl.data = t.data_ptr();
  dl.ndim = static_cast<int32_t>(t.dim());
  dl.dtype = to_dl_dtype(t.dtype());
  dl.shape = exported->shape.data();
  dl.strides = exported->strides.data();
  dl.byte_offset = 0;
  if constexpr (std::is_same_v<Managed, DLManagedTensorVersioned>) {
    exported->managed.version = {1, 0};
    exported->managed.flags = read_only ? kDLPackReadOnly : 0;
  }
  exported->managed.manager_ctx = exported;
  exported->managed.deleter = &delete_exported<Managed>;
  return py::reinterpret_steal<py::capsule>(
      PyCapsule_New(&exported->managed, CapsuleNames<Managed>::fresh, &destroy_capsule<Managed>));
}

template <typename Managed>
void release_managed(void* context, void*) noexcept {
  auto* managed = static_cast<Managed*>(context);
  if (managed->deleter != nullptr) managed->deleter(managed);
}

template <typename Managed>
Tensor wrap_capsule(const py::capsule& capsule) {
  auto* managed = static_cast<Managed*>(PyCapsule_GetPointer(capsule.ptr(), CapsuleNames<Managed>::fresh));
  if constexpr (std::is_same_v<Managed, DLManagedTensorVersioned>) {
    if (managed->version.major != 1) {
      throw py::buffer_error("from_dlpack: DLPack major version " + std::to_string(managed->version.major) +
                             " is not supported (Ember reads 1.x)");
    }
  }
  const DLTensor& dl = managed->dl_tensor;
  const DType dtype = from_dl_dtype(dl.dtype);
  const Device device = from_dl_device(dl.device);
  const std::vector<int64_t> sizes(dl.shape, dl.shape + dl.ndim);
  for (int32_t d = 0; d < dl.ndim; ++d) {
    if (sizes[d] < 0) {
      throw py::value_error("from_dlpack: negative size " + std::to_string(sizes[d]) + " at dim " + std::to_string(d));
    }
  }
  const DimVector strides =
      dl.strides != nullptr ? DimVector(IntArrayRef(dl.strides, sizes.size())) : contiguous_strides(sizes);
  for (int32_t d = 0; d < dl.ndim; ++d) {
    if (strides[d] < 0) {
      throw py::value_error("from_dlpack: negative strides are not supported (dim " + std::to_string(d) +
                            " has stride " + std::to_string(strides[d]) + "); pass a copy");
    }
  }
  // Checked, as every size product is (Note [Checked size arithmetic]).
  const auto nbytes = static_cast<size_t>(storage_nbytes(sizes, strides, 0, itemsize(dtype)));
  void* data = static_cast<char*>(dl.data) + dl.byte_offset;
  // From here the storage owns the producer's memory; the capsule is spent.
  PyCapsule_SetName(capsule.ptr(), CapsuleNames<Managed>::used);
  auto storage = std::make_shared<Storage>(data, nbytes, device, &release_managed<Managed>, managed);
  if constexpr (std::is_same_v<Managed, DLManagedTensorVersioned>) {
    if ((managed->flags & kDLPackReadOnly) != 0) storage->set_read_only();
  }
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), dtype, sizes, strides, 0));
}

Tensor from_dlpack_capsule(const py::capsule& capsule) {
  if (PyCapsule_IsValid(capsule.ptr(), CapsuleNames<DLManagedTensorVersioned>::fresh)) {
    return wrap_capsule<DLManagedTensorVersioned>(capsule);
  }
  if (PyCapsule_IsValid(capsule.ptr(), CapsuleNames<DLManagedTensor>::fresh)) {
    return wrap_capsule<DLManagedTensor>(capsule);
  }
  throw py::value_error("from_dlpack: expected an unconsumed DLPack capsule ('dltensor' or 'dltensor_versioned'), "
                        "got '" + std::string(capsule.name() ? capsule.name() : "") + "'");
}

}  // namespace

void bind_dlpack(py::module_& m) {
  m.def("_from_dlpack_capsule", &from_dlpack_capsule, py::arg("capsule"));
  TensorClass cls = tensor_class(m);
  // The DLPack protocol's keywords: a consumer that names max_version >= 1
  // gets a versioned capsule, others the legacy form; memory is shared
  // unless copy=True. Ember's devices need no stream synchronization here.
  cls.def(
      "__dlpack__",
      [](const Tensor& t, const py::object&, const py::object& max_version, const py::object& dl_device,
         std::optional<bool> copy) {
        if (!dl_device.is_none() &&
            py::cast<int>(py::tuple(dl_device)[0]) != static_cast<int>(to_dl_device(t.device()).device_type)) {
          throw py::buffer_error("__dlpack__: cannot export a " + t.device().str() + " tensor to another device");
        }
        const Tensor source = copy.value_or(false) ? t.clone() : t;
        const bool versioned = !max_version.is_none() && py::cast<int>(py::tuple(max_version)[0]) >= 1;
        return versioned ? to_dlpack<DLManagedTensorVersioned>(source) : to_dlpack<DLManagedTensor>(source);
      },
      py::kw_only(), py::arg("stream") = py::none(), py::arg("max_version") = py::none(),
      py::arg("dl_device") = py::none(), py::arg("copy") = py::none());
  cls.def("__dlpack_device__", [](const Tensor& t) {
    const DLDevice device = to_dl_device(t.device());
    return py::make_tuple(static_cast<int>(device.device_type), device.device_id);
  });
}

}  // namespace ember::python
