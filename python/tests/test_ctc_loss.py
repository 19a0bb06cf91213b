"""F.ctc_loss and nn.CTCLoss against PyTorch: values and gradients for both
target layouts, every reduction, lengths as tensors or sequences, unbatched
input, impossible alignments with and without zero_infinity, and errors."""

import re

import numpy
import pytest

import ember
import ember.nn.functional as F
from helpers import assert_close

RNG = numpy.random.default_rng(5)

TIME, BATCH, CLASSES = 12, 4, 5
# Repeats (which need a blank between them), a target of length 0, and one
# that uses every step; padding past each length is junk the loss must ignore.
TARGETS = numpy.array([[1, 1, 2, 3, 9], [4, 2, -1, 7, 7], [0, 0, 0, 0, 0], [3, 3, 3, 3, 3]])
TARGET_LENGTHS = [4, 2, 0, 5]
INPUT_LENGTHS = [12, 7, 5, 12]


def _concatenated(targets, lengths):
    return numpy.concatenate([row[:n] for row, n in zip(targets, lengths)])


def _losses(torch, logits, targets, input_lengths, target_lengths, **kwargs):
    """The loss and the gradients of a weighted sum of it at the log-probs
    and at the logits, by Ember and by PyTorch."""
    results = []
    for library in (ember, torch):
        x = library.tensor(logits, requires_grad=True)
        log_probs = x.log_softmax(-1)
        log_probs.retain_grad()
        convert = (lambda v: library.tensor(v)) if isinstance(targets, numpy.ndarray) else (lambda v: v)
        loss = library.nn.functional.ctc_loss(log_probs, library.tensor(targets), convert(input_lengths),
                                              convert(target_lengths), **kwargs)
        weights = numpy.random.default_rng(0).standard_normal(tuple(loss.shape))
        (loss * library.tensor(weights, dtype=loss.dtype)).sum().backward()
        results.append((loss, log_probs.grad, x.grad))
    return results


