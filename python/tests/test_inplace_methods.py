"""torch.Tensor's in-place methods against PyTorch: values, dtypes, the
returned object, refused casts and shapes, gradients through non-leaf
tensors, the in-place view ops and the random fills."""

import math

import numpy
import pytest

import ember
from helpers import assert_close

RNG = numpy.random.default_rng(5)


def pair(torch, array, grad=False):
    return ember.tensor(array).requires_grad_(grad), torch.tensor(array, requires_grad=grad)


def other_of(torch, other):
    return (ember.tensor(other), torch.tensor(other)) if isinstance(other, numpy.ndarray) else (other, other)


FLOATS = numpy.array([[-2.5, 0.0, 1.0], [3.0, -1.0, 0.5]])
INTS = numpy.array([[-3, 0, 1], [4, 7, -8]])
BOOLS = numpy.array([[True, False, True], [False, False, True]])

# (method, self, other): other is broadcast to self's shape, never self to other's.
BINARY = [
    ("eq_", FLOATS, numpy.array([-2.5, 1.0, 1.0])), ("eq_", INTS, 0), ("ne_", FLOATS, 1.0), ("ne_", INTS, INTS),
    ("lt_", FLOATS, numpy.array([0.0, 0.0, 2.0])), ("lt_", INTS, 2.5), ("le_", INTS, 1), ("gt_", FLOATS, 0),
    ("ge_", INTS, numpy.array([[0], [5]])), ("greater_", FLOATS, 0.5), ("greater_equal_", INTS, 1),
    ("less_", FLOATS, 1.0), ("less_equal_", INTS, 0), ("not_equal_", FLOATS, 0.0), ("eq_", BOOLS, True),
    ("lt_", BOOLS, BOOLS),
    ("logical_and_", FLOATS, numpy.array([1.0, 1.0, 0.0])), ("logical_or_", INTS, numpy.array([0, 0, 3])),
    ("logical_xor_", BOOLS, BOOLS),
    ("logical_and_", BOOLS, numpy.array([1, 0, 1])), ("logical_xor_", FLOATS, numpy.array([1, 1, 1])),
    ("multiply_", FLOATS, 2.5), ("multiply_", INTS, numpy.array([2, -1, 3])), ("subtract_", FLOATS, FLOATS * 3),
    ("subtract_", INTS, 4), ("divide_", FLOATS, numpy.array([2.0, -4.0, 8.0])), ("true_divide_", FLOATS, 3),
    ("ldexp_", FLOATS, numpy.array([1, 0, -2])), ("ldexp_", FLOATS, numpy.array([[3], [-1]])),
    ("bitwise_left_shift_", INTS, numpy.array([1, 63, 70])), ("bitwise_left_shift_", INTS, 2),
    ("bitwise_right_shift_", INTS, numpy.array([1, -1, 63])), ("bitwise_right_shift_", INTS, 2),
]


@pytest.mark.parametrize("name,array,other", BINARY, ids=[f"{b[0]}-{i}" for i, b in enumerate(BINARY)])
def test_binary_in_place_methods_match_pytorch(torch, name, array, other):
    x, tx = pair(torch, array)
    y, ty = other_of(torch, other)
    result = getattr(x, name)(y)
    expected = getattr(tx, name)(ty)
    assert result is x
    assert_close(x, expected)  # dtype included: self's, whatever the result's was


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32"])
def test_shifts_wrap_to_narrow_dtypes(torch, dtype):
    values = numpy.array([3, -1, 100, 0, 1], dtype=dtype) if dtype != "uint8" else numpy.array([3, 255, 100, 0, 1],
                                                                                               dtype=dtype)
    counts = numpy.array([7, 3, 2, 40, -1], dtype=dtype) if dtype != "uint8" else numpy.array([7, 3, 2, 40, 9],
                                                                                              dtype=dtype)
    for name in ("bitwise_left_shift", "bitwise_right_shift"):
        x, tx = pair(torch, values)
        y, ty = pair(torch, counts)
        assert_close(getattr(ember, name)(x, y), getattr(torch, name)(tx, ty))
        assert_close(getattr(x, name + "_")(y), getattr(tx, name + "_")(ty))
    assert_close(ember.tensor(values) << 1, torch.tensor(values) << 1)
    assert_close(ember.tensor(values) >> 1, torch.tensor(values) >> 1)
    x, tx = pair(torch, values)
    x <<= 2
    tx <<= 2
    x >>= 1
    tx >>= 1
    assert_close(x, tx)


