"""ember.linalg's factorizations and solvers against torch.linalg (the
oracle) and NumPy: values, batched and empty shapes, float32 and float64,
LinAlgError for singular and non-positive-definite input, argument errors,
and gradients (gradcheck in float64, and torch's gradients)."""

import numpy
import pytest

import ember
from ember.autograd import gradcheck
from helpers import assert_close

L = ember.linalg


def rng(seed=0):
    return numpy.random.default_rng(seed)


def general(shape, seed=0, dtype="float64"):
    """Well-conditioned square matrices: N(0, 1) plus n on the diagonal."""
    a = rng(seed).standard_normal(shape)
    return (a + shape[-1] * numpy.eye(shape[-1])).astype(dtype)


def positive_definite(shape, seed=0, dtype="float64"):
    a = rng(seed).standard_normal(shape)
    return (a @ numpy.swapaxes(a, -1, -2) + shape[-1] * numpy.eye(shape[-1])).astype(dtype)


def symmetric(shape, seed=0):
    a = rng(seed).standard_normal(shape)
    return a + numpy.swapaxes(a, -1, -2)


def tolerance(dtype):
    return {"rtol": 1e-4, "atol": 1e-4} if dtype == "float32" else {"rtol": 1e-9, "atol": 1e-10}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3), (0, 3, 3), (3, 0, 0)])
def test_solvers_match_pytorch(torch, dtype, shape):
    a = general(shape, 1, dtype)
    b = rng(2).standard_normal(shape[:-1] + (2,)).astype(dtype)
    ea, ta = ember.tensor(a), torch.tensor(a)
    eb, tb = ember.tensor(b), torch.tensor(b)
    tol = tolerance(dtype)
    assert_close(L.solve(ea, eb), torch.linalg.solve(ta, tb), **tol)
    assert_close(L.inv(ea), torch.linalg.inv(ta), **tol)
    assert_close(ember.inverse(ea), torch.inverse(ta), **tol)
    assert_close(L.det(ea), torch.linalg.det(ta), **tol)
    assert_close(ea.det(), ta.det(), **tol)
    sign, logabsdet = L.slogdet(ea)
    expected = torch.linalg.slogdet(ta)
    assert_close(sign, expected.sign, **tol)
    assert_close(logabsdet, expected.logabsdet, **tol)
    lu, pivots = L.lu_factor(ea)
    expected_lu, expected_pivots = torch.linalg.lu_factor(ta)
    assert_close(lu, expected_lu, **tol)
    assert numpy.array_equal(pivots.numpy(), expected_pivots.numpy())
    assert_close(L.lu_solve(lu, pivots, eb), torch.linalg.lu_solve(expected_lu, expected_pivots, tb), **tol)


