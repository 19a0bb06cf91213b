// ember._C._linalg: the factorization primitives behind ember.linalg, GIL
// released; each returns a tuple that ember.linalg names.
#include <pybind11/stl.h>

#include <string>

#include "bindings.h"
#include "casters.h"
#include "ember/linalg.h"

namespace py = pybind11;

namespace ember::python {

void bind_linalg(py::module_& parent) {
  py::module_ m = parent.def_submodule("_linalg", "ember.linalg's factorizations");
  const auto no_gil = py::call_guard<py::gil_scoped_release>();
  m.def(
      "cholesky_ex",
      [](const Tensor& A) {
        linalg::CholeskyResult r = linalg::cholesky_ex(A);
        return std::make_tuple(r.L, r.info);
      },
      py::arg("A"), no_gil);
  m.def(
      "lu_factor_ex",
      [](const Tensor& A) {
        linalg::LuFactorResult r = linalg::lu_factor_ex(A);
        return std::make_tuple(r.LU, r.pivots, r.info);
      },
      py::arg("A"), no_gil);
  m.def("solve_triangular", &linalg::solve_triangular, py::arg("A"), py::arg("B"), py::arg("upper"), py::arg("left"),
        py::arg("unitriangular"), no_gil);
  m.def(
      "qr",
      [](const Tensor& A, const std::string& mode) {
        linalg::QrResult r = linalg::qr(A, mode);
        return std::make_tuple(r.Q, r.R);
      },
      py::arg("A"), py::arg("mode"), no_gil);
  m.def(
      "eigh",
      [](const Tensor& A, const std::string& UPLO) {
        linalg::EighResult r = linalg::eigh(A, UPLO);
        return std::make_tuple(r.eigenvalues, r.eigenvectors);
      },
      py::arg("A"), py::arg("UPLO"), no_gil);
  m.def(
      "svd",
      [](const Tensor& A, bool full_matrices) {
        linalg::SvdResult r = linalg::svd(A, full_matrices);
        return std::make_tuple(r.U, r.S, r.Vh);
      },
      py::arg("A"), py::arg("full_matrices"), no_gil);
}

}  // namespace ember::python
