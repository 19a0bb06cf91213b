"""F.embedding_bag and nn.EmbeddingBag, and the table options F.embedding
and nn.Embedding share with them (max_norm, scale_grad_by_freq,
from_pretrained), against PyTorch: values, gradients of the table and of
per_sample_weights, module state and errors."""

import numpy
import pytest

import ember
import ember.nn.functional as F
from helpers import assert_close, check_with_gradients

RNG = numpy.random.default_rng(5)
TABLE = RNG.standard_normal((7, 3))
FLAT = numpy.array([1, 2, 4, 5, 4, 3, 2, 0, 6, 6])
OFFSETS = numpy.array([0, 4, 4, 7])


def bag_case(torch, mode, input, offsets=None, per_sample_weights=None, **options):
    arrays = [TABLE, input] + ([] if offsets is None else [offsets])
    grad = (True,)
    if per_sample_weights is not None:
        arrays.append(per_sample_weights)
        grad = (True, False, False, True)

    def call(functional):
        def run(weight, input, *rest):
            offsets_ = rest[0] if offsets is not None else None
            weights = rest[-1] if per_sample_weights is not None else None
            return functional(input, weight, offsets_, mode=mode, per_sample_weights=weights, **options)
        return run

    check_with_gradients(torch, call(F.embedding_bag), call(torch.nn.functional.embedding_bag), arrays, grad)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_bags_of_a_flat_input_with_offsets_match_pytorch(torch, mode):
    bag_case(torch, mode, FLAT, OFFSETS)
    bag_case(torch, mode, FLAT, OFFSETS, padding_idx=4)
    bag_case(torch, mode, FLAT, numpy.array([0, 4, 4, 10]), padding_idx=-1, include_last_offset=True)
    bag_case(torch, mode, FLAT.astype(numpy.int32), OFFSETS.astype(numpy.int32))


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_bags_of_a_2d_input_match_pytorch(torch, mode):
    bag_case(torch, mode, FLAT.reshape(2, 5))
    bag_case(torch, mode, FLAT.reshape(5, 2), padding_idx=2)


def test_per_sample_weights_scale_rows_in_sum_mode(torch):
    bag_case(torch, "sum", FLAT, OFFSETS, RNG.standard_normal(FLAT.shape))
    bag_case(torch, "sum", FLAT.reshape(2, 5), None, RNG.standard_normal((2, 5)), padding_idx=6)


def test_the_last_offset_ends_the_last_bag():
    # PyTorch's CPU kernel lets the elements after offsets[-1] into the last
    # bag's mean and max (but not its sum); its documentation, which Ember
    # follows, says offsets[-1] is where the last bag ends.
    table = ember.tensor(TABLE)
    input, offsets = ember.tensor(FLAT), ember.tensor([0, 2, 5])
    for mode in ("sum", "mean", "max"):
        whole = F.embedding_bag(input[:5], table, offsets[:2], mode=mode)
        assert_close(F.embedding_bag(input, table, offsets, mode=mode, include_last_offset=True), whole)


def test_empty_bags_and_bags_of_padding_are_zero(torch):
    table = ember.tensor(TABLE)
    for mode in ("sum", "mean", "max"):
        result = F.embedding_bag(ember.tensor([3, 3, 1]), table, ember.tensor([0, 0, 2, 3]), mode=mode, padding_idx=3)
        expected = torch.nn.functional.embedding_bag(torch.tensor([3, 3, 1]), torch.tensor(TABLE),
                                                     torch.tensor([0, 0, 2, 3]), mode=mode, padding_idx=3)
        assert_close(result, expected)
        assert F.embedding_bag(ember.tensor([], dtype=ember.int64), table, ember.tensor([0, 0]),
                               mode=mode).tolist() == [[0.0] * 3] * 2


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_scale_grad_by_freq_divides_a_rows_gradient_by_its_count(torch, mode):
    # The reference is F.embedding's scaling reduced over each bag: PyTorch's
    # embedding_bag kernel divides some rows by another index's count.
    input = FLAT.reshape(2, 5)
    theirs_table = torch.tensor(TABLE, requires_grad=True)
    rows = torch.nn.functional.embedding(torch.tensor(input), theirs_table, scale_grad_by_freq=True)
    expected = rows.sum(1) if mode == "sum" else rows.mean(1)
    table = ember.tensor(TABLE).requires_grad_()
    result = F.embedding_bag(ember.tensor(input), table, mode=mode, scale_grad_by_freq=True)
    assert_close(result, expected.detach())
    upstream = RNG.standard_normal((2, 3))
    (result * ember.tensor(upstream)).sum().backward()
    (expected * torch.tensor(upstream)).sum().backward()
    assert_close(table.grad, theirs_table.grad)


