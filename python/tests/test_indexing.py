"""x[index] and x[index] = v against NumPy, for basic (view) and advanced indices."""

import pytest

import ember
from helpers import assert_close

BASIC = [
    (1,), (-1,), (slice(None),), (slice(1, None),), (slice(None, None, 2),), (slice(-3, -1),),
    (1, 2), (slice(None), 1), (Ellipsis, 0), (None, 1), (0, None, slice(None), None), (slice(None, None, 3), Ellipsis, 1),
    (slice(5, 1),), (Ellipsis,), (1, Ellipsis, None),
]
ADVANCED = [
    ([0, 2],), ([[0, 1], [2, 2]],), (slice(None), [1, 0, 1]), ([0, 1], [1, 2]), ([0, 2], slice(None), [1, 3]),
    (1, [0, 2]), (Ellipsis, [4, 0]), ([True, False, True],), (slice(None), [True, False, True, True]),
]


@pytest.fixture
def arrays(np, device):
    base = np.arange(3 * 4 * 5, dtype=np.float32).reshape(3, 4, 5)
    return base, ember.tensor(base, device=device)


def as_ember_index(index):
    return tuple(ember.tensor(item) if isinstance(item, list) and item and isinstance(item[0], bool) else item
                 for item in index)


@pytest.mark.parametrize("index", BASIC, ids=str)
def test_basic_indexing_is_a_view(arrays, index):
    base, x = arrays
    result = x[index if len(index) > 1 else index[0]]
    assert_close(result, base[index])
    assert result.is_alias_of(x)


@pytest.mark.parametrize("index", ADVANCED, ids=str)
def test_advanced_indexing(arrays, np, index):
    base, x = arrays
    numpy_index = tuple(np.array(i) if isinstance(i, list) else i for i in index)
    assert_close(x[as_ember_index(index) if len(index) > 1 else as_ember_index(index)[0]], base[numpy_index])


def test_index_with_tensors_and_masks(np, device):
    base = np.arange(12, dtype=np.int64).reshape(3, 4)
    x = ember.tensor(base, device=device)
    assert_close(x[x > 5], base[base > 5])
    assert_close(x[ember.tensor([2, 0])], base[[2, 0]])
    assert_close(x[ember.tensor([[0], [2]]), ember.tensor([1, 3])], base[[[0], [2]], [1, 3]])
    assert_close(x[np.array([1, 1])], base[[1, 1]])


@pytest.mark.parametrize("index", BASIC[:12] + ADVANCED, ids=str)
def test_index_assignment(arrays, np, index):
    base, x = arrays
    numpy_index = tuple(np.array(i) if isinstance(i, list) else i for i in index)
    base = base.copy()
    base[numpy_index] = -1
    x[as_ember_index(index)] = -1
    assert_close(x, base)
    shape = base[numpy_index].shape
    values = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) + 100
    base[numpy_index] = values
    x[as_ember_index(index)] = ember.tensor(values)
    assert_close(x, base)


def test_assignment_broadcasts_and_converts(np):
    x = ember.zeros(2, 3)
    x[:, 1] = ember.tensor([5, 6])
    x[0] = 1.5
    x[1, [0, 2]] = ember.tensor(9.0)
    assert x.tolist() == [[1.5, 1.5, 1.5], [9.0, 6.0, 9.0]]
    x[x > 5] = 0
    assert x.tolist() == [[1.5, 1.5, 1.5], [0.0, 0.0, 0.0]]


def test_index_put_accumulates(torch):
    x, tx = ember.zeros(5), torch.zeros(5)
    index, tindex = ember.tensor([0, 1, 1, 4]), torch.tensor([0, 1, 1, 4])
    values, tvalues = ember.tensor([1.0, 2.0, 3.0, 4.0]), torch.tensor([1.0, 2.0, 3.0, 4.0])
    assert_close(x.index_put((index,), values, accumulate=True), tx.index_put((tindex,), tvalues, accumulate=True))
    x.index_put_([index], values, accumulate=True)
    assert x.tolist() == [1.0, 5.0, 0.0, 0.0, 4.0]


def test_indexing_errors():
    x = ember.zeros(2, 3)
    with pytest.raises(IndexError, match="too many indices"):
        x[0, 0, 0]
    with pytest.raises(IndexError, match="out of range"):
        x[5]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        x[::-1]
    with pytest.raises(IndexError, match="single ellipsis"):
        x[..., ...]
    with pytest.raises(TypeError, match="valid indices"):
        x["a"]


def test_gradient_flows_through_indexing(torch):
    x = ember.arange(6.0).reshape(2, 3).requires_grad_()
    (x[0, 1:] * 2).sum().backward()
    (x[[1, 1]] * 3).sum().backward()
    assert x.grad.tolist() == [[0.0, 2.0, 2.0], [6.0, 6.0, 6.0]]