def test_shift_of_floats_is_refused():
    with pytest.raises(NotImplementedError):
        ember.tensor([1.0]).bitwise_left_shift_(1)


@pytest.mark.parametrize("call", [
    lambda x: x.divide_(2), lambda x: x.true_divide_(x), lambda x: x.multiply_(1.5), lambda x: x.subtract_(0.5),
    lambda x: x.cumsum_(0, dtype=None).add_(0.5),
], ids=["divide_", "true_divide_", "multiply_", "subtract_", "add_"])
def test_float_results_into_integer_tensors_are_refused(torch, call):
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        call(torch.tensor([1, 2]))
    x = ember.tensor([1, 2])
    with pytest.raises(RuntimeError, match="result type float32 can't be cast to the desired output type int64"):
        call(x)


def test_ldexp_into_integer_tensors_is_refused(torch):
    for T in (torch, ember):
        with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
            T.tensor([1, 2]).ldexp_(T.tensor([1, 2]))


def test_integer_results_into_bool_tensors_are_refused(torch):
    with pytest.raises(RuntimeError, match="result type Long can't be cast to the desired output type Bool"):
        torch.tensor([True]).multiply_(torch.tensor([2]))
    with pytest.raises(RuntimeError, match="result type int64 can't be cast to the desired output type bool"):
        ember.tensor([True]).multiply_(ember.tensor([2]))


@pytest.mark.parametrize("call", [
    lambda T, x: x.eq_(T.ones(2, 3)), lambda T, x: x.logical_or_(T.ones(4, 1)), lambda T, x: x.ldexp_(T.ones(2, 3)),
    lambda T, x: x.multiply_(T.ones(2, 3)), lambda T, x: x.tril_().triu_(),
], ids=["eq_", "logical_or_", "ldexp_", "multiply_", "tril_"])
def test_self_keeps_its_shape(torch, call):
    for T in (torch, ember):
        with pytest.raises(RuntimeError):
            call(T, T.ones(3))


def test_comparisons_keep_self_dtype_and_write_zero_or_one(torch):
    for dtype in ("float16", "float64", "int8", "uint8", "bool"):
        x, tx = pair(torch, numpy.array([0, 1, 2, 3]).astype(dtype))
        assert_close(x.gt_(1), tx.gt_(1))
        assert str(x.dtype) == f"ember.{dtype}"


def test_unary_aliases_and_clip_(torch):
    for name, array, args in [("absolute_", FLOATS, ()), ("absolute_", INTS, ()),
                              ("arccosh_", numpy.array([1.0, 2.5, 10.0]), ()),
                              ("arcsinh_", FLOATS, ()), ("arctanh_", numpy.array([-0.5, 0.0, 0.9]), ()),
                              ("clip_", FLOATS, (-1.0, 0.75)), ("clip_", INTS, (0, None))]:
        x, tx = pair(torch, array)
        assert getattr(x, name)(*args) is x
        assert_close(x, getattr(tx, name)(*args), rtol=1e-12)
    x, tx = pair(torch, FLOATS)
    assert_close(x.clip_(max=0.5), tx.clip_(max=0.5))