def test_embedding_scales_gradients_by_frequency_as_pytorch(torch):
    check_with_gradients(torch, lambda w, i: F.embedding(i, w, scale_grad_by_freq=True, padding_idx=-1),
                         lambda w, i: torch.nn.functional.embedding(i, w, scale_grad_by_freq=True, padding_idx=-1),
                         [TABLE, FLAT.reshape(2, 5)])


@pytest.mark.parametrize("max_norm, norm_type", [(1.0, 2.0), (1.5, 1.0)])
def test_max_norm_renormalises_the_rows_read_in_place(torch, max_norm, norm_type):
    ours, theirs = ember.tensor(TABLE * 2), torch.tensor(TABLE * 2)
    input = numpy.array([[1, 2, 1], [5, 2, 0]])
    assert_close(F.embedding(ember.tensor(input), ours, max_norm=max_norm, norm_type=norm_type),
                 torch.nn.functional.embedding(torch.tensor(input), theirs, max_norm=max_norm, norm_type=norm_type))
    assert_close(ours, theirs)
    assert_close(F.embedding_bag(ember.tensor(FLAT), ours, ember.tensor(OFFSETS), max_norm=max_norm / 2),
                 torch.nn.functional.embedding_bag(torch.tensor(FLAT), theirs, torch.tensor(OFFSETS),
                                                   max_norm=max_norm / 2))
    assert_close(ours, theirs)


def test_embedding_bag_module_loads_pytorch_weights(torch):
    options = {"mode": "max", "padding_idx": 2, "max_norm": 3.0, "include_last_offset": True}
    theirs = torch.nn.EmbeddingBag(7, 3, **options)
    ours = ember.nn.EmbeddingBag(7, 3, **options)
    assert repr(ours) == repr(theirs)
    assert float(ours.weight[2].abs().sum()) == 0.0
    ours.load_state_dict({key: ember.tensor(value.numpy()) for key, value in theirs.state_dict().items()})
    offsets = numpy.array([0, 3, 3, 10])
    assert_close(ours(ember.tensor(FLAT), ember.tensor(offsets)), theirs(torch.tensor(FLAT), torch.tensor(offsets)))
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert ember.nn.modules.sparse.EmbeddingBag is ember.nn.EmbeddingBag
    assert repr(ember.nn.EmbeddingBag(10, 3)) == repr(torch.nn.EmbeddingBag(10, 3))


def test_from_pretrained_shares_the_table_and_freezes_it(torch):
    table = ember.tensor(TABLE)
    for cls, theirs_cls in ((ember.nn.EmbeddingBag, torch.nn.EmbeddingBag), (ember.nn.Embedding, torch.nn.Embedding)):
        frozen, trained = cls.from_pretrained(table), cls.from_pretrained(table, freeze=False, max_norm=2.0)
        assert not frozen.weight.requires_grad and trained.weight.requires_grad
        assert frozen.weight.data_ptr() == table.data_ptr()
        assert repr(trained) == repr(theirs_cls.from_pretrained(torch.tensor(TABLE), freeze=False, max_norm=2.0))
        with pytest.raises(AssertionError, match="expected to be 2-dimensional"):
            cls.from_pretrained(table[0])
        with pytest.raises(AssertionError, match="Shape of weight does not match"):
            cls(6, 3, _weight=table)
    bag = ember.nn.EmbeddingBag.from_pretrained(table, mode="sum")
    assert_close(bag(ember.tensor([[1, 2]])), table[1:3].sum(0, keepdim=True))


def test_modules_check_padding_idx_as_pytorch(torch):
    for cls, message in (("Embedding", "Padding_idx must be within"), ("EmbeddingBag", "padding_idx must be within")):
        for padding_idx in (7, -8):
            with pytest.raises(AssertionError, match=message):
                getattr(ember.nn, cls)(7, 3, padding_idx=padding_idx)
            with pytest.raises(AssertionError, match=message):
                getattr(torch.nn, cls)(7, 3, padding_idx=padding_idx)
    assert ember.nn.EmbeddingBag(7, 3, padding_idx=-2).padding_idx == 5
    options = {"max_norm": 1.0, "norm_type": 3.0, "scale_grad_by_freq": True, "padding_idx": 1}
    assert repr(ember.nn.Embedding(10, 3, **options)) == repr(torch.nn.Embedding(10, 3, **options))


