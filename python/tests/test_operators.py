"""Operators and elementwise ops against PyTorch: values and result dtypes,
including Python scalars on either side (weak promotion) and in-place forms."""

import operator

import pytest

import ember
from helpers import assert_close

DTYPES = ["bool", "uint8", "int8", "int32", "int64", "float16", "float32", "float64"]


def pair(torch, data, dtype, device="cpu"):
    return ember.tensor(data, dtype=getattr(ember, dtype), device=device), torch.tensor(data, dtype=getattr(torch, dtype))


@pytest.mark.parametrize("op", [operator.add, operator.sub, operator.mul, operator.truediv])
@pytest.mark.parametrize("left", DTYPES)
@pytest.mark.parametrize("right", ["int8", "int64", "float16", "float64"])
def test_arithmetic_promotion_matches_pytorch(torch, device, op, left, right):
    if "bool" in (left, right) and op is operator.sub:
        pytest.skip("PyTorch refuses bool subtraction")
    a, ta = pair(torch, [[1, 2, 3], [4, 5, 6]], left, device)
    b, tb = pair(torch, [3, 1, 2], right, device)
    assert_close(op(a, b), op(ta, tb), rtol=1e-3)


@pytest.mark.parametrize("scalar", [2, 2.5, True])
@pytest.mark.parametrize("dtype", ["uint8", "int8", "int64", "float16", "float32"])
@pytest.mark.parametrize("op", [operator.add, operator.sub, operator.mul, operator.truediv, operator.pow,
                                operator.floordiv, operator.mod])
def test_python_scalars_on_both_sides_promote_weakly(torch, device, scalar, dtype, op):
    if scalar is True and op in (operator.sub, operator.floordiv, operator.mod):
        pytest.skip("PyTorch refuses these with a bool")
    a, ta = pair(torch, [1, 2, 3], dtype, device)
    assert_close(op(a, scalar), op(ta, scalar), rtol=1e-3)
    assert_close(op(scalar, a), op(scalar, ta), rtol=1e-3)


@pytest.mark.parametrize("op", [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge])
def test_comparisons(torch, device, op):
    a, ta = pair(torch, [1, 2, 3], "int32", device)
    b, tb = pair(torch, [3, 2, 1], "float32", device)
    assert_close(op(a, b), op(ta, tb))
    assert_close(op(a, 2), op(ta, 2))
    assert_close(op(2.5, a), op(2.5, ta))


@pytest.mark.parametrize("op", [operator.and_, operator.or_, operator.xor])
def test_bitwise(torch, device, op):
    a, ta = pair(torch, [0b1100, 0b1010, 7], "int32", device)
    b, tb = pair(torch, [0b1010, 0b0110, 1], "int32", device)
    assert_close(op(a, b), op(ta, tb))
    assert_close(op(a, 3), op(ta, 3))
    assert_close(op(3, a), op(3, ta))
    m, tm = pair(torch, [True, False, True], "bool", device)
    assert_close(op(m, m), op(tm, tm))
    assert_close(~a, ~ta)
    assert_close(~m, ~tm)


def test_unary_ops_match_numpy(np, device):
    values = np.linspace(0.1, 2.0, 7).astype(np.float32)
    x = ember.tensor(values, device=device)
    for name in ("exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "abs", "neg", "floor", "ceil", "reciprocal",
                 "rsqrt", "log1p", "expm1", "erf"):
        expected = {"sigmoid": 1 / (1 + np.exp(-values)), "neg": -values, "reciprocal": 1 / values,
                    "rsqrt": 1 / np.sqrt(values),
                    "erf": np.array([__import__("math").erf(v) for v in values], dtype=np.float32)}.get(name)
        if expected is None:
            expected = getattr(np, name)(values)
        assert_close(getattr(ember, name)(x), expected, rtol=1e-5)
        assert_close(getattr(x, name)(), expected, rtol=1e-5)
    assert_close(-x, -values)
    assert_close(abs(-x), values)