def test_scans_triangles_and_scatter_add(torch):
    cube = RNG.standard_normal((3, 4, 5))
    for name, args, kwargs in [("cumsum_", (1,), {}), ("cumsum_", (-1,), {}), ("cumprod_", (0,), {}),
                               ("cumsum_", (2,), {"dtype": None}), ("tril_", (), {}), ("tril_", (1,), {}),
                               ("triu_", (), {"diagonal": -1}), ("triu_", (2,), {})]:
        x, tx = pair(torch, cube)
        assert getattr(x, name)(*args, **kwargs) is x
        assert_close(x, getattr(tx, name)(*args, **kwargs), rtol=1e-12)
    x, tx = pair(torch, INTS)
    assert_close(x.cumsum_(1), tx.cumsum_(1))
    assert_close(x.cumprod_(0), tx.cumprod_(0))
    index = numpy.array([[0, 1, 0], [1, 0, 0]])
    x, tx = pair(torch, FLOATS)
    assert x.scatter_add_(0, ember.tensor(index), ember.tensor(FLOATS * 10)) is x
    assert_close(x, tx.scatter_add_(0, torch.tensor(index), torch.tensor(FLOATS * 10)))


def test_put_(torch):
    x, tx = pair(torch, FLOATS)
    index, source = numpy.array([[0, -1], [4, 2]]), numpy.array([10.0, 20.0, 30.0, 40.0])
    assert x.put_(ember.tensor(index), ember.tensor(source)) is x
    assert_close(x, tx.put_(torch.tensor(index), torch.tensor(source)))
    index = numpy.array([1, 1, -6])
    assert_close(x.put_(ember.tensor(index), ember.tensor(source[:3]), accumulate=True),
                 tx.put_(torch.tensor(index), torch.tensor(source[:3]), accumulate=True))
    five = numpy.array([5.0])
    assert_close(ember.put(x, ember.tensor([0]), ember.tensor(five)), torch.put(tx, torch.tensor([0]),
                                                                                torch.tensor(five)))
    for T, error in ((torch, IndexError), (ember, IndexError)):
        with pytest.raises(error, match="out of range"):
            T.ones(2, 3).put_(T.tensor([6]), T.tensor([1.0]))
    for T in (torch, ember):
        with pytest.raises(RuntimeError, match="same dtype"):
            T.ones(2).put_(T.tensor([0]), T.tensor([1]))
        with pytest.raises(RuntimeError, match="long tensor for index"):
            T.ones(2).put_(T.tensor([0.0]), T.tensor([1.0]))


@pytest.mark.parametrize("shape,wrap", [((3, 3), False), ((7, 3), False), ((7, 3), True), ((3, 7), True),
                                        ((4, 3), True), ((5, 3), True), ((3, 3, 3), False), ((1, 5), False)])
def test_fill_diagonal_(torch, shape, wrap):
    x, tx = pair(torch, numpy.zeros(shape))
    assert x.fill_diagonal_(5, wrap=wrap) is x
    assert_close(x, tx.fill_diagonal_(5, wrap=wrap))
    x, tx = pair(torch, numpy.zeros(shape, dtype="int64"))
    assert_close(x.fill_diagonal_(2.7), tx.fill_diagonal_(2.7))


def test_fill_diagonal_refuses_vectors_and_unequal_cubes(torch):
    for T in (torch, ember):
        with pytest.raises(RuntimeError, match="dimensions must larger than 1"):
            T.ones(3).fill_diagonal_(1)
        with pytest.raises(RuntimeError, match="all dimensions of input must be of equal length"):
            T.ones(2, 3, 4).fill_diagonal_(1)


@pytest.mark.parametrize("p,dim,maxnorm", [(2, 0, 1.0), (1, 1, 2.0), (3, -1, 0.5), (2, 2, 100.0),
                                           (math.inf, 1, 1.0)])
