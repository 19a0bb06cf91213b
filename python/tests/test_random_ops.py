"""Random sampling composites: multinomial, bernoulli, normal's overloads,
bernoulli_, exponential_, random_ and randperm, with and without a
Generator. Draws are checked by their support, their repeatability from a
seed, and their frequencies within several standard errors (fixed seeds, so
no test is flaky)."""

import math

import pytest

import ember


def frequencies(samples, categories):
    flat = samples.reshape(-1)
    return [float((flat == k).sum().item()) / flat.numel() for k in range(categories)]


def test_multinomial_with_replacement_follows_the_weights(device):
    generator = ember.Generator().manual_seed(1)
    weights = ember.tensor([1.0, 2.0, 0.0, 5.0], device=device)
    samples = ember.multinomial(weights, 8000, replacement=True, generator=generator)
    assert samples.dtype == ember.int64 and list(samples.shape) == [8000]
    for observed, expected in zip(frequencies(samples, 4), [1 / 8, 2 / 8, 0, 5 / 8]):
        assert abs(observed - expected) < 5 * math.sqrt(expected * (1 - expected) / 8000) + 1e-12
    rows = weights.expand(3, 4).multinomial(5, True)
    assert list(rows.shape) == [3, 5] and not bool((rows == 2).any())


def test_multinomial_without_replacement_draws_distinct_categories(device):
    ember.manual_seed(7)
    weights = ember.tensor([[1.0, 2.0, 0.0, 5.0]], device=device).expand(3000, 4)
    samples = ember.multinomial(weights, 3)
    assert list(samples.shape) == [3000, 3]
    rows = samples.tolist()
    assert all(len(set(row)) == 3 and 2 not in row for row in rows)
    first = [row[0] for row in rows]
    assert abs(first.count(3) / 3000 - 5 / 8) < 5 * math.sqrt(5 / 8 * 3 / 8 / 3000)
    # A zero weight is drawn only when nothing else is left, as in PyTorch.
    assert sorted(ember.multinomial(ember.tensor([0.0, 1.0, 0.0], device=device), 3).tolist())[0] == 0
    assert ember.multinomial(ember.tensor([0.0, 1.0, 0.0], device=device), 1).tolist() == [1]


def test_generators_make_draws_repeatable(device):
    def draws(seed):
        g = ember.Generator().manual_seed(seed)
        weights = ember.tensor([1.0, 1.0, 1.0], device=device)
        return [ember.multinomial(weights, 4, True, generator=g).tolist(),
                ember.bernoulli(ember.full((6,), 0.5, device=device), generator=g).tolist(),
                ember.normal(ember.zeros(3, device=device), 1.0, generator=g).tolist(),
                ember.empty(4, device=device).exponential_(generator=g).tolist(),
                ember.empty(4, device=device).random_(0, 100, generator=g).tolist(),
                ember.randperm(6, generator=g, device=device).tolist()]

    assert draws(3) == draws(3)
    assert draws(3) != draws(4)


def test_bernoulli_forms(device):
    ember.manual_seed(0)
    p = ember.tensor([0.0, 1.0, 0.3], device=device).expand(4000, 3)
    draws = ember.bernoulli(p)
    assert draws.dtype == ember.float32
    means = draws.mean(0).tolist()
    assert means[0] == 0 and means[1] == 1 and abs(means[2] - 0.3) < 5 * math.sqrt(0.21 / 4000)
    assert ember.bernoulli(ember.ones(5, device=device), 0.0).tolist() == [0.0] * 5
    ints = ember.zeros(2000, dtype=ember.int64, device=device).bernoulli_(0.25)
    assert ints.dtype == ember.int64 and set(ints.tolist()) <= {0, 1}
    assert abs(ints.float().mean().item() - 0.25) < 5 * math.sqrt(0.25 * 0.75 / 2000)
    per_element = ember.empty(3, device=device).bernoulli_(ember.tensor([0.0, 1.0, 0.0], device=device))
    assert per_element.tolist() == [0.0, 1.0, 0.0]


def test_exponential_and_random_ranges(device):
    ember.manual_seed(0)
    rates = ember.empty(5000, dtype=ember.float64, device=device).exponential_(2.0)
    assert bool((rates >= 0).all()) and abs(rates.mean().item() - 0.5) < 5 * 0.5 / math.sqrt(5000)
    assert set(ember.empty(200, device=device).random_(3, 6).tolist()) == {3.0, 4.0, 5.0}
    assert set(ember.empty(200, dtype=ember.int64, device=device).random_(4).tolist()) == {0, 1, 2, 3}
    bytes_ = ember.empty(500, dtype=ember.uint8, device=device).random_()
    assert bytes_.dtype == ember.uint8 and max(bytes_.tolist()) > 128
    assert set(ember.empty(50, dtype=ember.bool, device=device).random_().tolist()) == {False, True}
    # int64's whole range is wider than float64's integers: drawn exactly.
    longs = ember.empty(200, dtype=ember.int64, device=device).random_().tolist()
    assert min(longs) >= 0 and max(longs) > 2**62 and len(set(longs)) == 200


def test_normal_overloads_broadcast_and_pass_zero_gradients(torch, device):
    ember.manual_seed(0)
    mean = ember.zeros(2, 1, device=device).requires_grad_()
    std = ember.ones(3, device=device).requires_grad_()
    out = ember.normal(mean, std)
    assert list(out.shape) == list(torch.normal(torch.zeros(2, 1), torch.ones(3)).shape)
    out.sum().backward()
    assert mean.grad.tolist() == [[0.0], [0.0]] and std.grad.tolist() == [0.0, 0.0, 0.0]
    assert list(ember.normal(2.0, ember.ones(3, device=device)).shape) == [3]
    assert list(ember.normal(ember.ones(3, device=device)).shape) == [3]
    big = ember.normal(3.0, 2.0, (20000,), dtype=ember.float64, device=device)
    assert big.dtype == ember.float64 and big.device == ember.device(device)
    assert abs(big.mean().item() - 3.0) < 5 * 2 / math.sqrt(20000)
    assert abs(big.std().item() - 2.0) < 0.1
    assert ember.normal(1.0, 0.0, size=(2,), device=device).tolist() == [1.0, 1.0]


@pytest.mark.parametrize("call,error", [
    ("T.multinomial(T.tensor([1., -1.]), 1)", RuntimeError),
    ("T.multinomial(T.tensor([0., 0.]), 1)", RuntimeError),
    ("T.multinomial(T.tensor([1., 1.]), 3)", RuntimeError),
    ("T.multinomial(T.ones(2, 2, 2), 1)", RuntimeError),
    ("T.multinomial(T.tensor([1, 2]), 1)", RuntimeError),
    ("T.multinomial(T.tensor([1., 2.]), 0)", RuntimeError),
    ("T.bernoulli(T.tensor([1.5]))", RuntimeError),
    ("T.ones(2).bernoulli_(1.5)", RuntimeError),
    ("T.ones(2).exponential_(0)", RuntimeError),
    ("T.ones(2, dtype=T.int64).exponential_()", RuntimeError),
    ("T.ones(3).random_(5, 3)", RuntimeError),
    ("T.normal(T.ones(2), -1.)", RuntimeError),
    ("T.normal(T.ones(2), -T.ones(2))", RuntimeError),
    ("T.normal(T.ones(2), T.ones(3))", RuntimeError),
    ("T.normal(0., 1.)", TypeError),
])
def test_bad_arguments_raise_as_pytorch_does(torch, call, error):
    for library in (torch, ember):
        with pytest.raises(error):
            eval(call, {"T": library})  # noqa: S307 - fixed test data
