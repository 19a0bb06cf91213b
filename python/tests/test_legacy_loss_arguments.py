"""The losses' PyTorch signatures: the legacy `size_average` and `reduce`
arguments (older programs still pass them; they decide the reduction and
warn), positional arguments in PyTorch's order, and the elementwise weights
of mse_loss, l1_loss and huber_loss, against PyTorch 2.13."""

import inspect
import warnings

import numpy
import pytest

import ember
import ember.nn.functional as F

from helpers import assert_close

LEGACY = [(None, False), (False, None), (False, True), (True, False), (True, True), (None, None)]


def _pair(torch, shape=(4, 3)):
    rng = numpy.random.default_rng(1)
    a, b = rng.standard_normal(shape).astype(numpy.float32), rng.standard_normal(shape).astype(numpy.float32)
    return (ember.tensor(a), ember.tensor(b)), (torch.tensor(a), torch.tensor(b))


@pytest.mark.parametrize("size_average,reduce", LEGACY)
@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "soft_margin_loss", "kl_div"])
def test_legacy_arguments_choose_the_reduction(torch, name, size_average, reduce):
    ours, theirs = _pair(torch)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = getattr(F, name)(*ours, size_average=size_average, reduce=reduce)
    expected = getattr(torch.nn.functional, name)(*theirs, size_average=size_average, reduce=reduce)
    assert_close(result, expected)
    legacy = size_average is not None or reduce is not None
    reduction = "none" if reduce is False else "sum" if size_average is False else "mean"
    messages = [w for w in caught if "size_average" in str(w.message)]
    assert [str(w.message) for w in messages] == (
        [f"size_average and reduce args will be deprecated, please use reduction='{reduction}' instead."]
        if legacy else [])
    assert all(w.filename == __file__ for w in messages)


def test_legacy_arguments_on_class_losses_and_positional_order(torch):
    rng = numpy.random.default_rng(2)
    logits = rng.standard_normal((5, 4)).astype(numpy.float32)
    target = numpy.array([0, 3, 1, 2, 3])
    weight = rng.random(4).astype(numpy.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for cls in ("CrossEntropyLoss", "NLLLoss"):
            # weight, size_average, ignore_index, reduce: PyTorch's positional order.
            ours = getattr(ember.nn, cls)(ember.tensor(weight), False, 3, True)
            theirs = getattr(torch.nn, cls)(torch.tensor(weight), False, 3, True)
            assert ours.reduction == theirs.reduction == "sum" and ours.ignore_index == 3
            assert_close(ours(ember.tensor(logits).log_softmax(1), ember.tensor(target)),
                         theirs(torch.tensor(logits).log_softmax(1), torch.tensor(target)))
        assert ember.nn.MSELoss(reduce=False).reduction == "none"
        assert ember.nn.KLDivLoss(size_average=False).reduction == "sum"
        assert ember.nn.PoissonNLLLoss(True, False, None, 1e-6, False).reduction == "none"


def test_losses_take_pytorchs_parameters_in_pytorchs_order(torch):
    names = [name for name in dir(torch.nn.functional) if name.endswith("_loss") or name in
             ("cross_entropy", "nll_loss", "kl_div", "binary_cross_entropy", "binary_cross_entropy_with_logits")]
    for name in names:
        theirs = list(inspect.signature(getattr(torch.nn.functional, name)).parameters)
        ours = list(inspect.signature(getattr(F, name)).parameters)
        assert ours == theirs, name
    for name in dir(torch.nn):
        theirs_class = getattr(torch.nn, name)
        if not (isinstance(theirs_class, type) and name.endswith("Loss") and hasattr(ember.nn, name)):
            continue
        theirs = list(inspect.signature(theirs_class.__init__).parameters)
        ours = list(inspect.signature(getattr(ember.nn, name).__init__).parameters)
        assert ours == theirs, name


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "huber_loss"])
def test_elementwise_weights(torch, name, reduction):
    ours, theirs = _pair(torch)
    weight = numpy.random.default_rng(3).random((4, 3)).astype(numpy.float32)
    assert_close(getattr(F, name)(*ours, reduction=reduction, weight=ember.tensor(weight)),
                 getattr(torch.nn.functional, name)(*theirs, reduction=reduction, weight=torch.tensor(weight)))
    with pytest.raises(ValueError, match="weight of shape \\[3\\]"):
        getattr(F, name)(*ours, weight=ember.ones(3))


def test_a_bad_reduction_names_the_loss_and_the_choices():
    with pytest.raises(ValueError, match="MSELoss: reduction must be one of 'mean', 'sum', 'none', got 'avg'"):
        ember.nn.MSELoss(reduction="avg")
    assert ember.nn.KLDivLoss(reduction="batchmean").reduction == "batchmean"
    with pytest.raises(ValueError, match="avg is not a valid value for reduction"):
        ember.nn._reduction.get_enum("avg")
    assert ember.nn._reduction.get_enum("sum") == 2