def test_renorm_(torch, p, dim, maxnorm):
    x, tx = pair(torch, RNG.standard_normal((3, 4, 2)))
    assert_close(ember.renorm(x, p, dim, maxnorm), torch.renorm(tx, p, dim, maxnorm), rtol=1e-6)
    assert x.renorm_(p, dim, maxnorm) is x
    assert_close(x, tx.renorm_(p, dim, maxnorm), rtol=1e-6)


def test_renorm_errors(torch):
    for T in (torch, ember):
        with pytest.raises(RuntimeError, match="non-positive-norm not supported"):
            T.ones(2, 3).renorm_(0, 0, 1)
        with pytest.raises(RuntimeError, match="maxnorm to be >= 0"):
            T.ones(2, 3).renorm_(2, 0, -1)


def test_matrix_products_in_place(torch):
    m, tm = pair(torch, RNG.standard_normal((3, 5)))
    a, ta = pair(torch, RNG.standard_normal((3, 4)))
    b, tb = pair(torch, RNG.standard_normal((4, 5)))
    assert m.addmm_(a, b, beta=0.5, alpha=2) is m
    assert_close(m, tm.addmm_(ta, tb, beta=0.5, alpha=2), rtol=1e-10)
    b1, tb1 = pair(torch, RNG.standard_normal((6, 3, 4)))
    b2, tb2 = pair(torch, RNG.standard_normal((6, 4, 5)))
    assert_close(ember.addbmm(m, b1, b2), torch.addbmm(tm, tb1, tb2), rtol=1e-10)
    assert m.addbmm_(b1, b2, alpha=-1) is m
    assert_close(m, tm.addbmm_(tb1, tb2, alpha=-1), rtol=1e-10)
    c, tc = pair(torch, RNG.standard_normal((6, 3, 5)))
    assert c.baddbmm_(b1, b2, beta=2) is c
    assert_close(c, tc.baddbmm_(tb1, tb2, beta=2), rtol=1e-10)
    for T in (torch, ember):
        with pytest.raises(RuntimeError):
            T.ones(5).addmm_(T.ones(3, 4), T.ones(4, 5))  # self would have to grow


# (method, self's shape, arguments, grads of the other tensor arguments):
# y = leaf * 1, y.method(...), then backward of a weighted sum of y. Left
# out where PyTorch's own gradient is off: arcsinh_ and the other inverse
# hyperbolics have no in-place derivative there, logical_*_ is not recorded
# (the gradient passes through as if y were unchanged), and ldexp_ by a
# negative integer exponent gives 0 (2 ** -2 taken in integers); Ember's are
# the derivatives of what is computed.
GRADIENTS = [
    ("cumsum_", (3, 4), (1,)), ("cumprod_", (3, 4), (0,)), ("tril_", (4, 4), (-1,)), ("triu_", (3, 4), (1,)),
    ("clip_", (3, 4), (-0.5, 0.5)), ("absolute_", (3, 4), ()),
    ("multiply_", (3, 4), ("other",)), ("subtract_", (3, 4), ("other",)), ("divide_", (3, 4), ("other",)),
    ("true_divide_", (3, 4), (2.0,)), ("ldexp_", (3, 4), ("exponent",)), ("renorm_", (3, 4), (2, 0, 1.0)),
    ("eq_", (3, 4), ("other",)), ("lt_", (3, 4), (0.0,)),
    ("fill_diagonal_", (3, 4), (2.0,)), ("scatter_add_", (3, 4), (0, "index", "src")),
    ("put_", (3, 4), ("flat_index", "source")), ("addmm_", (3, 4), ("mat1", "mat2")),
    ("squeeze_", (3, 1, 4), (1,)), ("squeeze_", (3, 1, 4), ()), ("unsqueeze_", (3, 4), (1,)), ("t_", (3, 4), ()),
    ("transpose_", (2, 3, 4), (0, 2)), ("swapaxes_", (3, 4), (0, 1)), ("swapdims_", (2, 3, 4), (2, 1)),
]


