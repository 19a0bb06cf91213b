"""Factories against PyTorch: shapes, dtypes, values, devices, requires_grad."""

import pytest

import ember
from helpers import assert_close


def test_shaped_factories(torch, device):
    for name in ("zeros", "ones", "empty", "rand", "randn"):
        factory = getattr(ember, name)
        for args in ((2, 3), ((2, 3),), ([4],), ((),)):
            t = factory(*args, device=device)
            assert t.shape == tuple(getattr(torch, name)(*args).shape) and t.dtype is ember.float32
        assert factory(2, dtype=ember.float64).dtype is ember.float64
        assert factory(2, requires_grad=True).requires_grad
    assert_close(ember.zeros(2, 3, dtype=ember.int16), torch.zeros(2, 3, dtype=torch.int16))
    assert_close(ember.ones(3, dtype=ember.bool), torch.ones(3, dtype=torch.bool))


def test_full_infers_dtype_from_the_value(torch):
    for value in (7, 2.5, True):
        assert_close(ember.full((2, 2), value), torch.full((2, 2), value))
    assert_close(ember.full((2,), 3, dtype=ember.float16), torch.full((2,), 3, dtype=torch.float16))


@pytest.mark.parametrize("args", [(5,), (2, 9), (1, 2, 0.25), (0.5, 3), (10, 0, -3), (-1.0, 1.0, 0.4)])
def test_arange(torch, args):
    assert_close(ember.arange(*args), torch.arange(*args))
    assert_close(ember.arange(*args, dtype=ember.float64), torch.arange(*args, dtype=torch.float64))


@pytest.mark.parametrize("args", [(0, 1, 5), (-2.5, 7, 11), (3, -3, 4), (1, 1, 1), (0, 10, 0), (0, 1, 1001)])
def test_linspace(torch, args):
    assert_close(ember.linspace(*args), torch.linspace(*args), rtol=1e-6, atol=1e-6)
    assert_close(ember.linspace(*args, dtype=ember.float64), torch.linspace(*args, dtype=torch.float64),
                 rtol=1e-12, atol=1e-12)


def test_eye(torch):
    for args in ((3,), (2, 4), (4, 2), (0,)):
        assert_close(ember.eye(*args), torch.eye(*args))
    assert_close(ember.eye(3, dtype=ember.int64), torch.eye(3, dtype=torch.int64))


def test_like_factories(torch):
    base, tbase = ember.ones(2, 3, dtype=ember.float64), torch.ones(2, 3, dtype=torch.float64)
    for name in ("zeros_like", "ones_like", "empty_like", "rand_like", "randn_like"):
        t = getattr(ember, name)(base)
        assert t.shape == base.shape and t.dtype is ember.float64
    assert_close(ember.full_like(base, 4), torch.full_like(tbase, 4))
    assert ember.zeros_like(base, dtype=ember.int8).dtype is ember.int8
    ints = ember.randint_like(base, 5)
    assert ints.dtype is ember.float64 and 0 <= float(ints.amin()) and float(ints.amax()) <= 4


def test_random_numbers_are_seeded_and_distributed():
    ember.manual_seed(123)
    first = ember.rand(1000)
    ember.manual_seed(123)
    assert ember.rand(1000).tolist() == first.tolist()
    assert 0.0 <= float(first.amin()) and float(first.amax()) < 1.0 and abs(float(first.mean()) - 0.5) < 0.05
    normal = ember.randn(20000)
    assert abs(float(normal.mean())) < 0.05 and abs(float(normal.std()) - 1) < 0.05
    ints = ember.randint(3, 7, (5000,))
    assert ints.dtype is ember.int64 and sorted(set(ints.tolist())) == [3, 4, 5, 6]
    assert ember.randint(10, (2, 2)).shape == (2, 2)
    assert sorted(ember.randperm(8).tolist()) == list(range(8))
    with pytest.raises(ValueError, match="high"):
        ember.randint(5, 5, (1,))


def test_tensor_copies_its_input(np, torch):
    array = np.arange(3.0)
    t = ember.tensor(array)
    array[0] = 9
    assert t.tolist() == [0.0, 1.0, 2.0] and t.dtype is ember.float64
    source = torch.arange(3)
    copy = ember.tensor(source, dtype=ember.float32)
    source[0] = 5
    assert copy.tolist() == [0.0, 1.0, 2.0]
    e = ember.ones(2, requires_grad=True)
    c = ember.tensor(e)
    assert not c.requires_grad and not c.is_alias_of(e)
    assert ember.as_tensor(e) is not None and ember.as_tensor(e).is_alias_of(e)
    assert ember.scalar_tensor(2).dtype is ember.int64 and ember.tensor(2.0).dim() == 0


def test_empty_strided_gives_the_strides_asked_for(torch):
    for size, stride in (((2, 3), (1, 2)), ((2, 0), (1, 2)), ((), ()), ((3,), (0,)), ((2, 2, 2), (4, 1, 2))):
        ours, theirs = ember.empty_strided(size, stride), torch.empty_strided(size, stride)
        assert (tuple(ours.shape), ours.stride()) == (tuple(theirs.shape), theirs.stride())
    assert ember.empty_strided((2,), (1,), dtype=ember.int64, requires_grad=False).dtype == ember.int64
    with pytest.raises(RuntimeError, match=r"dimensionality of sizes \(2\) must match dimensionality of strides "
                                           r"\(1\)"):
        ember.empty_strided((2, 3), (1,))
