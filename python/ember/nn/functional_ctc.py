"""F.ctc_loss: the connectionist temporal classification loss, the negative
log-likelihood of a target sequence summed over all its alignments to the
input's time steps (Note [CTC as a forward recursion]), with PyTorch's
argument checks, reductions and gradients (Note [PyTorch's CTC gradient])."""

import itertools
import math

from .. import _C, _factories
from .._C import Tensor

__all__ = ["ctc_loss"]

# Note [CTC as a forward recursion]
# A target l_1..l_S becomes the extended sequence of 2S + 1 states
# l' = (blank, l_1, blank, l_2, ..., blank, l_S, blank). alpha_t(s), the
# log-probability of every path over steps 0..t that ends in state s, is
#   alpha_t(s) = log_probs[t, l'_s] + logsumexp(alpha_{t-1}(s), alpha_{t-1}(s-1), alpha_{t-1}(s-2)),
# the last term only where l'_s is a label unlike l'_{s-2}: a path may skip
# the blank between two different labels, never between a repeated one. A
# virtual step before the first, in which only state 0 has log-probability
# 0, makes step 0 the same recursion, and makes an input of length 0 the
# empty alignment. The whole batch steps together as one (N, 2S + 1) tensor
# of alphas (a target shorter than S is padded with blanks; states past its
# end never reach its last two, since paths only move forward); a sample
# whose input has ended keeps its alphas. The likelihood is the sum over the
# last two states of a sample (its last label, or the blank after it).
# Autograd through the recursion gives the gradient: backpropagating through
# the logsumexps is the backward (beta) recursion of Graves et al.
#
# Note [PyTorch's CTC gradient]
# PyTorch's backward returns, for each step inside a sample's input,
# exp(log_probs) plus the gradient of the loss: the gradient with respect to
# the logits that log_softmax turned into log_probs, not with respect to
# log_probs themselves. Through log_softmax's backward, the usual way CTC is
# fed, both give the same gradient of the logits, since the true gradient
# sums to -1 over the classes at each of those steps. So that gradients at
# log_probs agree with PyTorch's too, each sample's loss adds
# sum(p - p.detach()) of p = exp(log_probs) over its steps: 0 in value,
# exp(log_probs) in gradient.


def _lengths(lengths, name, batch):
    if isinstance(lengths, Tensor):
        if lengths.dtype.is_floating_point or lengths.dtype == _C.bool:
            raise RuntimeError(f"{name} must be integral")
        values = [int(v) for v in lengths.reshape(-1).tolist()]
    else:
        values = [int(v) for v in lengths]
    if len(values) != batch:
        raise RuntimeError(f"{name} must be of size batch_size")
    return values


def _check_bounds(name, values, most):
    for value in values:
        if value < 0:
            raise RuntimeError(f"Expected {name} to have value at least 0, but got value {value}")
        if most is not None and value > most:
            raise RuntimeError(f"Expected {name} to have value at most {most}, but got value {value}")


def _targets_size_error(expected, dim, got, at_least=""):
    return RuntimeError(f"Expected tensor to have size {at_least}{expected} at dimension {dim}, but got size {got} "
                        f"for argument #2 'targets'")


def _padded_labels(targets, target_lengths, blank, device):
    """The targets as one (N, S) int64 row per sample, S the longest target
    length, blank past each target's end."""
    batch, longest = len(target_lengths), max(target_lengths, default=0)
    lengths = _factories.tensor(target_lengths, dtype=_C.int64, device=device).unsqueeze(1)
    positions = _factories.arange(longest, dtype=_C.int64, device=device).unsqueeze(0)
    targets = targets.long()
    if targets.dim() == 2:
        if targets.shape[0] != batch:
            raise _targets_size_error(batch, 0, targets.shape[0])
        if targets.shape[1] < longest:
            raise _targets_size_error(longest, 1, targets.shape[1], "at least ")
        labels = targets.narrow(1, 0, longest)
    else:
        if targets.shape[0] != sum(target_lengths):
            raise _targets_size_error(sum(target_lengths), 0, targets.shape[0])
        starts = [0, *itertools.accumulate(target_lengths[:-1])]
        offsets = _factories.tensor(starts, dtype=_C.int64, device=device).unsqueeze(1)
        index = (offsets + positions).clamp(max=max(targets.shape[0] - 1, 0))
        labels = targets.index_select(0, index.reshape(-1)).reshape([batch, longest])
    return _C.where(positions < lengths, labels, blank)


