"""Elementwise ops lay their outputs out as their inputs are, with PyTorch's
strides (Note [Elementwise output layout]), on every device; their values
are those of the same op on contiguous copies, in place or not, with
gradients flowing back in the inputs' layouts."""

import numpy
import pytest

import ember

from helpers import assert_close

# (stored shape, permutation): a transpose, an attention head split, a
# channels-last image, a size-1 dim among permuted ones, and layouts whose
# crossing with a contiguous operand spans several tiles with ragged edges
# (Note [Crossed layouts]).
LAYOUTS = [
    ((5, 7), (1, 0)),
    ((2, 6, 3, 4), (0, 2, 1, 3)),
    ((2, 4, 5, 3), (0, 3, 1, 2)),
    ((3, 1, 4, 5), (2, 0, 3, 1)),
    ((70, 131), (1, 0)),
    ((3, 37, 70), (0, 2, 1)),
]

OPS = {
    "x * 2": lambda x, y: x * 2,
    "x + y": lambda x, y: x + y,
    "y - x": lambda x, y: y - x,
    "exp": lambda x, y: x.exp(),
    "x > y": lambda x, y: x > y,
    "x / y.contiguous()": lambda x, y: x / y.contiguous(),
    "x.contiguous() * y": lambda x, y: x.contiguous() * y,
    "x * row": lambda x, y: x * y[..., :1],
}


def permuted(lib, shape, order, seed, device=None):
    data = numpy.random.default_rng(seed).standard_normal(shape).astype(numpy.float32)
    t = lib.tensor(data) if device is None else lib.tensor(data, device=device)
    return t.permute(*order)


@pytest.mark.parametrize("shape,order", LAYOUTS, ids=[f"{s}.permute{o}" for s, o in LAYOUTS])
@pytest.mark.parametrize("name", list(OPS))
def test_outputs_take_pytorch_strides_and_values(torch, name, shape, order):
    fn = OPS[name]
    ours = fn(permuted(ember, shape, order, 0), permuted(ember, shape, order, 1))
    theirs = fn(permuted(torch, shape, order, 0), permuted(torch, shape, order, 1))
    assert ours.stride() == theirs.stride()
    assert_close(ours, theirs)


def test_a_transposed_operand_beside_contiguous_ones_decides_by_position(torch):
    a, b = ember.randn(4, 3).t(), ember.randn(3, 4)
    ta, tb = torch.tensor(a.numpy()), torch.tensor(b.numpy())
    assert (a + b).stride() == (ta + tb).stride() == (1, 3)
    assert (b + a).stride() == (tb + ta).stride() == (4, 1)
    assert ember.randn(3, 4).expand(2, 3, 4).exp().stride() == (12, 4, 1)


@pytest.mark.parametrize("shape,order", LAYOUTS, ids=[f"{s}.permute{o}" for s, o in LAYOUTS])
def test_device_results_match_contiguous_inputs(device, shape, order):
    x = permuted(ember, shape, order, 2, device)
    y = permuted(ember, shape, order, 3, device)
    for name, fn in OPS.items():
        ours = fn(x, y)
        assert ours.shape == x.shape, name
        expected = fn(x.contiguous(), y.contiguous())
        assert_close(ours.cpu(), expected.cpu(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("shape,order", LAYOUTS, ids=[f"{s}.permute{o}" for s, o in LAYOUTS])
def test_in_place_ops_on_permuted_tensors(device, shape, order):
    x = permuted(ember, shape, order, 4, device)
    y = permuted(ember, shape, order, 5, device)
    expected = (x.contiguous() * -1.5 + y.contiguous()).exp()
    x.mul_(-1.5).add_(y).exp_()
    assert_close(x.cpu(), expected.cpu(), rtol=1e-6, atol=1e-6)
    x.fill_(0.25)
    assert x.cpu().tolist() == numpy.full(x.shape, 0.25, dtype=numpy.float32).tolist()
    z = permuted(ember, shape, order, 6, device)
    z.copy_(y)
    assert_close(z.cpu(), y.cpu(), rtol=0, atol=0)


def test_gradients_through_permuted_operands(torch):
    x = permuted(ember, (2, 6, 3, 4), (0, 2, 1, 3), 7).requires_grad_(True)
    tx = permuted(torch, (2, 6, 3, 4), (0, 2, 1, 3), 7).requires_grad_(True)
    w = ember.randn(2, 3, 6, 4)
    tw = torch.tensor(w.numpy())
    (x.sin() * w + x).sum().backward()
    (tx.sin() * tw + tx).sum().backward()
    assert_close(x.grad, tx.grad)
    # A result in a permuted layout reshapes (copying) and views as PyTorch's does.
    out = x.detach() * 2
    assert out.reshape(-1).shape == (144,)
    with pytest.raises(RuntimeError):
        out.view(-1)
    with pytest.raises(RuntimeError):
        (tx.detach() * 2).view(-1)


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "float16", "int64", "int32", "uint8", "bool"])
def test_crossed_operands_of_every_element_size(torch, dtype):
    """A transposed operand beside a contiguous one goes through staged
    tiles (Note [Crossed layouts]) for 1-, 2-, 4- and 8-byte elements."""
    rng = numpy.random.default_rng(8)
    a = rng.integers(0, 2 if dtype == "bool" else 50, size=(131, 70))
    b = rng.integers(0, 2 if dtype == "bool" else 50, size=(70, 131))
    ours_a, ours_b = (ember.tensor(v).to(getattr(ember, dtype)) for v in (a, b))
    theirs_a, theirs_b = (torch.tensor(v).to(getattr(torch, dtype)) for v in (a, b))
    op = (lambda x, y: x | y) if dtype == "bool" else (lambda x, y: x + y)
    ours = op(ours_a.t(), ours_b)
    theirs = op(theirs_a.t(), theirs_b)
    assert ours.stride() == theirs.stride()
    assert (ours.to(ember.float64).numpy() == theirs.to(torch.float64).numpy()).all()
    for x, y in ((ours_b, ours_a), (theirs_b, theirs_a)):
        if dtype == "bool":
            x |= y.t()
        else:
            x += y.t()
    assert (ours_b.to(ember.float64).numpy() == theirs_b.to(torch.float64).numpy()).all()


@pytest.mark.parametrize("name", ["lgamma", "digamma", "erfinv", "atan", "sign"])
def test_compiled_graphs_over_permuted_inputs_match_eager(name):
    """An elementwise op a plan runs as an extern call writes into its
    traced value's buffer, whose layout the generated kernels after it
    read, whatever layout eager would give it."""
    fn = getattr(ember, name)

    def f(a):
        return fn(a.t()) * 2 + a.t().contiguous()

    x = ember.rand(37, 70) * 0.8 + 0.1
    assert_close(ember.compile(f)(x), f(x), rtol=1e-6, atol=1e-6)
