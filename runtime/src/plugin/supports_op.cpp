#include "plugin/supports_op.h"

#include <vector>

#include "ember/error.h"
#include "plugin/device_call.h"
#include "plugin/status.h"

namespace ember::plugin {

void check_supports_op(DeviceBackend& backend, Device device, const std::string& op_name, const Tensor* inputs,
                       int64_t num_inputs, const Tensor* outputs, int64_t num_outputs, const ember_attr* attrs,
                       int64_t num_attrs) {
  std::vector<ember_dtype> dtypes;
  dtypes.reserve(static_cast<size_t>(num_inputs + num_outputs));
  for (int64_t i = 0; i < num_inputs; ++i) dtypes.push_back(static_cast<ember_dtype>(inputs[i].dtype()));
  for (int64_t i = 0; i < num_outputs; ++i) dtypes.push_back(static_cast<ember_dtype>(outputs[i].dtype()));
  ember_op_query query{};
  query.struct_size = sizeof(query);
  query.op_name = op_name.c_str();
  query.dtypes = dtypes.data();
  query.num_dtypes = static_cast<int64_t>(dtypes.size());
  query.attrs = attrs;
  query.num_attrs = num_attrs;
  int32_t supported = 0;
  const std::string where = op_name + " on " + device.str() + " (plugin '" + backend.plugin_name + "')";
  throw_if_error(call_device(backend, kAlwaysSerialised, [&] { return backend.api->supports_op(&query, &supported); }),
                 "asking whether it supports " + where);
  if (supported != 0) return;
  std::string names;
  for (int64_t i = 0; i < num_inputs + num_outputs; ++i) {
    const DType dtype = i < num_inputs ? inputs[i].dtype() : outputs[i - num_inputs].dtype();
    names += (i == 0 ? "" : ", ") + std::string(dtype_name(dtype));
  }
  throw_error(ErrorKind::NotImplemented, op_name + ": plugin '" + backend.plugin_name + "' does not support dtypes (" +
                                             names + ") on device '" + device.type_name() +
                                             "' (its supports_op says no)");
}

}  // namespace ember::plugin