def _extended_labels(labels, blank):
    """(blank, l_1, blank, ..., l_S, blank) per row, and where each state may
    be entered from two states back (Note [CTC as a forward recursion])."""
    batch, longest = labels.shape
    pairs = _C.stack([labels.new_full((batch, longest), blank), labels], 2).reshape([batch, 2 * longest])
    extended = _C.cat([pairs, labels.new_full((batch, 1), blank)], 1)
    states = 2 * longest + 1
    state = _factories.arange(states, dtype=_C.int64, device=labels.device).unsqueeze(0)
    two_back = _C.cat([extended.narrow(1, 0, min(2, states)), extended], 1).narrow(1, 0, states)
    return extended, (state % 2 == 1) & (state >= 3) & (extended != two_back)


def _shifted(alpha, by):
    """alpha moved `by` states along, -inf entering at state 0."""
    batch, states = alpha.shape
    return _C.cat([alpha.new_full((batch, by), -math.inf), alpha], 1).narrow(1, 0, states)


def _logsumexp(terms):
    """logsumexp over the given same-shape tensors, -inf where all are -inf,
    with a zero gradient there (PyTorch's logsumexp passes back NaN)."""
    stacked = _C.stack(terms, -1)
    top = stacked.detach().amax(-1, keepdim=True)
    reached = top != -math.inf
    top = _C.where(reached, top, 0.0)
    total = (stacked - top).exp().sum(-1)
    reached = reached.squeeze(-1)
    return _C.where(reached, _C.where(reached, total, 1.0).log(), -math.inf) + top.squeeze(-1)


def _negative_log_likelihood(log_probs, labels, input_lengths, target_lengths, blank):
    time, batch, _ = log_probs.shape
    extended, may_skip = _extended_labels(labels, blank)
    states = extended.shape[1]
    emissions = log_probs.gather(2, extended.unsqueeze(0).expand(time, batch, states))
    first = _factories.arange(states, dtype=_C.int64, device=log_probs.device).unsqueeze(0) == 0
    alpha = _C.where(first, log_probs.new_zeros((batch, states)), -math.inf)
    lengths = _factories.tensor(input_lengths, dtype=_C.int64, device=log_probs.device).unsqueeze(1)
    for step in range(max(input_lengths, default=0)):
        skip = _C.where(may_skip, _shifted(alpha, 2), -math.inf)
        advanced = emissions[step] + _logsumexp([alpha, _shifted(alpha, 1), skip])
        alpha = _C.where(lengths > step, advanced, alpha)
    ends = _factories.tensor(target_lengths, dtype=_C.int64, device=log_probs.device).unsqueeze(1)
    last_blank = alpha.gather(1, 2 * ends)
    last_label = _C.where(ends > 0, alpha.gather(1, (2 * ends - 1).clamp(min=0)), -math.inf)
    return -_logsumexp([last_blank, last_label]).squeeze(1)


def _pytorch_gradient_term(log_probs, input_lengths):
    """0, with the gradient exp(log_probs) inside each input (Note [PyTorch's CTC gradient])."""
    time = log_probs.shape[0]
    steps = _factories.arange(time, dtype=_C.int64, device=log_probs.device).reshape([time, 1, 1])
    inside = steps < _factories.tensor(input_lengths, dtype=_C.int64, device=log_probs.device).reshape([1, -1, 1])
    probs = log_probs.exp()
    return _C.where(inside, probs - probs.detach(), 0.0).sum((0, 2))


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    unbatched = log_probs.dim() == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
    if log_probs.dim() != 3:
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {log_probs.dim()}-dimensional tensor for "
                           f"argument #1 'log_probs'")
    if not log_probs.dtype.is_floating_point:
        raise NotImplementedError(f"ctc_loss: log_probs must be floating point, got "
                                  f"{str(log_probs.dtype).removeprefix('ember.')}")
    if log_probs.numel() == 0:
        raise RuntimeError("log_probs tensor must not be empty")
    if targets.dim() not in (1, 2):
        raise RuntimeError(f"Expected 1 to 2 dimensions, but got {targets.dim()}-dimensional tensor for argument #2 "
                           f"'targets'")
    time, batch, classes = log_probs.shape
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    input_lengths = _lengths(input_lengths, "input_lengths", batch)
    target_lengths = _lengths(target_lengths, "target_lengths", batch)
    _check_bounds("input_lengths", input_lengths, time)
    _check_bounds("target_lengths", target_lengths, None)
    labels = _padded_labels(targets, target_lengths, blank, log_probs.device)
    nll = _negative_log_likelihood(log_probs, labels, input_lengths, target_lengths, blank)
    loss = nll + _pytorch_gradient_term(log_probs, input_lengths)
    if zero_infinity:
        loss = _C.where(nll == math.inf, 0.0, loss)
    if reduction == "mean":
        lengths = _factories.tensor(target_lengths, dtype=loss.dtype, device=loss.device).clamp(min=1)
        return (loss / lengths).mean()
    if reduction == "sum":
        return loss.sum()
    return loss.squeeze(0) if unbatched else loss
