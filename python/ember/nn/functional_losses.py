"""The losses of torch.nn.functional beyond the core's own, as compositions
of core ops, with PyTorch's reductions and argument checks."""

import math

from .. import _C
from .._C import _nn
from .._autocast_lists import float32_op
from .._elementwise_math import xlogy
from . import _reduction
from .functional_distance import cosine_similarity, pairwise_distance

__all__ = ["kl_div", "huber_loss", "margin_ranking_loss", "hinge_embedding_loss", "soft_margin_loss",
           "multilabel_soft_margin_loss", "cosine_embedding_loss", "triplet_margin_loss",
           "triplet_margin_with_distance_loss", "poisson_nll_loss", "gaussian_nll_loss", "multi_margin_loss",
           "multilabel_margin_loss"]


def _same_shape(name, input, target):
    if list(input.shape) != list(target.shape):
        raise ValueError(f"{name}: target of shape {list(target.shape)} does not match input of shape "
                         f"{list(input.shape)}")


@float32_op
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    reduction = _reduction.resolve(size_average, reduce, reduction)
    if log_target:
        pointwise = target.exp() * (target - input)
    else:
        # xlogy makes 0 * log 0 zero and a negative target's term NaN, as in PyTorch.
        pointwise = xlogy(target, target) - target * input
    if reduction == "batchmean":
        return pointwise.sum() / (input.shape[0] if input.dim() > 0 else 1)
    return _reduction.reduce_loss(pointwise, reduction, "kl_div")


@float32_op
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    if delta <= 0:
        raise ValueError(f"huber_loss: delta must be positive, got {delta}")
    _same_shape("huber_loss", input, target)
    error = (input - target).abs()
    loss = _C.where(error < delta, error * error * 0.5, (error - 0.5 * delta) * delta)
    if weight is not None:
        return _reduction.weighted(loss, weight, reduction, "huber_loss", mean_over_weights=False)
    return _reduction.reduce_loss(loss, reduction, "huber_loss")


@float32_op
def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction.resolve(size_average, reduce, reduction)
    return _reduction.reduce_loss((-target * (input1 - input2) + margin).clamp(min=0), reduction, "margin_ranking_loss")


@float32_op
def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction.resolve(size_average, reduce, reduction)
    margin_term = (margin - input).clamp(min=0)
    loss = _C.where(target == 1, input, 0.0) + _C.where(target == -1, margin_term, 0.0)
    return _reduction.reduce_loss(loss, reduction, "hinge_embedding_loss")


@float32_op
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction.resolve(size_average, reduce, reduction)
    _same_shape("soft_margin_loss", input, target)
    return _reduction.reduce_loss(_nn.softplus(-target * input, 1.0, 20.0), reduction, "soft_margin_loss")


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction.resolve(size_average, reduce, reduction)
    _same_shape("multilabel_soft_margin_loss", input, target)
    # -(y log sigmoid(x) + (1 - y) log sigmoid(-x)), through softplus.
    loss = target * _nn.softplus(-input, 1.0, 20.0) + (1 - target) * _nn.softplus(input, 1.0, 20.0)
    if weight is not None:
        loss = loss * weight
    return _reduction.reduce_loss(loss.mean(-1), reduction, "multilabel_soft_margin_loss")


@float32_op
def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction.resolve(size_average, reduce, reduction)
    cosine = cosine_similarity(input1, input2, dim=-1, eps=1e-8)
    loss = _C.where(target == 1, 1 - cosine, (cosine - margin).clamp(min=0))
    return _reduction.reduce_loss(loss, reduction, "cosine_embedding_loss")


@float32_op
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    reduction = _reduction.resolve(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"triplet_margin_loss: margin must be positive, got {margin}")
    positive_distance = pairwise_distance(anchor, positive, p, eps)
    negative_distance = pairwise_distance(anchor, negative, p, eps)
    if swap:
        negative_distance = _C.minimum(negative_distance, pairwise_distance(positive, negative, p, eps))
    loss = (positive_distance - negative_distance + margin).clamp(min=0)
    return _reduction.reduce_loss(loss, reduction, "triplet_margin_loss")


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
                                      swap=False, reduction="mean"):
    distance = distance_function if distance_function is not None else pairwise_distance
    positive_distance = distance(anchor, positive)
    negative_distance = distance(anchor, negative)
    if swap:
        negative_distance = _C.minimum(negative_distance, distance(positive, negative))
    return _reduction.reduce_loss((positive_distance - negative_distance + margin).clamp(min=0), reduction,
                   "triplet_margin_with_distance_loss")


@float32_op
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    reduction = _reduction.resolve(size_average, reduce, reduction)
    loss = input.exp() - target * input if log_input else input - target * (input + eps).log()
    if full:
        # Stirling's term for target > 1: t log t - t + log(2 pi t) / 2.
        safe = _C.where(target > 1, target, 1.0)
        stirling = safe * safe.log() - safe + (safe * (2 * math.pi)).log() * 0.5
        loss = loss + _C.where(target > 1, stirling, 0.0)
    return _reduction.reduce_loss(loss, reduction, "poisson_nll_loss")


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    if var.dim() == input.dim() - 1 or (var.dim() == input.dim() and var.shape[-1] == 1 and input.shape[-1] != 1):
        var = var.reshape(list(input.shape[:-1]) + [1]) if var.dim() == input.dim() - 1 else var
    if bool((var < 0).any()):
        raise ValueError("gaussian_nll_loss: var has negative entries")
    var = var.clamp(min=eps)
    loss = (var.log() + (input - target) ** 2 / var) * 0.5
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduction.reduce_loss(loss, reduction, "gaussian_nll_loss")


@float32_op
def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    reduction = _reduction.resolve(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError(f"multi_margin_loss: p must be 1 or 2, got {p}")
    batched = input.dim() == 2
    x = input if batched else input.unsqueeze(0)
    y = (target if batched else target.reshape([1])).long()
    classes = x.shape[1]
    correct = x.gather(1, y.unsqueeze(1))
    terms = (x - correct + margin).clamp(min=0)
    if p == 2:
        terms = terms * terms
    if weight is not None:
        terms = terms * weight.index_select(0, y).unsqueeze(1)
    others = _nn.one_hot(y, classes) == 0
    loss = _C.where(others, terms, 0.0).sum(1) / classes
    return _reduction.reduce_loss(loss if batched else loss.reshape([]), reduction, "multi_margin_loss")


@float32_op
def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction.resolve(size_average, reduce, reduction)
    batched = input.dim() == 2
    x = input if batched else input.unsqueeze(0)
    y = (target if batched else target.unsqueeze(0)).long()
    classes = x.shape[1]
    # The targets of a row are its entries before the first -1.
    valid = (y < 0).long().cumsum(1) == 0
    labels = _C.where(valid, y, 0)
    is_target = (_nn.one_hot(labels, classes) * valid.unsqueeze(-1).long()).sum(1) > 0
    chosen = x.gather(1, labels)
    # sum over target j and non-target i of max(0, 1 - (x[j] - x[i]))
    pair = (1 - (chosen.unsqueeze(2) - x.unsqueeze(1))).clamp(min=0)
    mask = valid.unsqueeze(2) & (~is_target).unsqueeze(1)
    loss = _C.where(mask, pair, 0.0).sum((1, 2)) / classes
    return _reduction.reduce_loss(loss if batched else loss.reshape([]), reduction, "multilabel_margin_loss")
