"""ember.tensor(data) over nested sequences that hold tensors: a tensor where
a number belongs is that one number, as in PyTorch."""

import pytest

import ember

from helpers import assert_close


@pytest.mark.parametrize("make", [
    lambda T: T.tensor([T.ones(1), T.ones(1)]),
    lambda T: T.tensor([T.tensor(1), T.tensor(2)]),
    lambda T: T.tensor([T.tensor(1.5), 2]),
    lambda T: T.tensor([T.ones(1, 1)]),
    lambda T: T.tensor([[T.ones(1)], [T.tensor(2.0)]]),
    lambda T: T.tensor([T.tensor(1, dtype=T.int8), T.tensor(2, dtype=T.int8)]),
    lambda T: T.tensor([T.tensor(1, dtype=T.int8), 2]),
    lambda T: T.tensor([T.tensor(1.5, dtype=T.float16), T.tensor(1, dtype=T.int32)]),
    lambda T: T.tensor([T.tensor(True), 2]),
    lambda T: T.tensor([[1, 2], T.arange(2)]),  # a tensor where a sequence belongs is one
    lambda T: T.tensor([T.ones(1, requires_grad=True)]),
    lambda T: T.tensor([T.arange(3)[1], T.arange(3)[2]], dtype=T.float64),
], ids=["one-element", "0-d-int", "mixed", "1x1", "nested", "int8", "int8-and-int", "float16-and-int32",
        "bool-and-int", "as-sequence", "requires-grad", "dtype"])
def test_tensors_inside_sequences_are_numbers(make, torch):
    assert_close(make(ember), make(torch))


@pytest.mark.parametrize("make", [
    lambda T: T.tensor([T.ones(2), T.ones(2)]),
    lambda T: T.tensor([T.ones(0)]),
    lambda T: T.tensor([[T.ones(2, 2)]]),
], ids=["two-elements", "empty", "matrix"])
def test_tensors_of_several_elements_where_a_number_belongs(make, torch):
    with pytest.raises(ValueError, match="only one element tensors"):
        make(torch)
    with pytest.raises(ValueError, match=r"only one element tensors .* shape \["):
        make(ember)


def test_many_temporary_elements_stay_alive():
    # Iterating a tensor makes a new object per element; each must outlive its use.
    rows = [ember.arange(3) + i for i in range(50)]
    assert ember.tensor([[r[0], r[1], r[2]] for r in rows]).tolist() == [[i, i + 1, i + 2] for i in range(50)]
    assert ember.tensor([[1, 2], ember.arange(2)]).tolist() == [[1, 2], [0, 1]]
