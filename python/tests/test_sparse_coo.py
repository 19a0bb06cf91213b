"""Sparse COO tensors against PyTorch 2.13: construction, coalescing,
to_dense and to_sparse, transposes, arithmetic, products with dense
matrices (sparse.mm, spmm, @ on either side), sums, softmax, gradients
to the values and the dense operand, and checked indices."""

import numpy
import pytest

import ember

from helpers import assert_close

INDICES = [[0, 1, 1, 2, 0], [2, 0, 2, 1, 2]]
VALUES = [3.0, 4.0, 5.0, -1.0, 0.5]
DENSE = numpy.arange(12, dtype=numpy.float32).reshape(3, 4) / 7


def _matrix(lib, **kwargs):
    return lib.sparse_coo_tensor(lib.tensor(INDICES), lib.tensor(VALUES), (3, 3), **kwargs)


def _each(lib):
    s = _matrix(lib)
    c = s.coalesce()
    dense = lib.tensor(DENSE)
    return [
        s.to_dense(), c.indices(), c.values(), s.t().to_dense(), (s * 2).to_dense(), (s + s).to_dense(),
        (s - c).to_dense(), s @ dense, lib.sparse.mm(s, dense), lib.spmm(s, dense), s @ lib.ones(3),
        lib.ones(2, 3) @ s, lib.sparse.sum(s), lib.sparse.sum(s, dim=1).to_dense(),
        lib.sparse.softmax(c, 1).to_dense(), lib.sparse.softmax(c, 0).to_dense(),
        lib.sparse.log_softmax(c, 1).coalesce().values(), lib.tensor(DENSE).to_sparse().to_dense(),
        lib.tensor([[0.0, 2.0], [0.0, 0.0]]).to_sparse().coalesce().indices(),
        lib.sparse_coo_tensor(lib.tensor([[0, 1]]), lib.ones(2, 3), (2, 3)).to_dense(),
        lib.sparse.addmm(lib.ones(3, 4), s, dense, beta=0.5, alpha=2.0),
    ]


def test_operations_match_pytorch(torch):
    for ours, theirs in zip(_each(ember), _each(torch)):
        assert_close(ours, theirs, rtol=1e-6)


def test_description_matches_pytorch(torch):
    ours, theirs = _matrix(ember), _matrix(torch)
    assert (ours.is_sparse, ours.sparse_dim(), ours.dense_dim(), ours._nnz(), tuple(ours.shape), ours.is_coalesced()) \
        == (theirs.is_sparse, theirs.sparse_dim(), theirs.dense_dim(), theirs._nnz(), tuple(theirs.shape),
            theirs.is_coalesced())
    assert repr(ours.coalesce()).replace("ember", "torch") == repr(theirs.coalesce())
    assert repr(ours.layout) == repr(theirs.layout) == "torch.sparse_coo"
    for lib in (ember, torch):
        with pytest.raises(RuntimeError, match="Cannot get indices on an uncoalesced tensor"):
            _matrix(lib).indices()


def test_gradients_reach_the_values_and_the_dense_operand(torch):
    grads = []
    for lib in (ember, torch):
        values = lib.tensor(VALUES, requires_grad=True)
        dense = lib.tensor(DENSE, requires_grad=True)
        sparse = lib.sparse_coo_tensor(lib.tensor(INDICES), values, (3, 3))
        (lib.sparse.mm(sparse, dense) * lib.tensor(DENSE)).sum().backward()
        grads.append((values.grad, dense.grad))
    for ours, theirs in zip(*grads):
        assert_close(ours, theirs, rtol=1e-6)


def test_bad_indices_and_shapes_are_errors():
    with pytest.raises(RuntimeError, match="index 5 is out of bounds for dimension 0 with size 3"):
        ember.sparse_coo_tensor(ember.tensor([[0, 5]]), ember.ones(2), (3,))
    with pytest.raises(RuntimeError, match="values must have nnz=2 rows"):
        ember.sparse_coo_tensor(ember.tensor([[0, 1]]), ember.ones(3), (3,))
    with pytest.raises(RuntimeError, match="mat1 and mat2 shapes cannot be multiplied \\(3x3 and \\[4, 2\\]\\)"):
        ember.sparse.mm(_matrix(ember), ember.ones(4, 2))
    assert ember.sparse_coo_tensor(ember.tensor([[0, 3]]), ember.ones(2)).shape == (4,)
