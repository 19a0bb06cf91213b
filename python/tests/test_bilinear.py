"""F.bilinear and nn.Bilinear against PyTorch: values and gradients over
batched, multi-dim and unbatched inputs, the module's initialisation,
parameters and printout, and errors for mismatched shapes and dtypes."""

import math

import numpy
import pytest

import ember
import ember.nn.functional as F
from helpers import assert_close, check_with_gradients

RNG = numpy.random.default_rng(8)
WEIGHT = RNG.standard_normal((4, 2, 3))
BIAS = RNG.standard_normal(4)


@pytest.mark.parametrize("lead", [(5,), (2, 3), ()])
def test_bilinear_matches_pytorch_with_gradients(torch, lead):
    input1, input2 = RNG.standard_normal(lead + (2,)), RNG.standard_normal(lead + (3,))
    check_with_gradients(torch, F.bilinear, torch.nn.functional.bilinear, [input1, input2, WEIGHT, BIAS],
                         grad=(True, True, True, True))
    check_with_gradients(torch, F.bilinear, torch.nn.functional.bilinear, [input1, input2, WEIGHT],
                         grad=(True, True, True))


def test_module_loads_pytorch_weights_and_prints_as_pytorch(torch):
    theirs = torch.nn.Bilinear(2, 3, 4)
    ours = ember.nn.Bilinear(2, 3, 4)
    assert repr(ours) == repr(theirs)
    assert [(name, tuple(p.shape)) for name, p in ours.named_parameters()] == \
        [(name, tuple(p.shape)) for name, p in theirs.named_parameters()]
    ours.load_state_dict({key: ember.tensor(value.numpy()) for key, value in theirs.state_dict().items()})
    input1 = RNG.standard_normal((6, 2)).astype(numpy.float32)
    input2 = RNG.standard_normal((6, 3)).astype(numpy.float32)
    assert_close(ours(ember.tensor(input1), ember.tensor(input2)),
                 theirs(torch.tensor(input1), torch.tensor(input2)).detach())
    unbiased = ember.nn.Bilinear(2, 3, 4, bias=False)
    assert unbiased.bias is None and repr(unbiased) == repr(torch.nn.Bilinear(2, 3, 4, bias=False))
    assert ember.nn.modules.linear.Bilinear is ember.nn.Bilinear


def test_module_draws_its_parameters_within_pytorchs_bound():
    ember.manual_seed(0)
    layer = ember.nn.Bilinear(16, 3, 64, dtype=ember.float64)
    bound = 1 / math.sqrt(16)
    for param in (layer.weight, layer.bias):
        values = param.detach().numpy()
        assert values.min() >= -bound and values.max() <= bound
        # Uniform on [-bound, bound]: the spread fills the interval.
        assert values.max() - values.min() > 1.5 * bound
    assert layer.weight.dtype == ember.float64


BAD_SHAPES = [
    ((5, 2), (4, 3), (4, 2, 3), (4,), "input batch dimensions do not match at dim 0: got 5 and 4"),
    ((5, 2), (5, 1, 3), (4, 2, 3), (4,), "input dimensions do not match: got 2 and 3"),
    ((5, 3), (5, 3), (4, 2, 3), (4,), "input1 size does not match weight size: got 3 but expected 2"),
    ((5, 2), (5, 4), (4, 2, 3), (4,), "input2 size does not match weight size: got 4 but expected 3"),
    ((5, 2), (5, 3), (4, 2, 3), (3,), "bias size does not match weight size: got 3 but expected 4"),
]


@pytest.mark.parametrize("shape1, shape2, weight_shape, bias_shape, message", BAD_SHAPES)
def test_bad_shapes_raise_as_pytorch(torch, shape1, shape2, weight_shape, bias_shape, message):
    for library in (ember, torch):
        with pytest.raises(RuntimeError, match=message):
            library.nn.functional.bilinear(library.ones(*shape1), library.ones(*shape2), library.ones(*weight_shape),
                                           library.ones(*bias_shape))


def test_mixed_dtypes_and_a_weight_that_is_not_3d_are_refused(torch):
    with pytest.raises(RuntimeError, match="All tensors must have the same dtype, got input1: double, input2: float"):
        torch.nn.functional.bilinear(torch.ones(5, 2, dtype=torch.float64), torch.ones(5, 3), torch.ones(4, 2, 3))
    with pytest.raises(RuntimeError, match="All tensors must have the same dtype, got input1: float64, input2: "
                                           "float32, weight: float32"):
        F.bilinear(ember.ones(5, 2, dtype=ember.float64), ember.ones(5, 3), ember.ones(4, 2, 3))
    with pytest.raises(RuntimeError, match="weight has to be 3-D .out_features, in1_features, in2_features., but got "
                                           "2-D"):
        F.bilinear(ember.ones(5, 2), ember.ones(5, 3), ember.ones(2, 3))