def _assert_same(ours, theirs, rtol=1e-9, atol=1e-10):
    for mine, expected in zip(ours, theirs):
        assert_close(mine, expected.detach(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("layout", ["padded", "concatenated"])
def test_ctc_loss_matches_pytorch_with_gradients(torch, reduction, layout):
    logits = RNG.standard_normal((TIME, BATCH, CLASSES))
    targets = TARGETS if layout == "padded" else _concatenated(TARGETS, TARGET_LENGTHS)
    lengths = numpy.array(INPUT_LENGTHS), numpy.array(TARGET_LENGTHS)
    _assert_same(*_losses(torch, logits, targets, *lengths, reduction=reduction))


@pytest.mark.parametrize("convert", [tuple, list])
def test_lengths_may_be_sequences(torch, convert):
    logits = RNG.standard_normal((TIME, BATCH, CLASSES))
    _assert_same(*_losses(torch, logits, TARGETS, convert(INPUT_LENGTHS), convert(TARGET_LENGTHS),
                          reduction="none"))


def test_float32_gradients_agree_to_float32_rounding(torch):
    logits = RNG.standard_normal((TIME, BATCH, CLASSES)).astype(numpy.float32)
    _assert_same(*_losses(torch, logits, TARGETS, tuple(INPUT_LENGTHS), tuple(TARGET_LENGTHS)), rtol=1e-4,
                 atol=1e-5)


def test_a_blank_other_than_zero(torch):
    logits = RNG.standard_normal((TIME, BATCH, CLASSES))
    targets = numpy.where(TARGETS == 4, 0, TARGETS)
    _assert_same(*_losses(torch, logits, targets, tuple(INPUT_LENGTHS), tuple(TARGET_LENGTHS), blank=4,
                          reduction="sum"))


@pytest.mark.parametrize("reduction", ["none", "mean"])
def test_unbatched_input(torch, reduction):
    logits = RNG.standard_normal((TIME, CLASSES))
    _assert_same(*_losses(torch, logits, TARGETS[0, :4], (TIME,), (4,), reduction=reduction))
    _assert_same(*_losses(torch, logits, TARGETS[:1], numpy.array(TIME), numpy.array(4), reduction=reduction))


def test_impossible_alignments_and_empty_inputs(torch):
    # Three repeated labels need five steps; an empty input fits only the
    # empty target.
    logits = RNG.standard_normal((4, 3, CLASSES))
    targets = numpy.array([[2, 2, 2], [1, 0, 0], [0, 0, 0]])
    ours, theirs = _losses(torch, logits, targets, (4, 0, 0), (3, 1, 0), reduction="none")
    assert_close(ours[0], theirs[0].detach(), rtol=1e-9, atol=1e-10)
    assert ours[0].tolist()[:2] == [float("inf")] * 2
    # zero_infinity zeroes those losses and their gradients, as PyTorch does.
    _assert_same(*_losses(torch, logits, targets, (4, 0, 0), (3, 1, 0), reduction="none", zero_infinity=True))
    _assert_same(*_losses(torch, logits, targets, (4, 0, 3), (3, 1, 2), reduction="mean", zero_infinity=True))


def test_targets_equal_to_blank_and_float_targets_count_as_pytorch_does(torch):
    logits = RNG.standard_normal((6, 2, CLASSES))
    targets = numpy.array([[1, 0, 2], [3, 3, 1]])
    _assert_same(*_losses(torch, logits, targets, (6, 5), (3, 2), reduction="none"))
    _assert_same(*_losses(torch, logits, targets.astype(numpy.float64), (6, 5), (3, 2), reduction="none"))


def test_ctc_loss_module_matches_pytorch(torch):
    logits = RNG.standard_normal((TIME, BATCH, CLASSES))
    arguments = (TARGETS, numpy.array(INPUT_LENGTHS), numpy.array(TARGET_LENGTHS))
    for kwargs in ({}, {"blank": 0, "reduction": "sum", "zero_infinity": True}):
        ours = ember.nn.CTCLoss(**kwargs)(ember.tensor(logits).log_softmax(-1), *map(ember.tensor, arguments))
        theirs = torch.nn.CTCLoss(**kwargs)(torch.tensor(logits).log_softmax(-1), *map(torch.tensor, arguments))
        assert_close(ours, theirs, rtol=1e-9, atol=1e-10)
    assert repr(ember.nn.CTCLoss(blank=2)) == repr(torch.nn.CTCLoss(blank=2))


@pytest.mark.parametrize("call, error, message", [
    ("F.ctc_loss(lp, tg, (9, 4), (2, 2))", RuntimeError,
     "Expected input_lengths to have value at most 4, but got value 9"),
    ("F.ctc_loss(lp, tg, (-1, 4), (2, 2))", RuntimeError,
     "Expected input_lengths to have value at least 0, but got value -1"),
    ("F.ctc_loss(lp, tg, (4, 4), (2, -2))", RuntimeError,
     "Expected target_lengths to have value at least 0, but got value -2"),
    ("F.ctc_loss(lp, tg, (4, 4), (4, 2))", RuntimeError,
     "Expected tensor to have size at least 4 at dimension 1, but got size 3 for argument #2 'targets'"),
    ("F.ctc_loss(lp, tg[:1], (4, 4), (2, 2))", RuntimeError,
     "Expected tensor to have size 2 at dimension 0, but got size 1 for argument #2 'targets'"),
    ("F.ctc_loss(lp, tg.reshape(-1), (4, 4), (2, 2))", RuntimeError,
     "Expected tensor to have size 4 at dimension 0, but got size 6 for argument #2 'targets'"),
    ("F.ctc_loss(lp, tg.unsqueeze(0), (4, 4), (2, 2))", RuntimeError,
     "Expected 1 to 2 dimensions, but got 3-dimensional tensor for argument #2 'targets'"),
    ("F.ctc_loss(lp, tg, (4, 4, 4), (2, 2))", RuntimeError, "input_lengths must be of size batch_size"),
    ("F.ctc_loss(lp, tg, (4, 4), (2,))", RuntimeError, "target_lengths must be of size batch_size"),
    ("F.ctc_loss(lp, tg, T.tensor([4.0, 4.0]), T.tensor([2, 2]))", RuntimeError, "input_lengths must be integral"),
    ("F.ctc_loss(lp, tg, (4, 4), (2, 2), blank=3)", RuntimeError, "blank must be in label range"),
    ("F.ctc_loss(lp, tg, (4, 4), (2, 2), blank=-1)", RuntimeError, "blank must be in label range"),
    ("F.ctc_loss(lp[:0], tg, (0, 0), (0, 0))", RuntimeError, "log_probs tensor must not be empty"),
    ("F.ctc_loss(lp, tg, (4, 4), (2, 2), reduction='avg')", ValueError, "avg is not a valid value for reduction"),
    ("F.ctc_loss(lp.long(), tg, (4, 4), (2, 2))", NotImplementedError, ""),
])
def test_bad_arguments_raise_what_pytorch_raises(torch, call, error, message):
    for library in (torch, ember):
        log_probs = library.tensor(RNG.standard_normal((4, 2, 3))).log_softmax(-1)
        scope = {"T": library, "F": library.nn.functional, "lp": log_probs,
                 "tg": library.tensor([[1, 2, 1], [2, 2, 1]])}
        with pytest.raises(error, match=re.escape(message) if message else None):
            eval(call, scope)  # noqa: S307 - fixed test data


def test_a_label_outside_the_classes_raises():
    # PyTorch reads past log_probs' class dim there.
    log_probs = ember.randn(4, 2, 3).log_softmax(-1)
    with pytest.raises(RuntimeError, match="index 7 is out of range"):
        F.ctc_loss(log_probs, ember.tensor([[1, 7], [2, 1]]), (4, 4), (2, 2))
