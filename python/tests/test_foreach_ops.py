"""torch._foreach_* against PyTorch 2.13: every unary op, the binary ops
with a number, a list of numbers, a list of tensors and one tensor, the
pointwise and lerp forms, norms, and the in-place forms returning their
list."""

import numpy
import pytest

import ember
import ember._foreach as foreach

from helpers import assert_close

RNG = numpy.random.default_rng(9)
SHAPES = [(3,), (2, 4), ()]


def _lists(lib, low=0.1, high=0.9):
    return [lib.tensor(RNG.uniform(low, high, shape).astype(numpy.float32)) for shape in SHAPES]


def _same(ours, theirs):
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        assert_close(o, t, rtol=2e-6, atol=1e-7)


def _run(call, torch):
    state = RNG.bit_generator.state
    ours = call(ember)
    RNG.bit_generator.state = state
    return ours, call(torch)


@pytest.mark.parametrize("name", foreach._UNARY)
def test_unary(torch, name):
    def call(lib):
        values = _lists(lib)
        out = getattr(lib, f"_foreach_{name}")(values)
        returned = getattr(lib, f"_foreach_{name}_")(values)
        assert returned is values and isinstance(out, tuple)
        return list(out) + values

    _same(*_run(call, torch))


OPERANDS = {
    "number": lambda lib: 0.5,
    "numbers": lambda lib: [0.5, 2.0, -1.5],
    "tensors": lambda lib: _lists(lib, 0.2, 1.5),
    "tensor": lambda lib: lib.tensor(0.75),
}


# PyTorch takes one tensor as the operand of add, mul and div only.
BINARY_CASES = [(name, operand) for name in sorted(foreach._BINARY) for operand in OPERANDS
                if operand != "tensor" or name in ("add", "mul", "div")]


@pytest.mark.parametrize("name,operand", BINARY_CASES)
def test_binary(torch, name, operand):
    def call(lib):
        values = _lists(lib)
        other = OPERANDS[operand](lib)
        kwargs = {"alpha": 2.0} if name in ("add", "sub") and operand == "tensors" else {}
        out = getattr(lib, f"_foreach_{name}")(values, other, **kwargs)
        getattr(lib, f"_foreach_{name}_")(values, other, **kwargs)
        return list(out) + values

    _same(*_run(call, torch))


def test_pointwise_lerp_norms_and_the_rest(torch):
    def call(lib):
        a, b, c = _lists(lib), _lists(lib), _lists(lib, 1.0, 2.0)
        results = list(lib._foreach_addcmul(a, b, c, value=0.5)) + list(lib._foreach_addcdiv(a, b, c, [1.0, 2.0, 3.0]))
        results += list(lib._foreach_addcmul(a, b, c, lib.tensor([1.0, -1.0, 2.0])))
        results += list(lib._foreach_lerp(a, b, 0.25)) + list(lib._foreach_lerp(a, b, c))
        results += list(lib._foreach_norm(a)) + list(lib._foreach_norm(a, ord=float("inf")))
        results += list(lib._foreach_max(a)) + list(lib._foreach_powsum(a, 3)) + list(lib._foreach_pow(2.0, a))
        results += list(lib._foreach_clone(a))
        lib._foreach_copy_(c, a)
        lib._foreach_addcdiv_(b, a, c, value=0.5)
        lib._foreach_lerp_(a, b, 0.5)
        return results + c + b + a + list(lib._foreach_zero_(_lists(lib)))

    _same(*_run(call, torch))


def test_gradients_and_errors(torch):
    for lib in (ember, torch):
        weights = [lib.ones(2, requires_grad=True), lib.ones(3, requires_grad=True)]
        sum(t.sum() for t in lib._foreach_mul(weights, [2.0, 3.0])).backward()
        assert weights[0].grad.tolist() == [2.0, 2.0] and weights[1].grad.tolist() == [3.0] * 3
    with pytest.raises(RuntimeError, match="Tensor lists must have the same number of tensors, got 1 and 2"):
        ember._foreach_add([ember.ones(2)], [ember.ones(2), ember.ones(2)])
    with pytest.raises(RuntimeError, match="Tensor list must have at least one tensor."):
        ember._foreach_add([], 1.0)
    with pytest.raises(AssertionError, match="rank 3"):
        ember._assert(ember.ones(2).dim() == 3, "rank 3")