def test_solve_takes_vectors_and_right_hand_sides(torch):
    a = general((2, 3, 3), 3)
    b = rng(4).standard_normal((2, 3))
    assert_close(L.solve(ember.tensor(a), ember.tensor(b)), torch.linalg.solve(torch.tensor(a), torch.tensor(b)))
    c = rng(5).standard_normal((2, 4, 3))
    assert_close(L.solve(ember.tensor(a), ember.tensor(c), left=False),
                 torch.linalg.solve(torch.tensor(a), torch.tensor(c), left=False))
    # One matrix, a batch of right-hand sides: batch dims broadcast.
    d = rng(6).standard_normal((5, 3, 2))
    assert_close(L.solve(ember.tensor(a[0]), ember.tensor(d)), numpy.linalg.solve(a[0], d))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_triangular_solves_match_pytorch(torch, dtype):
    a = general((2, 4, 4), 7, dtype)
    b = rng(8).standard_normal((2, 4, 3)).astype(dtype)
    for upper in (True, False):
        for unitriangular in (True, False):
            expected = torch.linalg.solve_triangular(torch.tensor(a), torch.tensor(b), upper=upper,
                                                     unitriangular=unitriangular)
            assert_close(L.solve_triangular(ember.tensor(a), ember.tensor(b), upper=upper,
                                            unitriangular=unitriangular), expected, **tolerance(dtype))
    right = rng(9).standard_normal((2, 3, 4)).astype(dtype)
    assert_close(L.solve_triangular(ember.tensor(a), ember.tensor(right), upper=True, left=False),
                 torch.linalg.solve_triangular(torch.tensor(a), torch.tensor(right), upper=True, left=False),
                 **tolerance(dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cholesky_matches_pytorch(torch, dtype):
    a = positive_definite((3, 4, 4), 10, dtype)
    tol = tolerance(dtype)
    assert_close(L.cholesky(ember.tensor(a)), torch.linalg.cholesky(torch.tensor(a)), **tol)
    assert_close(L.cholesky(ember.tensor(a), upper=True), torch.linalg.cholesky(torch.tensor(a), upper=True), **tol)
    result = L.cholesky_ex(ember.tensor(a))
    assert result.info.dtype == ember.int32 and not result.info.any()
    # Only the lower triangle is read.
    assert_close(L.cholesky(ember.tensor(numpy.tril(a))), torch.linalg.cholesky(torch.tensor(a)), **tol)


def test_factorizations_reconstruct_their_input(torch):
    for shape in [(5, 3), (3, 5), (2, 4, 4)]:
        a = rng(11).standard_normal(shape)
        ea = ember.tensor(a)
        for mode in ("reduced", "complete"):
            q, r = L.qr(ea, mode)
            expected = torch.linalg.qr(torch.tensor(a), mode)
            assert q.shape == expected.Q.shape and r.shape == expected.R.shape
            assert_close(q @ r, a)
            assert_close(q.mT @ q, numpy.broadcast_to(numpy.eye(q.shape[-1]), q.mT.shape[:-1] + (q.shape[-1],)))
            assert numpy.allclose(numpy.tril(r.numpy(), -1), 0)
        assert_close(L.qr(ea, "r").R.abs(), torch.linalg.qr(torch.tensor(a), "r").R.abs())
        u, s, vh = L.svd(ea, full_matrices=False)
        assert_close(s, torch.linalg.svdvals(torch.tensor(a)))
        assert_close((u * s.unsqueeze(-2)) @ vh, a)
        full = L.svd(ea)
        assert full.U.shape == (*shape[:-2], shape[-2], shape[-2]) and full.Vh.shape[-1] == shape[-1]
        assert_close(L.svdvals(ea), numpy.linalg.svd(a, compute_uv=False))
    h = symmetric((2, 4, 4), 12)
    values, vectors = L.eigh(ember.tensor(h))
    assert_close(values, numpy.linalg.eigvalsh(h))
    assert_close((vectors * values.unsqueeze(-2)) @ vectors.mT, h)
    # UPLO picks the triangle that is read.
    assert_close(L.eigvalsh(ember.tensor(numpy.triu(h)), UPLO="U"), numpy.linalg.eigvalsh(h))


def test_results_are_named_tuples_with_pytorchs_fields(torch):
    a = ember.tensor(positive_definite((3, 3)))
    for ours, theirs in [(L.qr(a), torch.linalg.qr(torch.eye(3))), (L.eigh(a), torch.linalg.eigh(torch.eye(3))),
                         (L.svd(a), torch.linalg.svd(torch.eye(3))), (L.slogdet(a), torch.linalg.slogdet(torch.eye(3))),
                         (L.lstsq(a, a), torch.linalg.lstsq(torch.eye(3), torch.eye(3))),
                         (L.lu_factor(a), torch.linalg.lu_factor(torch.eye(3))),
                         (L.cholesky_ex(a), torch.linalg.cholesky_ex(torch.eye(3)))]:
        assert len(ours) == len(theirs) and type(ours).__name__ == type(theirs).__name__
        for position, field in enumerate(ours._fields):
            assert getattr(theirs, field) is theirs[position]
            assert getattr(ours, field) is ours[position]


def test_least_squares_rank_and_pseudo_inverse_match_pytorch(torch):
    a = rng(13).standard_normal((2, 6, 3))
    b = rng(14).standard_normal((2, 6, 2))
    ours, theirs = L.lstsq(ember.tensor(a), ember.tensor(b)), torch.linalg.lstsq(torch.tensor(a), torch.tensor(b))
    assert_close(ours.solution, theirs.solution)
    assert numpy.array_equal(ours.rank.numpy(), theirs.rank.numpy())
    gelsd = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver="gelsd")
    ours = L.lstsq(ember.tensor(a), ember.tensor(b), driver="gelsd")
    assert_close(ours.residuals, gelsd.residuals)
    assert_close(ours.singular_values, gelsd.singular_values)
    # Rank-deficient: the minimum-norm solution, as NumPy's.
    deficient = numpy.concatenate([a[0], a[0][:, :1]], axis=1)
    assert_close(L.lstsq(ember.tensor(deficient), ember.tensor(b[0])).solution,
                 numpy.linalg.lstsq(deficient, b[0], rcond=None)[0])
    assert int(L.matrix_rank(ember.tensor(deficient))) == 3
    assert_close(L.pinv(ember.tensor(deficient)), torch.linalg.pinv(torch.tensor(deficient)))


@pytest.mark.parametrize("call, message", [
    ("L.inv(T.zeros(3, 3))", "linalg.inv: The diagonal element 1 is zero, the inversion could not be completed "
                             "because the input matrix is singular."),
    ("L.inv(T.stack([T.eye(3), T.tensor([[1., 2., 3.], [2., 4., 6.], [0., 0., 1.]])]))",
     "linalg.inv: (Batch element 1): The diagonal element 2 is zero"),
    ("L.solve(T.ones(2, 2), T.ones(2))", "linalg.solve: The solver failed because the input matrix is singular."),
    ("L.cholesky(T.diag(T.tensor([1., -1., 1.])))",
     "linalg.cholesky: The factorization could not be completed because the input is not positive-definite (the "
     "leading minor of order 2 is not positive-definite)."),
    ("L.cholesky(T.stack([T.eye(2), -T.eye(2)]))", "linalg.cholesky: (Batch element 1): "),
])
def test_singular_and_indefinite_inputs_raise_linalg_error(torch, call, message):
    for library in (torch, ember):
        with pytest.raises(library.linalg.LinAlgError) as raised:
            eval(call, {"T": library, "L": library.linalg})  # noqa: S307 - fixed test data
        assert message in str(raised.value)
        assert isinstance(raised.value, RuntimeError)


@pytest.mark.parametrize("call", [
    "L.cholesky(T.ones(2, 3))",
    "L.cholesky(T.ones(3))",
    "L.cholesky(T.ones(2, 2, dtype=T.int64))",
    "L.solve(T.eye(3), T.ones(4))",
    "L.solve(T.eye(3), T.ones(3, dtype=T.float64))",
    "L.inv(T.ones(2, 3))",
    "L.det(T.ones(2, 3))",
    "L.eigh(T.ones(2, 3))",
    "L.eigh(T.eye(2), UPLO='X')",
    "L.qr(T.eye(2), mode='x')",
    "L.svd(T.ones(3))",
    "L.solve_triangular(T.eye(2), T.ones(3, 1), upper=True)",
    "L.lstsq(T.ones(3, 2), T.ones(4, 1))",
])
def test_bad_arguments_raise_what_pytorch_raises(torch, call):
    for library in (torch, ember):
        with pytest.raises(RuntimeError) as raised:
            eval(call, {"T": library, "L": library.linalg})  # noqa: S307 - fixed test data
        assert not isinstance(raised.value, library.linalg.LinAlgError), call
    with pytest.raises(RuntimeError, match="must be batches of square matrices, but they are 2 by 3"):
        L.cholesky(ember.ones(2, 3))


def test_low_precision_is_not_implemented():
    with pytest.raises(NotImplementedError, match="linalg.cholesky: not implemented for dtype float16"):
        L.cholesky(ember.eye(2).half())


def test_inputs_are_left_unchanged_and_may_be_strided():
    a = ember.tensor(general((4, 4), 15))
    before = a.clone()
    transposed = a.mT
    assert_close(L.inv(transposed), numpy.linalg.inv(before.numpy().T))
    assert_close(a, before)


# Gradients: gradcheck (finite differences, float64), and torch's numbers.
def leaf(array):
    return ember.tensor(array).requires_grad_()


GRADIENT_CASES = {
    "solve": (lambda a: L.solve(a, ember.tensor(rng(20).standard_normal((3, 2)))), lambda: general((3, 3), 21)),
    "inv": (L.inv, lambda: general((2, 3, 3), 22)),
    "det": (L.det, lambda: general((3, 3), 23)),
    "slogdet": (lambda a: L.slogdet(a).logabsdet, lambda: general((2, 3, 3), 24)),
    "cholesky": (lambda a: L.cholesky(a + a.mT), lambda: positive_definite((3, 3), 25) / 2),
    "qr": (lambda a: L.qr(a).Q * L.qr(a).Q + L.qr(a).R.sum(), lambda: rng(26).standard_normal((4, 3))),
    "eigh": (lambda a: L.eigh(a + a.mT).eigenvalues.sum() + L.eigh(a + a.mT).eigenvectors ** 2,
             lambda: symmetric((3, 3), 27)),
    "svd": (lambda a: L.svd(a, False).S.sum() + (L.svd(a, False).U ** 2).sum() + L.svd(a, False).Vh ** 2,
            lambda: rng(28).standard_normal((4, 3))),
    "lstsq": (lambda a: L.lstsq(a, ember.tensor(rng(29).standard_normal((4, 2)))).solution,
              lambda: rng(30).standard_normal((4, 3))),
    "solve_triangular": (lambda a: L.solve_triangular(a, ember.tensor(rng(31).standard_normal((3, 2))), upper=False),
                         lambda: numpy.tril(general((3, 3), 32))),
}


@pytest.mark.parametrize("name", sorted(GRADIENT_CASES))
def test_gradients_pass_gradcheck(name):
    fn, make = GRADIENT_CASES[name]
    assert gradcheck(fn, (leaf(make()),), eps=1e-6, atol=1e-5, rtol=1e-4)


def test_gradients_match_pytorch(torch):
    cases = [
        (lambda a: L.solve(a, ember.eye(3, dtype=ember.float64)),
         lambda a: torch.linalg.solve(a, torch.eye(3).double()), general((3, 3), 40)),
        (L.det, torch.linalg.det, general((2, 3, 3), 41)),
        (L.cholesky, torch.linalg.cholesky, positive_definite((3, 3), 42)),
        (lambda a: L.eigh(a).eigenvalues, lambda a: torch.linalg.eigh(a).eigenvalues, symmetric((4, 4), 43)),
        (lambda a: L.svd(a, False).S, lambda a: torch.linalg.svd(a, False).S, rng(44).standard_normal((3, 5))),
        (lambda a: L.qr(a).R.abs(), lambda a: torch.linalg.qr(a).R.abs(), rng(45).standard_normal((5, 3))),
    ]
    for ours, theirs, array in cases:
        x = leaf(array)
        ours(x).sum().backward()
        tx = torch.tensor(array, requires_grad=True)
        theirs(tx).sum().backward()
        assert_close(x.grad, tx.grad, rtol=1e-7, atol=1e-9)


def test_second_derivatives_see_the_factorization_again(torch):
    # d/dA sum(d det / dA) as torch's (Note [Factorization outputs under create_graph]).
    array = general((3, 3), 50)
    x = leaf(array)
    (g,) = ember.autograd.grad(L.det(x), x, create_graph=True)
    (h,) = ember.autograd.grad(g.sum(), x)
    tx = torch.tensor(array, requires_grad=True)
    (tg,) = torch.autograd.grad(torch.linalg.det(tx), tx, create_graph=True)
    (th,) = torch.autograd.grad(tg.sum(), tx)
    assert float(th.abs().sum()) > 0
    assert_close(h, th, rtol=1e-7, atol=1e-9)
