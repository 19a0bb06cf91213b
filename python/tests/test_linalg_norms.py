"""ember.linalg's norms against torch.linalg's: vector norms of every order,
the matrix norms (those of singular values on the CPU), linalg.norm's choice between
them, gradients, and errors."""

import math

import numpy
import pytest

import ember
from ember.autograd import gradcheck
from helpers import assert_close

RNG = numpy.random.default_rng(0)
ORDERS = [0, 1, 2, 3, 0.5, math.inf, -math.inf, -1]


def pair(torch, array, device):
    return ember.tensor(array, device=device), torch.tensor(array)


@pytest.mark.parametrize("ord", ORDERS)
def test_vector_norm_matches_pytorch(torch, device, ord):
    x, tx = pair(torch, RNG.standard_normal((3, 4)).astype("float32"), device)
    assert_close(ember.linalg.vector_norm(x, ord), torch.linalg.vector_norm(tx, ord), rtol=1e-5)
    for dim in (1, (0, 1), -2):
        assert_close(ember.linalg.vector_norm(x.t(), ord, dim, keepdim=True),
                     torch.linalg.vector_norm(tx.t(), ord, dim, keepdim=True), rtol=1e-5)
    assert_close(ember.linalg.vector_norm(x, ord, dtype=ember.float64),
                 torch.linalg.vector_norm(tx, ord, dtype=torch.float64), rtol=1e-5)


@pytest.mark.parametrize("ord", ["fro", 1, -1, math.inf, -math.inf])
def test_matrix_norm_matches_pytorch(torch, device, ord):
    a, ta = pair(torch, RNG.standard_normal((2, 3, 4)), device)
    assert_close(ember.linalg.matrix_norm(a, ord), torch.linalg.matrix_norm(ta, ord))
    assert_close(ember.linalg.matrix_norm(a, ord, dim=(0, 2), keepdim=True),
                 torch.linalg.matrix_norm(ta, ord, dim=(0, 2), keepdim=True))
    assert_close(ember.linalg.norm(a[0], ord), torch.linalg.norm(ta[0], ord))
    leaf = ember.tensor(RNG.standard_normal((3, 4)), device=device).requires_grad_()
    assert gradcheck(lambda m: ember.linalg.matrix_norm(m, ord), (leaf,))


def test_norm_chooses_like_pytorch(torch, device):
    a, ta = pair(torch, RNG.standard_normal((2, 3, 4)), device)
    assert_close(ember.linalg.norm(a), torch.linalg.norm(ta))
    assert_close(ember.linalg.norm(a, keepdim=True), torch.linalg.norm(ta, keepdim=True))
    assert_close(ember.linalg.norm(a, 3, dim=2), torch.linalg.norm(ta, 3, dim=2))
    assert_close(ember.linalg.norm(a, dim=(1, 2)), torch.linalg.norm(ta, dim=(1, 2)))
    assert_close(ember.linalg.norm(a[0, 0], 1), torch.linalg.norm(ta[0, 0], 1))
    assert_close(ember.linalg.vector_norm(ember.zeros(0, device=device)), torch.linalg.vector_norm(torch.zeros(0)))
    leaf = ember.tensor(RNG.standard_normal((2, 3)), device=device).requires_grad_()
    assert gradcheck(lambda v: ember.linalg.vector_norm(v, 3, dim=1), (leaf,))


@pytest.mark.parametrize("call", [
    "L.vector_norm(T.tensor([1, 2]))",
    "L.vector_norm(T.zeros(0), float('inf'))",
    "L.matrix_norm(T.ones(3))",
    "L.matrix_norm(T.ones(3, 3), 'foo')",
    "L.matrix_norm(T.ones(3, 3), 3)",
    "L.norm(T.ones(3, 3, 3), 'fro')",
    "L.norm(T.ones(3, 3, 3), 2)",
])
def test_bad_arguments_are_runtime_errors(torch, call):
    for library in (torch, ember):
        with pytest.raises(RuntimeError):
            eval(call, {"T": library, "L": library.linalg})  # noqa: S307 - fixed test data


@pytest.mark.parametrize("ord", [2, -2, "nuc"])
def test_singular_value_norms_match_pytorch(torch, ord):
    # The CPU plugin's svd; other devices' coverage is the conformance kit's.
    x, tx = pair(torch, RNG.standard_normal((2, 3, 4)), "cpu")
    assert_close(ember.linalg.matrix_norm(x, ord), torch.linalg.matrix_norm(tx, ord))
    assert_close(ember.linalg.matrix_norm(x, ord, dim=(0, 2), keepdim=True),
                 torch.linalg.matrix_norm(tx, ord, dim=(0, 2), keepdim=True))