def _argument(torch, token, shape, grads):
    arrays = {"other": RNG.uniform(0.5, 2.0, shape[-1]), "exponent": numpy.array([1, 2, 0, 3][:shape[-1]]),
              "index": RNG.integers(0, shape[0], shape), "flat_index": numpy.array([0, 5, -1]),
              "source": RNG.standard_normal(3), "src": RNG.standard_normal(shape),
              "mat1": RNG.standard_normal((shape[0], 2)), "mat2": RNG.standard_normal((2, shape[1]))}
    if not isinstance(token, str):
        return token, token
    array = arrays[token]
    ours, theirs = pair(torch, array, grad=array.dtype.kind == "f")
    if array.dtype.kind == "f":
        grads.append((ours, theirs))
    return ours, theirs


@pytest.mark.parametrize("name,shape,args", GRADIENTS, ids=[f"{g[0]}-{i}" for i, g in enumerate(GRADIENTS)])
def test_gradients_through_non_leaf_tensors(torch, name, shape, args):
    leaf, tleaf = pair(torch, RNG.uniform(-1.5, 1.5, shape), grad=True)
    grads = []
    pairs = [_argument(torch, token, shape, grads) for token in args]
    y, ty = leaf * 1, tleaf * 1
    assert getattr(y, name)(*[p[0] for p in pairs]) is y
    getattr(ty, name)(*[p[1] for p in pairs])
    assert_close(y, ty.detach(), rtol=1e-10)
    assert list(y.stride()) == list(ty.stride())
    weights = RNG.standard_normal(tuple(ty.shape))
    (y * ember.tensor(weights)).sum().backward()
    (ty * torch.tensor(weights)).sum().backward()
    assert_close(leaf.grad, tleaf.grad, rtol=1e-10)
    for ours, theirs in grads:  # no gradient where PyTorch's is zeros (eq_'s other)
        assert_close(ember.zeros_like(ours) if ours.grad is None else ours.grad, theirs.grad, rtol=1e-10)


@pytest.mark.parametrize("call", [
    lambda x: x.eq_(0), lambda x: x.cumsum_(0), lambda x: x.fill_diagonal_(1), lambda x: x.squeeze_(),
    lambda x: x.t_(), lambda x: x.transpose_(0, 1), lambda x: x.unsqueeze_(0), lambda x: x.renorm_(2, 0, 1),
], ids=["eq_", "cumsum_", "fill_diagonal_", "squeeze_", "t_", "transpose_", "unsqueeze_", "renorm_"])
def test_leaves_that_require_grad_are_refused(torch, call):
    for T in (torch, ember):
        leaf = T.ones(2, 3, requires_grad=True)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
            call(leaf)
        assert list(leaf.shape) == [2, 3]


def test_in_place_views_restride_the_tensor_itself(torch):
    base, tbase = pair(torch, numpy.arange(24.0).reshape(2, 1, 3, 4))
    x, tx = base[:, 0, 1], tbase[:, 0, 1]
    for name, args in [("unsqueeze_", (-1,)), ("transpose_", (0, 1)), ("squeeze_", ((0, 2),)), ("t_", ()),
                       ("swapdims_", (0, 1)), ("swapaxes_", (1, 0)), ("unsqueeze_", (0,)), ("squeeze_", ()),
                       ("unsqueeze_", (1,)), ("squeeze_", (1,))]:
        assert getattr(x, name)(*args) is x
        getattr(tx, name)(*args)
        assert list(x.shape) == list(tx.shape) and list(x.stride()) == list(tx.stride()), name
        assert x.storage_offset() == tx.storage_offset()
        assert_close(x, tx)
    x.mul_(-1)  # still a view of base
    tx.mul_(-1)
    assert_close(base, tbase)
    assert x.swapaxes_(axis0=0, axis1=1) is x and list(x.shape) == [4, 2]