def test_inplace_operators_keep_identity_and_dtype(torch, device):
    a, ta = pair(torch, [1.0, 2.0, 3.0], "float32", device)
    alias = a
    a += 1
    a *= ember.tensor([2.0, 2.0, 2.0], device=device)
    a -= 0.5
    a /= 2
    a **= 2
    ta += 1
    ta *= 2
    ta -= 0.5
    ta /= 2
    ta **= 2
    assert a is alias
    assert_close(a, ta)
    i = ember.tensor([1, 2, 3], dtype=ember.int8, device=device)
    i += 300  # wraps in int8, as in PyTorch
    assert_close(i, torch.tensor([1, 2, 3], dtype=torch.int8) + 300)
    with pytest.raises(RuntimeError, match="result type float32 can't be cast to the desired output type int8"):
        i += 1.5
    x = ember.tensor([1.0, -2.0], device=device)
    assert x.add_(1, alpha=2) is x and x.tolist() == [3.0, 0.0]
    assert x.mul_(2).clamp_(min=1.0).tolist() == [6.0, 1.0]
    assert x.zero_().tolist() == [0.0, 0.0] and x.fill_(7).tolist() == [7.0, 7.0]
    assert x.exp_() is x


def test_add_alpha_and_functions(torch):
    a, ta = pair(torch, [1, 2], "int64")
    b, tb = pair(torch, [10, 20], "int64")
    assert_close(ember.add(a, b, alpha=3), torch.add(ta, tb, alpha=3))
    assert_close(ember.sub(a, 1, alpha=2), torch.sub(ta, 1, alpha=2))
    assert_close(ember.where(a > 1, a, 0), torch.where(ta > 1, ta, 0))
    assert_close(a.where(a > 1, b), ta.where(ta > 1, tb))
    assert_close(ember.maximum(a, b), torch.maximum(ta, tb))
    assert_close(ember.clamp(a, 2), torch.clamp(ta, 2))


def test_matmul(torch, device):
    ember.manual_seed(0)
    a = ember.randn(2, 3, 4, device=device)
    b = ember.randn(4, 5, device=device)
    ta, tb = torch.from_numpy(a.cpu().numpy()), torch.from_numpy(b.cpu().numpy())
    assert_close(a @ b, ta @ tb, rtol=1e-4, atol=1e-5)
    assert_close(ember.mm(a[0], b), ta[0] @ tb, rtol=1e-4, atol=1e-5)


def test_reductions_match_pytorch(torch, device):
    ember.manual_seed(1)
    x = ember.randn(3, 4, 5, device=device)
    tx = torch.from_numpy(x.cpu().numpy())
    assert_close(x.sum(), tx.sum(), rtol=1e-4)
    assert_close(x.sum(1), tx.sum(1), rtol=1e-4)
    assert_close(x.sum((0, 2), keepdim=True), tx.sum((0, 2), keepdim=True), rtol=1e-4)
    assert_close(x.mean(-1), tx.mean(-1), rtol=1e-4)
    assert_close(x.var(1), tx.var(1), rtol=1e-4)
    assert_close(x.std(1, unbiased=False), tx.std(1, unbiased=False), rtol=1e-4)
    assert_close(x.amax((1, 2)), tx.amax((1, 2)))
    assert_close(x.argmax(), tx.argmax())
    assert_close(x.argmin(2), tx.argmin(2))
    assert_close(x.prod(0), tx.prod(0), rtol=1e-4)
    assert_close(x.logsumexp(1), tx.logsumexp(1), rtol=1e-4)
    assert_close(x.norm(), tx.norm(), rtol=1e-4)
    values, indices = x.max(1)
    assert_close(values, tx.max(1).values)
    assert_close(x.max(1).indices, tx.max(1).indices)
    assert_close(x.softmax(-1), tx.softmax(-1), rtol=1e-5)
    assert_close(x.cumsum(2), tx.cumsum(2), rtol=1e-4, atol=1e-5)
    assert_close(x.sort(1, descending=True).values, tx.sort(1, descending=True).values)
    assert_close(x.topk(2).indices, tx.topk(2).indices)
    i = ember.tensor([1, 2, 3], dtype=ember.int8)
    assert i.sum().dtype is ember.int64 and i.sum(dtype=ember.float32).dtype is ember.float32


def test_shape_ops(torch):
    e, t = ember.arange(6).reshape(2, 3), torch.arange(6).reshape(2, 3)
    assert_close(ember.cat([e, e], 1), torch.cat([t, t], 1))
    assert_close(ember.stack([e, e]), torch.stack([t, t]))
    assert [p.shape for p in e.split(2, 1)] == [tuple(p.shape) for p in t.split(2, 1)]
    assert [p.shape for p in e.chunk(3, 1)] == [tuple(p.shape) for p in t.chunk(3, 1)]
    assert_close(e.flip(0), t.flip(0))
    assert_close(e.roll(1, 1), t.roll(1, 1))
    assert_close(e.tril(), t.tril())
    assert_close(ember.gather(e, 1, ember.tensor([[0], [2]])), torch.gather(t, 1, torch.tensor([[0], [2]])))


