"""F.adaptive_max_pool1d/2d and nn.AdaptiveMaxPool1d/2d against PyTorch:
windows that divide the input or not (overlapping, or larger than it),
None in output_size, indices into the input plane, gradients and errors."""

import numpy
import pytest

import ember
import ember.nn.functional as F
from helpers import assert_close, check_with_gradients

RNG = numpy.random.default_rng(11)

POOLS_2D = [((2, 3, 7, 5), (3, None)), ((3, 7, 5), (4, 2)), ((2, 2, 5, 6), (7, 9)), ((1, 2, 4, 4), 2),
            ((2, 1, 6, 3), (1, 1))]
POOLS_1D = [((2, 3, 7), 3), ((3, 7), (10,)), ((2, 3, 5), 5), ((1, 2, 9), 4)]


def pool_values_and_indices(torch, ours, theirs, array, output_size):
    values, indices = ours(ember.tensor(array), output_size, return_indices=True)
    expected_values, expected_indices = theirs(torch.tensor(array), output_size, return_indices=True)
    assert_close(values, expected_values)
    assert_close(indices, expected_indices)


@pytest.mark.parametrize("shape, output_size", POOLS_2D)
def test_adaptive_max_pool2d_matches_pytorch(torch, shape, output_size):
    array = RNG.standard_normal(shape).astype(numpy.float32)
    pool_values_and_indices(torch, F.adaptive_max_pool2d, torch.nn.functional.adaptive_max_pool2d, array,
                            output_size)
    check_with_gradients(torch, lambda x: F.adaptive_max_pool2d(x, output_size),
                         lambda x: torch.nn.functional.adaptive_max_pool2d(x, output_size), [array])


@pytest.mark.parametrize("shape, output_size", POOLS_1D)
def test_adaptive_max_pool1d_matches_pytorch(torch, shape, output_size):
    array = RNG.standard_normal(shape)
    pool_values_and_indices(torch, F.adaptive_max_pool1d, torch.nn.functional.adaptive_max_pool1d, array,
                            output_size)
    check_with_gradients(torch, lambda x: F.adaptive_max_pool1d(x, output_size),
                         lambda x: torch.nn.functional.adaptive_max_pool1d(x, output_size), [array])


def test_equal_values_give_the_first_in_row_major_order(torch):
    array = numpy.array([[[[1.0, 3.0, 2.0], [3.0, 0.0, 3.0]]]], dtype=numpy.float32)
    pool_values_and_indices(torch, F.adaptive_max_pool2d, torch.nn.functional.adaptive_max_pool2d, array, 1)
    pool_values_and_indices(torch, F.adaptive_max_pool2d, torch.nn.functional.adaptive_max_pool2d, array, (2, 2))


def test_an_empty_output_size_gives_an_empty_result(torch):
    values, indices = F.adaptive_max_pool2d(ember.ones(2, 3, 4, 5), (0, 2), return_indices=True)
    expected = torch.nn.functional.adaptive_max_pool2d(torch.ones(2, 3, 4, 5), (0, 2), return_indices=True)
    assert values.shape == expected[0].shape and indices.shape == expected[1].shape
    assert indices.dtype == ember.int64


def test_modules_pool_as_the_functions_and_print_as_pytorch(torch):
    array = RNG.standard_normal((2, 3, 6, 5)).astype(numpy.float32)
    for output_size, return_indices in [((3, None), False), (2, True)]:
        ours = ember.nn.AdaptiveMaxPool2d(output_size, return_indices)
        theirs = torch.nn.AdaptiveMaxPool2d(output_size, return_indices)
        assert repr(ours) == repr(theirs)
        result, expected = ours(ember.tensor(array)), theirs(torch.tensor(array))
        for got, want in zip(result, expected) if return_indices else [(result, expected)]:
            assert_close(got, want)
    ours, theirs = ember.nn.AdaptiveMaxPool1d(4, True), torch.nn.AdaptiveMaxPool1d(4, True)
    assert repr(ours) == repr(theirs)
    for got, want in zip(ours(ember.tensor(array[0])), theirs(torch.tensor(array[0]))):
        assert_close(got, want)
    assert ember.nn.modules.pooling.AdaptiveMaxPool2d is ember.nn.AdaptiveMaxPool2d
    assert ember.nn.modules.pooling.AdaptiveMaxPool1d is ember.nn.AdaptiveMaxPool1d


BAD_ARGUMENTS = [
    (F.adaptive_max_pool2d, (5, 4), 3, RuntimeError, r"Expected 3D or 4D tensor, but got: \[5, 4\]"),
    (F.adaptive_max_pool2d, (1, 2, 3, 4, 5), 3, RuntimeError, "Expected 3D or 4D tensor"),
    (F.adaptive_max_pool2d, (2, 3, 4, 5), (3, 2, 1), RuntimeError, "output_size.size.. must be 2"),
    (F.adaptive_max_pool2d, (2, 3, 4, 5), (-1, 2), RuntimeError, "negative dimension -1"),
    (F.adaptive_max_pool2d, (2, 0, 4, 5), 2, RuntimeError, "dimension 1 being empty"),
    (F.adaptive_max_pool1d, (7,), 3, RuntimeError, "Expected 2 to 3 dimensions, but got 1-dimensional tensor"),
    (F.adaptive_max_pool1d, (2, 3, 4, 7), 3, RuntimeError, "but got 4-dimensional tensor"),
    (F.adaptive_max_pool1d, (2, 3, 7), (3, 4), RuntimeError, r"should contain one int \(got 2\)"),
    (F.adaptive_max_pool1d, (2, 3, 7), None, TypeError, "must be tuple of ints, not NoneType"),
    (F.adaptive_max_pool1d, (2, 3, 0), 2, RuntimeError, "dimension 2 being empty"),
]


@pytest.mark.parametrize("pool, shape, output_size, error, message", BAD_ARGUMENTS)
def test_bad_arguments_raise_as_pytorch(torch, pool, shape, output_size, error, message):
    with pytest.raises(error, match=message):
        pool(ember.ones(*shape), output_size)
    with pytest.raises(error, match=message):
        getattr(torch.nn.functional, pool.__name__)(torch.ones(*shape), output_size)


def test_integer_input_is_refused(torch):
    with pytest.raises(NotImplementedError, match="\"adaptive_max_pool2d\" not implemented for 'int64'"):
        F.adaptive_max_pool2d(ember.ones(1, 2, 3, dtype=ember.int64), 2)
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        torch.nn.functional.adaptive_max_pool2d(torch.ones(1, 2, 3, dtype=torch.int64), 2)