def test_writes_through_restrided_views_reach_the_base(torch):
    def run(T):
        leaf = T.tensor(numpy.arange(1.0, 13.0).reshape(3, 4), requires_grad=True)
        base = leaf * 1
        rows = base[1:]
        rows.t_()
        rows.multiply_(T.tensor([[2.0, 3.0]]))
        rows[0].cumsum_(0)
        base[:, 1].gt_(5)
        (base * T.tensor(numpy.arange(12.0).reshape(3, 4))).sum().backward()
        return base, leaf.grad

    (ours, our_grad), (theirs, their_grad) = run(ember), run(torch)
    assert_close(ours, theirs.detach())
    assert_close(our_grad, their_grad)


def test_in_place_views_of_leaves_under_no_grad(torch):
    for T in (torch, ember):
        leaf = T.ones(2, 3, requires_grad=True)
        other = leaf
        with T.no_grad():
            leaf.t_()
        assert list(leaf.shape) == [3, 2] and list(other.shape) == [3, 2]
        assert leaf.is_leaf and leaf.requires_grad
        (leaf * T.ones(3, 2)).sum().backward()
        assert list(leaf.grad.shape) == [3, 2]


def test_squeeze_and_t_errors(torch):
    for T in (torch, ember):
        with pytest.raises(RuntimeError):
            T.ones(2, 3, 4).t_()
        with pytest.raises(IndexError):
            T.ones(2, 3).unsqueeze_(3)


def _draw(name, seed, *args, dtype=ember.float64, n=200000, **kwargs):
    g = ember.Generator().manual_seed(seed)
    x = ember.empty(n, dtype=dtype)
    assert getattr(x, name)(*args, generator=g, **kwargs) is x
    return x


def test_cauchy_(torch):
    x = _draw("cauchy_", 1, 2.0, 0.5)
    quartiles = numpy.quantile(x.numpy(), [0.25, 0.5, 0.75])
    numpy.testing.assert_allclose(quartiles, [1.5, 2.0, 2.5], atol=0.01)
    assert _draw("cauchy_", 3, n=8).tolist() == _draw("cauchy_", 3, n=8).tolist()
    assert _draw("cauchy_", 3, n=8).tolist() != _draw("cauchy_", 4, n=8).tolist()
    numpy.testing.assert_allclose(numpy.median(_draw("cauchy_", 2, dtype=ember.float32).numpy()), 0.0, atol=0.01)
    for T in (torch, ember):
        with pytest.raises(RuntimeError, match="sigma > 0.0"):
            T.ones(3).cauchy_(sigma=0)
        with pytest.raises(RuntimeError, match="continuous probability distribution"):
            T.ones(3, dtype=T.int64).cauchy_()


def test_log_normal_(torch):
    x = _draw("log_normal_", 1, 0.5, 0.25)
    logs = numpy.log(x.numpy())
    numpy.testing.assert_allclose([logs.mean(), logs.std()], [0.5, 0.25], atol=0.003)
    numpy.testing.assert_allclose(x.numpy().mean(), math.exp(0.5 + 0.25 ** 2 / 2), rtol=0.005)
    logs = numpy.log(_draw("log_normal_", 2, dtype=ember.float32).numpy())  # the defaults: mean 1, std 2
    numpy.testing.assert_allclose([logs.mean(), logs.std()], [1.0, 2.0], atol=0.02)
    assert _draw("log_normal_", 3, n=8).tolist() == _draw("log_normal_", 3, n=8).tolist()
    for T in (torch, ember):
        with pytest.raises(RuntimeError, match="std > 0.0"):
            T.ones(3).log_normal_(std=0)
        with pytest.raises(NotImplementedError):
            T.ones(3, dtype=T.int64).log_normal_()


