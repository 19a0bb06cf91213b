"""ember.linalg.matrix_exp and householder_product against PyTorch: values
and gradients of single and batched matrices in float32 and float64, empty
inputs and the argument errors."""

import numpy
import pytest

import ember
from helpers import assert_close, check_with_gradients

RNG = numpy.random.default_rng(13)


@pytest.mark.parametrize("shape, scale, dtype", [((3, 3), 0.3, "float64"), ((2, 4, 4), 1.0, "float64"),
                                                 ((5, 5), 6.0, "float64"), ((3, 3), 1.0, "float32")])
def test_matrix_exp_matches_pytorch(torch, shape, scale, dtype):
    A = (scale * RNG.standard_normal(shape)).astype(dtype)  # noqa: N806
    tolerance = {"rtol": 1e-9, "atol": 1e-10} if dtype == "float64" else {"rtol": 1e-5, "atol": 1e-6}
    check_with_gradients(torch, ember.linalg.matrix_exp, torch.linalg.matrix_exp, [A], **tolerance)


@pytest.mark.parametrize("shape, reflectors", [((4, 4), 4), ((5, 3), 3), ((5, 3), 2), ((2, 4, 2), 2)])
def test_householder_product_matches_pytorch(torch, shape, reflectors):
    A = RNG.standard_normal(shape)  # noqa: N806
    tau = RNG.uniform(0.2, 1.8, shape[:-2] + (reflectors,))
    check_with_gradients(torch, ember.linalg.householder_product, torch.linalg.householder_product, [A, tau],
                         grad=(True, True), rtol=1e-9, atol=1e-10)


def test_top_level_and_tensor_spellings_match_pytorch(torch):
    A = (0.5 * RNG.standard_normal((3, 3))).astype("float64")  # noqa: N806
    H, tau = RNG.standard_normal((4, 3)), RNG.uniform(0.2, 1.8, (2,))  # noqa: N806
    check_with_gradients(torch, ember.matrix_exp, torch.matrix_exp, [A], rtol=1e-9, atol=1e-10)
    check_with_gradients(torch, lambda a: a.matrix_exp(), lambda a: a.matrix_exp(), [A], rtol=1e-9, atol=1e-10)
    check_with_gradients(torch, ember.orgqr, torch.orgqr, [H, tau], grad=(True, True), rtol=1e-9, atol=1e-10)
    check_with_gradients(torch, lambda h, t: h.orgqr(t), lambda h, t: h.orgqr(t), [H, tau], grad=(True, True),
                         rtol=1e-9, atol=1e-10)


def test_empty_inputs_match(torch):
    for shape in ((0, 2, 2), (0, 0)):
        assert_close(ember.linalg.matrix_exp(ember.ones(*shape)), torch.linalg.matrix_exp(torch.ones(*shape)))
    assert_close(ember.linalg.householder_product(ember.ones(3, 2), ember.ones(0)),
                 torch.linalg.householder_product(torch.ones(3, 2), torch.ones(0)))


def error(call):
    with pytest.raises(Exception) as caught:
        call()
    return type(caught.value), str(caught.value)


def test_argument_errors_match(torch):
    for lib in (ember, torch):
        assert error(lambda: lib.linalg.matrix_exp(lib.ones(2, 3))) == (
            RuntimeError, "linalg.matrix_exp: A must be batches of square matrices, but they are 2 by 3 matrices")
        assert error(lambda: lib.linalg.matrix_exp(lib.ones(3))) == (
            RuntimeError, "linalg.matrix_exp: The input tensor A must have at least 2 dimensions.")
    assert error(lambda: ember.linalg.matrix_exp(ember.ones(2, 2, dtype=ember.int64))) == (
        RuntimeError, "linalg.matrix_exp: Expected a floating point or complex tensor as input. Got int64")

    def householder_errors(lib):
        calls = [((3,), (1,)), ((2, 3), (1,)), ((3, 2), (3,)), ((3, 2), (2, 1)), ((2, 3, 2), (3, 1))]
        return [error(lambda: lib.linalg.householder_product(lib.ones(*a), lib.ones(*t))) for a, t in calls]

    assert householder_errors(ember) == householder_errors(torch)
    mixed = error(lambda: ember.linalg.householder_product(ember.ones(3, 2), ember.ones(1, dtype=ember.float64)))
    assert mixed == (RuntimeError, "torch.linalg.householder_product: tau dtype float64 does not match input dtype "
                                   "float32")
    assert error(lambda: ember.linalg.householder_product(ember.ones(3, 2, dtype=ember.int64),
                                                          ember.ones(1, dtype=ember.int64)))[0] is NotImplementedError
