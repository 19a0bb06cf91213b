// ember.distributed's stores (runtime/src/distributed): torch.distributed's
// Store, HashStore, FileStore, PrefixStore and TCPStore, with its
// constructors' arguments. Values go in as str or bytes and come back as
// bytes; every call runs without the GIL, since any of them may wait on a
// peer or the network.
#include <pybind11/chrono.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <string>

#include "bindings.h"
#include "distributed/deadline.h"
#include "distributed/file_store.h"
#include "distributed/hash_store.h"
#include "distributed/prefix_store.h"
#include "distributed/tcp_store.h"
#include "ember/error.h"

namespace py = pybind11;

namespace ember::python {
namespace {

using distributed::Bytes;
using distributed::Milliseconds;
using distributed::Store;

Bytes value_argument(const char* method, const char* name, const py::handle& value) {
  char* data = nullptr;
  Py_ssize_t size = 0;
  if (PyBytes_Check(value.ptr())) {
    PyBytes_AsStringAndSize(value.ptr(), &data, &size);
  } else if (PyByteArray_Check(value.ptr())) {
    data = PyByteArray_AsString(value.ptr());
    size = PyByteArray_Size(value.ptr());
  } else if (PyUnicode_Check(value.ptr())) {
    const char* text = PyUnicode_AsUTF8AndSize(value.ptr(), &size);
    if (text == nullptr) throw py::error_already_set();
    return Bytes(text, text + size);
  } else {
    throw py::type_error(std::string("Store.") + method + ": " + name + " must be str or bytes, got " +
                         Py_TYPE(value.ptr())->tp_name);
  }
  return Bytes(data, data + size);
}

// pybind11's chrono caster overflows on timedeltas past 292 years (such as
// timedelta.max): convert through total_seconds and cap at the longest wait.
Milliseconds timeout_argument(const char* method, const py::handle& timeout) {
  static const py::handle timedelta = py::object(py::module_::import("datetime").attr("timedelta")).release();
  if (!py::isinstance(timeout, timedelta)) {
    throw py::type_error(std::string(method) + ": timeout must be a datetime.timedelta, got " +
                         Py_TYPE(timeout.ptr())->tp_name);
  }
  const double milliseconds = timeout.attr("total_seconds")().cast<double>() * 1000.0;
  const auto longest = static_cast<double>(distributed::kLongestWait.count());
  return Milliseconds(static_cast<std::int64_t>(std::clamp(milliseconds, 0.0, longest)));
}

py::bytes to_python(const Bytes& value) { return py::bytes(reinterpret_cast<const char*>(value.data()), value.size()); }

// Runs `call` on the store without the GIL.
template <typename F>
auto released(F&& call) {
  py::gil_scoped_release release;
  return call();
}

void bind_store_methods(py::class_<Store, std::shared_ptr<Store>>& store) {
  store
      .def(
          "set",
          [](Store& self, const std::string& key, const py::object& value) {
            const Bytes bytes = value_argument("set", "value", value);
            released([&] {
              self.set(key, bytes);
              return 0;
            });
          },
          py::arg("key"), py::arg("value"), "Stores `value` (str or bytes) at `key`.")
      .def(
          "get", [](Store& self, const std::string& key) { return to_python(released([&] { return self.get(key); })); },
          py::arg("key"), "Waits up to the store's timeout for `key`, then returns its value as bytes.")
      .def(
          "add",
          [](Store& self, const std::string& key, std::int64_t amount) {
            return released([&] { return self.add(key, amount); });
          },
          py::arg("key"), py::arg("amount"), "Adds `amount` to the integer at `key` (0 when absent); returns the sum.")
      .def(
          "compare_set",
          [](Store& self, const std::string& key, const py::object& expected, const py::object& desired) {
            const Bytes expected_bytes = value_argument("compare_set", "expected_value", expected);
            const Bytes desired_bytes = value_argument("compare_set", "desired_value", desired);
            return to_python(released([&] { return self.compare_set(key, expected_bytes, desired_bytes); }));
          },
          py::arg("key"), py::arg("expected_value"), py::arg("desired_value"),
          "Writes `desired_value` when `key` holds `expected_value` (or is absent and `expected_value` is empty); "
          "returns the value now stored.")
      .def(
          "check",
          [](Store& self, const std::vector<std::string>& keys) { return released([&] { return self.check(keys); }); },
          py::arg("keys"), "Whether every key exists now.")
      .def(
          "wait",
          [](Store& self, const std::vector<std::string>& keys) {
            released([&] {
              self.wait(keys);
              return 0;
            });
          },
          py::arg("keys"), "Waits up to the store's timeout until every key exists.")
      .def(
          "wait",
          [](Store& self, const std::vector<std::string>& keys, const py::object& timeout) {
            const Milliseconds waited = timeout_argument("Store.wait", timeout);
            released([&] {
              self.wait(keys, waited);
              return 0;
            });
          },
          py::arg("keys"), py::arg("timeout"), "Waits up to `timeout` until every key exists.")
      .def(
          "delete_key",
          [](Store& self, const std::string& key) { return released([&] { return self.delete_key(key); }); },
          py::arg("key"), "Removes `key`; returns whether it existed.")
      .def(
          "num_keys", [](Store& self) { return released([&] { return self.num_keys(); }); },
          "The number of keys the store holds.")
      .def(
          "set_timeout",
          [](Store& self, const py::object& timeout) {
            self.set_timeout(timeout_argument("Store.set_timeout", timeout));
          },
          py::arg("timeout"), "Sets the timeout of get and wait.")
      .def_property_readonly("timeout", &Store::timeout, "The timeout of get and wait, as a datetime.timedelta.");
}

}  // namespace

void bind_distributed_stores(py::module_& m) {
  py::module_ d = m.def_submodule("_distributed", "ember.distributed's stores; use ember.distributed.");
  py::class_<Store, std::shared_ptr<Store>> store(d, "Store", "The key-value store processes rendezvous through.");
  bind_store_methods(store);

  py::class_<distributed::HashStore, Store, std::shared_ptr<distributed::HashStore>>(
      d, "HashStore", "A store in this process, shared by its threads.")
      .def(py::init<>());

  py::class_<distributed::FileStore, Store, std::shared_ptr<distributed::FileStore>>(
      d, "FileStore", "A store in a file that processes open by path; the last of world_size users removes it.")
      .def(py::init([](const std::string& file_name, int world_size) {
             return released([&] { return std::make_shared<distributed::FileStore>(file_name, world_size); });
           }),
           py::arg("file_name"), py::arg("world_size") = -1)
      .def_property_readonly("path", &distributed::FileStore::path);

  py::class_<distributed::PrefixStore, Store, std::shared_ptr<distributed::PrefixStore>>(
      d, "PrefixStore", "A view of another store with every key under '<prefix>/'.")
      .def(py::init<std::string, distributed::StorePtr>(), py::arg("prefix"), py::arg("store"))
      .def_property_readonly("underlying_store", &distributed::PrefixStore::underlying_store);

  py::class_<distributed::TCPStore, Store, std::shared_ptr<distributed::TCPStore>>(
      d, "TCPStore", "A store served over TCP by the master process and reached by every other.")
      .def(py::init([](const std::string& host_name, int port, std::optional<int> world_size, bool is_master,
                       const py::object& timeout, bool wait_for_workers, bool multi_tenant,
                       const std::optional<int>& master_listen_fd, bool /*use_libuv*/) {
             if (port < 0 || port > 65535) {
               throw py::value_error("TCPStore: port must be in [0, 65535], got " + std::to_string(port));
             }
             if (multi_tenant || master_listen_fd) {
               throw Error(ErrorKind::NotImplemented,
                           "TCPStore: multi_tenant and master_listen_fd are not supported; each master listens "
                           "on a port of its own");
             }
             distributed::TCPStoreOptions options{host_name, static_cast<std::uint16_t>(port),      world_size,
                                                  is_master, timeout_argument("TCPStore", timeout), wait_for_workers};
             return released([&] { return std::make_shared<distributed::TCPStore>(std::move(options)); });
           }),
           py::arg("host_name"), py::arg("port"), py::arg("world_size") = py::none(), py::arg("is_master") = false,
           py::arg("timeout") =
               py::module_::import("datetime")
                   .attr("timedelta")(py::arg("milliseconds") = distributed::kDefaultStoreTimeout.count()),
           py::arg("wait_for_workers") = true, py::arg("multi_tenant") = false,
           py::arg("master_listen_fd") = py::none(), py::arg("use_libuv") = true)
      .def_property_readonly("host", &distributed::TCPStore::host)
      .def_property_readonly("port", &distributed::TCPStore::port);
}

}  // namespace ember::python
