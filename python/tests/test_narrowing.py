"""Values and results that do not fit where they are stored raise as in
PyTorch (Note [Narrowing conversions]) instead of wrapping silently."""

import math

import pytest

import ember

from helpers import assert_close


@pytest.mark.parametrize("make", [
    lambda T: T.tensor([300], dtype=T.uint8),
    lambda T: T.tensor([[1, 2], [3, 128]], dtype=T.int8),
    lambda T: T.tensor([float("nan")], dtype=T.int64),
    lambda T: T.tensor([-1.0], dtype=T.uint8),
    lambda T: T.full((2,), 300, dtype=T.uint8),
    lambda T: T.zeros(2, dtype=T.int16).fill_(40000),
    lambda T: T.arange(4, dtype=T.int8).clamp(max=1000),
    lambda T: T.arange(4, dtype=T.int8).clamp(min=-1000),
    lambda T: T.zeros(2, dtype=T.uint8).masked_fill(T.tensor([True, False]), 256),
    lambda T: T.where(T.tensor([True, False]), T.zeros(2, dtype=T.uint8), 256),
    lambda T: T.scalar_tensor(300, dtype=T.uint8),
], ids=["tensor", "nested", "nan-to-int", "negative-float-to-uint8", "full", "fill_", "clamp-max", "clamp-min",
        "masked_fill", "where", "scalar_tensor"])
def test_values_outside_the_dtype_are_runtime_errors(make, torch):
    with pytest.raises(RuntimeError):
        make(torch)
    with pytest.raises(RuntimeError, match="cannot be converted to type .* without overflow"):
        make(ember)


@pytest.mark.parametrize("make", [
    lambda T: T.tensor([-1, -255], dtype=T.uint8),  # negative ints wrap into unsigned types
    lambda T: T.tensor([1.9, -0.5], dtype=T.int32),
    lambda T: T.tensor([True, 2], dtype=T.bool),
    lambda T: T.full((2,), 255, dtype=T.uint8),
    lambda T: T.full((2,), -128, dtype=T.int8),
    lambda T: T.arange(4, dtype=T.uint8).clamp(min=-1),
    lambda T: T.arange(4, dtype=T.int8).clamp(max=1.5),  # a float bound gives a float result
    lambda T: T.tensor([1, 2], dtype=T.uint8) + 300,  # arithmetic keeps wrapping
    lambda T: T.tensor([70000.0], dtype=T.float16),
], ids=["unsigned-wrap", "truncate", "bool", "uint8-max", "int8-min", "clamp-wrap", "clamp-float", "add-wraps",
        "float16-inf"])
def test_values_pytorch_accepts_are_kept(make, torch):
    assert_close(make(ember), make(torch))


def test_int_of_a_float_tensor_goes_through_python_int(torch):
    with pytest.raises(ValueError, match="NaN"):
        int(ember.tensor(float("nan")))
    with pytest.raises(OverflowError):
        int(ember.tensor(float("inf")))
    assert int(ember.tensor(1e30)) == int(torch.tensor(1e30)) > 2**63
    assert int(ember.tensor(-2.7)) == -2
    assert int(ember.tensor(7, dtype=ember.int8)) == 7
    assert not math.isnan(float(ember.tensor(3)))


@pytest.mark.parametrize("inplace", [
    lambda x: x.sqrt_(),
    lambda x: x.exp_(),
    lambda x: x.sigmoid_(),
    lambda x: x.reciprocal_(),
    lambda x: x.div_(2),
    lambda x: x.add_(1.5),
    lambda x: x.mul_(x.float()),
    lambda x: x.pow_(0.5),
    lambda x: x.remainder_(1.5),
    lambda x: x.clamp_(max=1.5),
    lambda x: x.__itruediv__(2),
    lambda x: x.__iadd__(0.5),
], ids=["sqrt_", "exp_", "sigmoid_", "reciprocal_", "div_", "add_", "mul_", "pow_", "remainder_", "clamp_",
        "itruediv", "iadd"])
def test_float_results_into_integer_tensors_are_refused(inplace, torch):
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type"):
        inplace(torch.tensor([1, 2]))
    x = ember.tensor([1, 2])
    with pytest.raises(RuntimeError, match="result type float32 can't be cast to the desired output type int64"):
        inplace(x)
    assert x.tolist() == [1, 2]


def test_integer_results_into_bool_tensors_are_refused():
    flags = ember.tensor([True, False])
    with pytest.raises(RuntimeError, match="result type int64 can't be cast to the desired output type bool"):
        flags.add_(1)
    flags.logical_not_()
    assert flags.tolist() == [False, True]
    counts = ember.tensor([1, 0])
    counts.logical_not_()  # a bool result fits an integer tensor
    assert counts.tolist() == [0, 1]