def test_python_floats_beside_float64_tensors_keep_their_precision(torch, device):
    # A float went through a float32 0-d tensor: 0.7 rounded, 1e300 became inf.
    x, tx = pair(torch, [1e10, -3.3, 2.0], "float64", device)
    assert_close(ember.remainder(x, 0.7), torch.remainder(tx, 0.7), rtol=1e-12)
    assert_close(x.maximum(0.1), tx.clamp(min=0.1))
    assert_close(ember.where(x > 0, 1e300, x), torch.where(tx > 0, 1e300, tx))
    assert_close(ember.where(x > 0, x, -1e300), torch.where(tx > 0, tx, -1e300))
    assert_close(x.masked_fill(x > 0, 1e-320), tx.masked_fill(tx > 0, 1e-320))
    half, t_half = pair(torch, [1.0, 2.0], "float16", device)
    assert_close(ember.remainder(half, 0.7), torch.remainder(t_half, 0.7))  # still float16
    zero_d, t_zero_d = pair(torch, 2.0, "float32", device)
    assert_close(ember.where(zero_d > 0, zero_d, 0.5), torch.where(t_zero_d > 0, t_zero_d, 0.5))


def test_clamp_takes_tensor_bounds_as_pytorch_does(torch):
    def run(library):
        x = library.tensor([-2.0, 0.5, float("nan"), 3.0, 1.0], requires_grad=True)
        low = library.tensor([-1.0, 1.0, 0.0, 0.0, 1.0], requires_grad=True)
        high = library.tensor(2.0, requires_grad=True)
        clamped = library.clamp(x, min=low, max=high)
        clamped.sum().backward()
        in_place = library.tensor([0.0, 5.0])
        in_place.clamp_(min=library.tensor([1.0, 6.0]))
        integers = library.tensor([1, 5])
        return (str(clamped.tolist()), x.grad.tolist(), low.grad.tolist(), high.grad.item(),
                integers.clamp(min=library.tensor([2.5, 0.0])).tolist(),
                str(integers.clip(max=library.tensor(3)).dtype).split(".")[-1],
                library.clamp(library.ones(3), library.tensor([2.0]), library.tensor([1.5])).tolist(),
                in_place.tolist(), library.clamp_min(library.tensor([0.0, 5.0]), library.tensor(2.0)).tolist())

    assert run(ember) == run(torch)


def test_div_takes_pytorchs_rounding_modes(torch):
    def run(library):
        a, b = library.tensor([-7, 7, -8, 9]), library.tensor([2, -2, 3, 3])
        report = []
        for mode in (None, "trunc", "floor"):
            quotient = library.div(a, b, rounding_mode=mode)
            report.append((quotient.tolist(), str(quotient.dtype).split(".")[-1],
                           library.div(a.float(), 2, rounding_mode=mode).tolist(),
                           a.div(3, rounding_mode=mode).tolist(), library.divide(a, b, rounding_mode=mode).tolist()))
        in_place = library.tensor([-7, 7])
        in_place.div_(2, rounding_mode="trunc")
        floats = library.tensor([-7.0, 7.0])
        floats.divide_(library.tensor(2.0), rounding_mode="floor")
        mixed = library.tensor([5, -5]).div(library.tensor([2.5, 2.0]), rounding_mode="trunc")
        with pytest.raises(RuntimeError, match="div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                                               "but found 'round'"):
            library.div(a, b, rounding_mode="round")
        return report, in_place.tolist(), floats.tolist(), mixed.tolist()

    assert run(ember) == run(torch)


def test_nonzero_as_tuple_and_where_of_a_condition_alone(torch):
    def run(library):
        grid = library.arange(6).view(2, 3)
        return ([t.tolist() for t in library.nonzero(library.tensor([[0, 1], [2, 0]]), as_tuple=True)],
                [t.tolist() for t in library.tensor([0, 3, 0, 4]).nonzero(as_tuple=True)],
                library.nonzero(library.tensor(3), as_tuple=True)[0].tolist(),
                library.nonzero(library.tensor(0), as_tuple=True)[0].tolist(),
                len(library.nonzero(library.zeros(2, 0), as_tuple=True)),
                grid[grid.nonzero(as_tuple=True)].tolist(), [t.tolist() for t in library.where(grid > 2)])

    assert run(ember) == run(torch)