LONG, FLOAT = numpy.int64, numpy.float32
BAD_ARGUMENTS = [
    ({"offsets": [1, 4]}, RuntimeError, "offsets.0. has to be 0, i.e., the first sequence"),
    ({"offsets": [0, 11]}, RuntimeError, "offsets.-1. can not be greater than input's length 10 but got offsets.-1. "
                                         "of 11"),
    ({"input": FLAT.reshape(2, 5)}, ValueError, "if input is 2D, then offsets has to be None"),
    ({"offsets": None}, ValueError, "offsets has to be a 1D Tensor but got None"),
    ({"offsets": [[0]]}, ValueError, "offsets has to be a 1D Tensor$"),
    ({"input": FLAT.reshape(1, 2, 5), "offsets": None}, ValueError, "input has to be 1D or 2D Tensor, but got Tensor "
                                                                      "of dimension 3"),
    ({"mode": "median"}, ValueError, "mode has to be one of sum, mean or max"),
    ({"mode": "max", "scale_grad_by_freq": True}, ValueError, "max mode does not support scaling the gradient"),
    ({"mode": "max", "sparse": True}, ValueError, "max mode does not support sparse weights"),
    ({"per_sample_weights": numpy.ones(10)}, NotImplementedError, "per_sample_weights is only supported for "
                                                                  "mode='sum' .got mode='mean'."),
    ({"mode": "sum", "per_sample_weights": numpy.ones(9)}, ValueError, "If per_sample_weights .* must have the same "
                                                                       "shape as the input"),
    ({"weight": TABLE[0]}, ValueError, "weight has to be a 2D Tensor, but got Tensor of dimension 1"),
    ({"padding_idx": 7}, RuntimeError, "padding_idx must be within the number of embeddings, -7 through 6, but "
                                       "got 7"),
]


def call_bag(library, input=FLAT, weight=TABLE, offsets=OFFSETS, per_sample_weights=None, **options):
    def tensor(value, dtype=None):
        return None if value is None else library.tensor(numpy.asarray(value, dtype=dtype))
    return library.nn.functional.embedding_bag(tensor(input, LONG), tensor(weight), tensor(offsets, LONG),
                                               per_sample_weights=tensor(per_sample_weights), **options)


@pytest.mark.parametrize("arguments, error, message", BAD_ARGUMENTS)
def test_bad_arguments_raise_as_pytorch(torch, arguments, error, message):
    with pytest.raises(error, match=message):
        call_bag(ember, **arguments)
    with pytest.raises(error, match=message):
        call_bag(torch, **arguments)


def test_indices_outside_the_table_are_named_by_position(torch):
    # PyTorch's message differs between its kernels; its error type does not.
    for input, message in (([1, 7], r"Index 1 of input takes value 7 which is not in the valid range \[0, 7\)"),
                           ([-1, 2], "Index 0 of input takes value -1")):
        with pytest.raises(RuntimeError, match=message):
            call_bag(ember, input=input, offsets=[0, 1])
        with pytest.raises(RuntimeError):
            call_bag(torch, input=input, offsets=[0, 1])


def test_bad_dtypes_and_what_ember_does_not_have_are_refused():
    with pytest.raises(RuntimeError, match="embedding_bag: expected input of dtype int64 or int32, but got float32"):
        F.embedding_bag(ember.tensor(FLAT.astype(FLOAT)), ember.tensor(TABLE), ember.tensor(OFFSETS))
    with pytest.raises(RuntimeError, match="expected a floating weight, but got int64"):
        F.embedding_bag(ember.tensor(FLAT), ember.tensor(TABLE.astype(LONG)), ember.tensor(OFFSETS))
    with pytest.raises(RuntimeError, match="expected per_sample_weights of weight's dtype float64, but got float32"):
        F.embedding_bag(ember.tensor(FLAT), ember.tensor(TABLE), ember.tensor(OFFSETS), mode="sum",
                        per_sample_weights=ember.ones(10))
    with pytest.raises(RuntimeError, match=r"offsets have to be non-decreasing, but offsets\[1\] = 5 is greater"):
        F.embedding_bag(ember.tensor(FLAT), ember.tensor(TABLE), ember.tensor([0, 5, 4]))
    for call in (lambda: F.embedding_bag(ember.tensor(FLAT), ember.tensor(TABLE), ember.tensor(OFFSETS), sparse=True),
                 lambda: F.embedding(ember.tensor(FLAT), ember.tensor(TABLE), sparse=True)):
        with pytest.raises(NotImplementedError, match="sparse gradients are not supported"):
            call()
