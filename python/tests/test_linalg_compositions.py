"""linalg.lu and lu_unpack, and the torch.linalg functions composed in
ember._linalg_compositions, against PyTorch: values, gradients, errors."""

import numpy
import pytest

import ember
from helpers import assert_close, check_with_gradients

RNG = numpy.random.default_rng(7)


def matrices(*shape):
    return RNG.standard_normal(shape)


@pytest.mark.parametrize("shape", [(4, 4), (2, 5, 5), (5, 3), (3, 5)])
def test_lu_matches_pytorch_and_reassembles_the_input(torch, shape):
    a = matrices(*shape)
    P, L, U = ember.linalg.lu(ember.tensor(a))  # noqa: N806
    tP, tL, tU = torch.linalg.lu(torch.tensor(a))  # noqa: N806
    for ours, theirs in ((P, tP), (L, tL), (U, tU)):
        assert_close(ours, theirs, rtol=1e-10, atol=1e-12)
    assert_close(P @ L @ U, a, rtol=1e-10, atol=1e-12)
    LU, pivots = ember.linalg.lu_factor(ember.tensor(a))  # noqa: N806
    unpacked = ember.lu_unpack(LU, pivots, unpack_pivots=False)
    assert unpacked.P.numel() == 0 and unpacked.L.shape == L.shape


def test_lu_gradients_match_pytorch(torch):
    check_with_gradients(torch, lambda a: sum(t.sum() * (i + 1) for i, t in enumerate(ember.linalg.lu(a)[1:])),
                         lambda a: sum(t.sum() * (i + 1) for i, t in enumerate(torch.linalg.lu(a)[1:])),
                         [matrices(4, 4)], rtol=1e-8, atol=1e-10)


def test_cond_matches_pytorch(torch):
    a = matrices(3, 4, 4)
    for p in (None, 2, -2, 1, -1, float("inf"), "fro", "nuc"):
        assert_close(ember.linalg.cond(ember.tensor(a), p), torch.linalg.cond(torch.tensor(a), p), rtol=1e-9, atol=0)
    with pytest.raises(RuntimeError, match="square"):
        ember.linalg.cond(ember.tensor(matrices(3, 4)), 1)
    singular = [[1.0, 2.0], [2.0, 4.0]]
    assert ember.linalg.cond(ember.tensor(singular), 1).item() == torch.linalg.cond(torch.tensor(singular), 1).item()


def test_multi_dot_matches_pytorch_with_vectors_at_the_ends(torch):
    shapes = [(7,), (7, 3), (3, 40), (40, 2), (2,)]
    arrays = [RNG.standard_normal(s) for s in shapes]
    check_with_gradients(torch, lambda *t: ember.linalg.multi_dot(list(t)), lambda *t: torch.linalg.multi_dot(list(t)),
                         arrays, grad=(True,) * 5, rtol=1e-9, atol=1e-10)
    middle = arrays[1:4]
    assert_close(ember.linalg.multi_dot([ember.tensor(m) for m in middle]),
                 torch.linalg.multi_dot([torch.tensor(m) for m in middle]), rtol=1e-9, atol=1e-10)
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        ember.linalg.multi_dot([ember.ones(2, 3), ember.ones(2, 3)])


def test_vecdot_vander_and_the_aliases_match_pytorch(torch):
    x, y = matrices(3, 5), matrices(5)
    assert_close(ember.linalg.vecdot(ember.tensor(x), ember.tensor(y)), torch.linalg.vecdot(torch.tensor(x),
                                                                                             torch.tensor(y)))
    assert_close(ember.linalg.vander(ember.tensor(y)), torch.linalg.vander(torch.tensor(y)), rtol=1e-12, atol=0)
    assert_close(ember.linalg.vander(ember.tensor(x), N=3), torch.linalg.vander(torch.tensor(x), N=3), rtol=1e-12,
                 atol=0)
    with pytest.raises(RuntimeError, match="N must be greater than 1"):
        ember.linalg.vander(ember.tensor(y), N=1)
    ints = numpy.array([2, -3, 0])
    assert_close(ember.linalg.vander(ember.tensor(ints)), torch.linalg.vander(torch.tensor(ints)))
    a, b = matrices(4, 3), matrices(4, 3)
    assert_close(ember.linalg.cross(ember.tensor(a), ember.tensor(b)), torch.linalg.cross(torch.tensor(a),
                                                                                           torch.tensor(b)))
    sq = matrices(2, 3, 3)
    assert_close(ember.linalg.diagonal(ember.tensor(sq), offset=1), torch.linalg.diagonal(torch.tensor(sq), offset=1))
    assert_close(ember.linalg.matmul(ember.tensor(sq), ember.tensor(sq)), torch.linalg.matmul(torch.tensor(sq),
                                                                                               torch.tensor(sq)))
    assert_close(ember.linalg.matrix_power(ember.tensor(sq), 3), torch.linalg.matrix_power(torch.tensor(sq), 3),
                 rtol=1e-10, atol=1e-10)


def test_tensorinv_and_tensorsolve_match_pytorch(torch):
    a = matrices(4, 6, 8, 3)
    assert_close(ember.linalg.tensorinv(ember.tensor(a), ind=2), torch.linalg.tensorinv(torch.tensor(a), ind=2),
                 rtol=1e-8, atol=1e-10)
    b = matrices(2, 3, 6)
    system = matrices(2, 3, 6, 4, 9)
    assert_close(ember.linalg.tensorsolve(ember.tensor(system), ember.tensor(b)),
                 torch.linalg.tensorsolve(torch.tensor(system), torch.tensor(b)), rtol=1e-8, atol=1e-10)
    moved = matrices(4, 2, 3, 6, 9)
    assert_close(ember.linalg.tensorsolve(ember.tensor(moved), ember.tensor(b), dims=(0,)),
                 torch.linalg.tensorsolve(torch.tensor(moved), torch.tensor(b), dims=(0,)), rtol=1e-8, atol=1e-10)
    with pytest.raises(RuntimeError, match="prod"):
        ember.linalg.tensorinv(ember.tensor(matrices(4, 5)), ind=1)