@pytest.mark.parametrize("dtype", [ember.float64, ember.float32, ember.int64, ember.int32])
def test_geometric_(torch, dtype):
    p = 0.3
    x = _draw("geometric_", 1, p, dtype=dtype)
    values = x.numpy().astype("float64")
    assert values.min() >= 1 and (values == numpy.round(values)).all()
    numpy.testing.assert_allclose([values.mean(), values.var()], [1 / p, (1 - p) / p ** 2], rtol=0.02)
    numpy.testing.assert_allclose((values == 1).mean(), p, atol=0.005)
    assert _draw("geometric_", 3, p, n=8).tolist() == _draw("geometric_", 3, p, n=8).tolist()
    for T in (torch, ember):
        for bad in (0, 1, -0.5):
            with pytest.raises(RuntimeError, match=r"geometric_ expects p to be in \(0, 1\)"):
                T.ones(3).geometric_(bad)


def test_ldexp_function(torch):
    for a, b in [(FLOATS, numpy.array([1, 2, 3])), (INTS, numpy.array([1, 2, 3])),
                 (FLOATS.astype("float32"), numpy.array([1.5, 2.0, -1.0]))]:
        x, tx = pair(torch, a)
        y, ty = pair(torch, b)
        assert_close(ember.ldexp(x, y), torch.ldexp(tx, ty))
        assert_close(x.ldexp(y), tx.ldexp(ty))


# Methods torch.Tensor has that ember.Tensor leaves out, each for a reason:
# no out-of-place function in Ember (i0, igamma, igammac, polygamma,
# mvlgamma, nextafter, masked_scatter, index_reduce), storage surgery
# (resize*, set_, as_strided_, share_memory_), sparse and complex tensors
# Ember does not have.
NOT_PROVIDED = {"as_strided_", "conj_physical_", "i0_", "igamma_", "igammac_",
                "index_reduce_", "masked_scatter_", "mvlgamma_", "nextafter_", "polygamma_", "resize_", "resize_as_",
                "resize_as_sparse_", "set_", "share_memory_", "sparse_resize_", "sparse_resize_and_clear_"}


def test_torch_in_place_methods_are_provided(torch):
    missing = {n for n in dir(torch.Tensor) if n.endswith("_") and not n.startswith("_")
               and not hasattr(ember.Tensor, n)}
    assert missing <= NOT_PROVIDED, sorted(missing - NOT_PROVIDED)


def test_apply_map_and_map2_call_python_per_element(torch):
    for T in (torch, ember):
        x = T.tensor([[1.0, 2.0], [3.0, 4.0]])
        assert x.apply_(lambda v: v * 10) is x
        assert x.map_(T.tensor([1.0, 2.0]), lambda a, b: a + b) is x
        assert x.map2_(T.tensor([1.0, 2.0]), T.tensor([[1.0], [2.0]]), lambda a, b, c: a + b * c) is x
        assert x.tolist() == [[12.0, 24.0], [33.0, 46.0]]
        counts = T.tensor([1, 2])
        assert counts.apply_(lambda v: v * 2.7).tolist() == [2, 5]  # truncated into the integer dtype
        flags = T.tensor([True, False])
        assert flags.apply_(lambda v: not v).tolist() == [False, True]
        with pytest.raises(RuntimeError, match=r"Can't call apply_\(\) on Variable that requires grad"):
            T.ones(2, requires_grad=True).apply_(lambda v: v)
        with pytest.raises(RuntimeError, match=r"Can't call map_\(\) on Variable that requires grad"):
            (T.ones(2, requires_grad=True) * 1).map_(T.ones(2), lambda a, b: a)
        with pytest.raises(TypeError, match=r"map_: expected torch.FloatTensor for 'other' \(got torch.LongTensor\)"):
            T.ones(2).map_(T.ones(2, dtype=T.int64), lambda a, b: a)
        with pytest.raises(TypeError, match="map2_: expected torch.FloatTensor for argument 'y'"):
            T.ones(2).map2_(T.ones(2), T.ones(2, dtype=T.int64), lambda a, b, c: a)
        with pytest.raises(RuntimeError):
            T.ones(2).map_(T.ones(3), lambda a, b: a)
