"""F.max_pool3d, F.avg_pool3d, F.adaptive_avg_pool3d, F.adaptive_max_pool3d,
F.max_unpool1d/2d/3d and their modules against PyTorch: values, indices,
gradients, output sizes, reprs and errors."""

import re

import numpy
import pytest

import ember
import ember.nn.functional as F
from helpers import assert_close, check_with_gradients

RNG = numpy.random.default_rng(3)

WINDOWS = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
           dict(kernel_size=(2, 3, 2), stride=(1, 2, 3), padding=(1, 1, 0)),
           dict(kernel_size=3, stride=2, ceil_mode=True), dict(kernel_size=(3, 1, 2), stride=1)]


def volume(*shape):
    return RNG.standard_normal(shape).astype(numpy.float32)


def raises_as_pytorch(ours, theirs):
    """Both raise the same exception type with the same message, but for
    which invalid index it names: PyTorch's depends on its threads."""
    with pytest.raises(Exception) as expected:
        theirs()
    message = re.sub(r"invalid max index: -?\d+", "invalid max index: INDEX", str(expected.value))
    pattern = re.escape(message).replace("INDEX", r"-?\d+")
    with pytest.raises(type(expected.value), match="^" + pattern + "$"):
        ours()


@pytest.mark.parametrize("window", WINDOWS + [dict(kernel_size=2, dilation=(2, 1, 2), padding=1)])
def test_max_pool3d_values_indices_and_gradients(torch, window):
    array = volume(2, 3, 5, 6, 7)
    values, indices = F.max_pool3d(ember.tensor(array), return_indices=True, **window)
    expected_values, expected_indices = torch.nn.functional.max_pool3d(torch.tensor(array), return_indices=True,
                                                                       **window)
    assert_close(values, expected_values)
    assert_close(indices, expected_indices)
    # Overlapping windows add several gradients into one element, in another
    # order than PyTorch's: for some draws a sum cancels and differs in the
    # 6th digit.
    check_with_gradients(torch, lambda x: F.max_pool3d(x, **window),
                         lambda x: torch.nn.functional.max_pool3d(x, **window), [array], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("window", WINDOWS)
@pytest.mark.parametrize("count_include_pad, divisor_override", [(True, None), (False, None), (True, 5)])
def test_avg_pool3d_values_and_gradients(torch, window, count_include_pad, divisor_override):
    array = volume(3, 5, 6, 7)
    options = dict(window, count_include_pad=count_include_pad, divisor_override=divisor_override)
    check_with_gradients(torch, lambda x: F.avg_pool3d(x, **options),
                         lambda x: torch.nn.functional.avg_pool3d(x, **options), [array], rtol=1e-5, atol=1e-6)


def test_integer_pools_match_pytorch(torch):
    array = (volume(1, 2, 4, 5, 4) * 9).astype(numpy.int64)
    assert_close(F.max_pool3d(ember.tensor(array), 2, padding=1), torch.nn.functional.max_pool3d(
        torch.tensor(array), 2, padding=1))
    assert_close(F.avg_pool3d(ember.tensor(array), 2), torch.nn.functional.avg_pool3d(torch.tensor(array), 2))


@pytest.mark.parametrize("shape, output_size", [((2, 3, 5, 6, 7), (2, None, 3)), ((3, 4, 4, 4), 2),
                                                ((1, 2, 3, 5, 4), (4, 7, 1))])
def test_adaptive_pools_3d_match_pytorch(torch, shape, output_size):
    array = volume(*shape)
    check_with_gradients(torch, lambda x: F.adaptive_avg_pool3d(x, output_size),
                         lambda x: torch.nn.functional.adaptive_avg_pool3d(x, output_size), [array],
                         rtol=1e-5, atol=1e-6)
    values, indices = F.adaptive_max_pool3d(ember.tensor(array), output_size, return_indices=True)
    expected = torch.nn.functional.adaptive_max_pool3d(torch.tensor(array), output_size, return_indices=True)
    assert_close(values, expected[0])
    assert_close(indices, expected[1])
    check_with_gradients(torch, lambda x: F.adaptive_max_pool3d(x, output_size),
                         lambda x: torch.nn.functional.adaptive_max_pool3d(x, output_size), [array])


POOL_ERRORS = [
    lambda F, x: F.max_pool3d(x, 2, padding=2),
    lambda F, x: F.avg_pool3d(x, 2, padding=2),
    lambda F, x: F.max_pool3d(x, 7),
    lambda F, x: F.avg_pool3d(x, (6, 2, 2)),
    lambda F, x: F.max_pool3d(x[0, 0], 2),
    lambda F, x: F.avg_pool3d(x, 2, stride=0),
    lambda F, x: F.max_pool3d(x, 0, stride=1),
    lambda F, x: F.max_pool3d(x, 2, dilation=0),
    lambda F, x: F.max_pool3d(x, (2, 2)),
    lambda F, x: F.avg_pool3d(x, 2, stride=(1, 1)),
    lambda F, x: F.max_pool3d(x, 2, padding=-1),
    lambda F, x: F.avg_pool3d(x, 2, divisor_override=0),
    lambda F, x: F.max_pool3d(x.narrow(1, 0, 0), 2),
    lambda F, x: F.adaptive_avg_pool3d(x[0, 0], 2),
    lambda F, x: F.adaptive_avg_pool3d(x, (2, 2)),
    lambda F, x: F.adaptive_max_pool3d(x, (2, 2)),
    lambda F, x: F.adaptive_max_pool3d(x.narrow(2, 0, 0), 2),
]


@pytest.mark.parametrize("call", POOL_ERRORS)
def test_pool_errors_match_pytorch(torch, call):
    array = volume(1, 2, 5, 5, 5)
    raises_as_pytorch(lambda: call(F, ember.tensor(array)),
                      lambda: call(torch.nn.functional, torch.tensor(array)))


def test_pool_modules_match_pytorch(torch):
    array = volume(2, 2, 5, 6, 4)
    for make in (lambda nn: nn.MaxPool3d(2), lambda nn: nn.MaxPool3d((2, 3, 1), stride=1, padding=(1, 0, 0),
                                                                      dilation=2, ceil_mode=True),
                 lambda nn: nn.AvgPool3d(2), lambda nn: nn.AvgPool3d(3, 2, 1, True, False, 4),
                 lambda nn: nn.AdaptiveAvgPool3d((None, 2, 3)), lambda nn: nn.AdaptiveMaxPool3d(2)):
        ours, theirs = make(ember.nn), make(torch.nn)
        assert repr(ours) == repr(theirs)
        assert_close(ours(ember.tensor(array)), theirs(torch.tensor(array)), rtol=1e-5, atol=1e-6)
    values, indices = ember.nn.MaxPool3d(2, return_indices=True)(ember.tensor(array))
    assert_close(indices, torch.nn.MaxPool3d(2, return_indices=True)(torch.tensor(array))[1])


# --- unpooling

# Each input's size is the one its pool's output unpools to by default.
UNPOOLS = [(1, (2, 3, 8), dict(kernel_size=2)), (1, (3, 9), dict(kernel_size=3, stride=2, padding=1)),
           (2, (2, 3, 6, 8), dict(kernel_size=2)), (2, (3, 7, 6), dict(kernel_size=(3, 2), stride=(2, 1), padding=1)),
           (3, (2, 2, 4, 6, 6), dict(kernel_size=2)), (3, (2, 5, 5, 6), dict(kernel_size=(2, 3, 2), stride=(1, 2, 2)))]


def pools(module, spatial):
    return (getattr(module, f"max_pool{spatial}d"), getattr(module, f"max_unpool{spatial}d"))


@pytest.mark.parametrize("spatial, shape, window", UNPOOLS)
@pytest.mark.parametrize("given_size", [False, True])
def test_max_unpool_inverts_a_max_pool(torch, spatial, shape, window, given_size):
    array = volume(*shape)
    pool, unpool = pools(F, spatial)
    their_pool, their_unpool = pools(torch.nn.functional, spatial)
    pooled, indices = their_pool(torch.tensor(array), return_indices=True, **window)
    output_size = list(shape[-spatial:]) if given_size else None
    options = dict(window, output_size=output_size)
    check_with_gradients(torch, lambda x: unpool(x, ember.tensor(indices.numpy()), **options),
                         lambda x: their_unpool(x, indices, **options), [pooled.numpy()])
    ours_pooled, ours_indices = pool(ember.tensor(array), return_indices=True, **window)
    assert_close(unpool(ours_pooled, ours_indices, **options), their_unpool(pooled, indices, **options))


UNPOOL_ERRORS = [
    lambda F, v, i: F.max_unpool2d(v, i + 100, 2),
    lambda F, v, i: F.max_unpool2d(v, i - 100, 2),
    lambda F, v, i: F.max_unpool2d(v, i[..., :1], 2),
    lambda F, v, i: F.max_unpool2d(v, i, 2, output_size=(9, 9)),
    lambda F, v, i: F.max_unpool2d(v, i, 2, output_size=(1, 2, 3)),
    lambda F, v, i: F.max_unpool2d(v[0, 0], i[0, 0], 2),
    lambda F, v, i: F.max_unpool1d(v[0], i[0], 2),
    lambda F, v, i: F.max_unpool1d(v[0], i[0] + 50, 2),
    lambda F, v, i: F.max_unpool3d(v[0], i[0], 2),
]


@pytest.mark.parametrize("call", UNPOOL_ERRORS)
def test_unpool_errors_match_pytorch(torch, call):
    array = volume(1, 2, 4, 4)
    pooled, indices = torch.nn.functional.max_pool2d(torch.tensor(array), 2, return_indices=True)
    raises_as_pytorch(lambda: call(F, ember.tensor(pooled.numpy()), ember.tensor(indices.numpy())),
                      lambda: call(torch.nn.functional, pooled, indices))


def test_unpool_checks_the_index_dtype():
    pooled, indices = F.max_pool2d(ember.ones(1, 1, 2, 2), 2, return_indices=True)
    with pytest.raises(RuntimeError, match="elements in indices should be type int64"):
        F.max_unpool2d(pooled, indices.to(ember.float32), 2)


def test_unpool_modules_match_pytorch(torch):
    array = volume(2, 3, 6, 4)
    for spatial, options in [(1, dict(kernel_size=2)), (2, dict(kernel_size=2, stride=1, padding=1)),
                             (3, dict(kernel_size=(2, 1, 2)))]:
        ours = getattr(ember.nn, f"MaxUnpool{spatial}d")(**options)
        theirs = getattr(torch.nn, f"MaxUnpool{spatial}d")(**options)
        assert repr(ours) == repr(theirs)
        assert ours.kernel_size == theirs.kernel_size and ours.stride == theirs.stride
        data = array.reshape(array.shape[:2] + (-1,)) if spatial == 1 else array[None] if spatial == 3 else array
        pool = getattr(torch.nn.functional, f"max_pool{spatial}d")
        pooled, indices = pool(torch.tensor(data), options["kernel_size"], options.get("stride"),
                               options.get("padding", 0), return_indices=True)
        size = list(data.shape)
        assert_close(ours(ember.tensor(pooled.numpy()), ember.tensor(indices.numpy()), output_size=size),
                     theirs(pooled, indices, output_size=size))
