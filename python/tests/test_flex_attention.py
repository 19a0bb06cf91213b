"""flex_attention run eagerly, against PyTorch 2.13's eager flex_attention:
score mods that read the indices and captured tensors, block masks built
from mask mods and their combinations, GQA, the log-sum-exp, fully masked
rows, and gradients."""

import warnings

import numpy
import pytest

import ember

from helpers import assert_close

RNG = numpy.random.default_rng(11)
HEAD_BIAS = RNG.standard_normal(4).astype(numpy.float32)


@pytest.fixture(autouse=True)
def _keeps_pytorchs_distribution_checks(torch):
    # PyTorch's flex_attention sets up its compiler, which switches off torch.distributions' argument checks
    # for the whole process; later tests compare with those checks.
    validating = torch.distributions.Distribution._validate_args
    yield
    torch.distributions.Distribution.set_default_validate_args(validating)


def _cases(lib):
    flex = __import__(f"{lib.__name__}.nn.attention.flex_attention", fromlist=["flex_attention"])
    bias = lib.tensor(HEAD_BIAS)
    documents = lib.tensor([0, 0, 0, 1, 1, 1, 1, 2, 2, 2])

    def causal(b, h, q_idx, kv_idx):
        return q_idx >= kv_idx

    def same_document(b, h, q_idx, kv_idx):
        return documents[q_idx] == documents[kv_idx]

    def window(b, h, q_idx, kv_idx):
        return (q_idx - kv_idx).abs() <= 2

    def alibi(score, b, h, q_idx, kv_idx):
        return score + bias[h] * (kv_idx - q_idx)

    def softcap(score, b, h, q_idx, kv_idx):
        return 5.0 * lib.tanh(score / 5.0)

    def first_row_masked(b, h, q_idx, kv_idx):
        return q_idx > 0

    return flex, [
        dict(score_mod=alibi),
        dict(block_mask=flex.create_block_mask(causal, None, None, 10, 10, device="cpu")),
        dict(score_mod=softcap, block_mask=flex.create_block_mask(flex.and_masks(causal, same_document), 2, 4, 10,
                                                                  10, device="cpu"), return_lse=True),
        dict(block_mask=flex.create_block_mask(flex.or_masks(window, same_document), None, 4, 10, 10,
                                               device="cpu"), scale=0.3),
        dict(block_mask=flex.create_block_mask(first_row_masked, None, None, 10, 10, device="cpu"), return_lse=True),
        dict(block_mask=flex.create_block_mask(flex.noop_mask, None, None, 10, 10, device="cpu"), enable_gqa=True,
             gqa=True),
    ]


@pytest.mark.parametrize("case", range(6))
def test_matches_pytorch(torch, case):
    arrays = [RNG.standard_normal((2, 4, 10, 8)).astype(numpy.float64) for _ in range(3)]
    results = []
    for lib in (ember, torch):
        flex, cases = _cases(lib)
        kwargs = dict(cases[case])
        gqa = kwargs.pop("gqa", False)
        q, k, v = (lib.tensor(a if not (gqa and i) else a[:, :2].copy()) for i, a in enumerate(arrays))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = flex.flex_attention(q, k, v, **kwargs)
        results.append(list(out) if kwargs.get("return_lse") else [out])
    for ours, theirs in zip(*results):
        assert_close(ours, theirs, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("case", [0, 2, 4, 5])
def test_gradients_by_finite_differences(case):
    # PyTorch's flex_attention has no backward on the CPU, so the gradients are checked numerically.
    flex, cases = _cases(ember)
    kwargs = dict(cases[case])
    gqa = kwargs.pop("gqa", False)
    arrays = [RNG.standard_normal((2, 4, 10, 8))[:, :, :, :3] for _ in range(3)]
    inputs = [ember.tensor(a if not (gqa and i) else a[:, :2].copy(), requires_grad=True)
              for i, a in enumerate(arrays)]

    def attention(q, k, v):
        out = flex.flex_attention(q, k, v, **kwargs)
        return (out[0] * 1.0, out[1].clamp(min=-30.0)) if kwargs.get("return_lse") else out

    assert ember.autograd.gradcheck(attention, inputs, eps=1e-6, atol=1e-6)


def test_block_masks_and_errors(torch):
    for lib in (ember, torch):
        flex = __import__(f"{lib.__name__}.nn.attention.flex_attention", fromlist=["flex_attention"])
        mask = flex.create_block_mask(lambda b, h, q, kv: q >= kv, None, None, 256, 256, device="cpu")
        assert mask.shape == (1, 1, 256, 256) and mask.BLOCK_SIZE == (128, 128) and mask.sparsity() == 25.0
        assert mask.to_dense().tolist() == [[[[1, 0], [1, 1]]]] and mask.to_dense().dtype == lib.int32
        dense = flex.create_mask(lambda b, h, q, kv: q >= kv, 1, 1, 3, 3, device="cpu")
        assert dense.dtype == lib.bool and dense.tolist() == [[[[True, False, False], [True, True, False],
                                                                [True, True, True]]]]
    q = ember.ones(1, 4, 5, 8)
    kv = ember.ones(1, 2, 5, 8)
    with pytest.raises(ValueError, match="Try setting enable_gqa=True for GQA"):
        ember.nn.attention.flex_attention.flex_attention(q, kv, kv)
    with pytest.raises(ValueError, match="block_mask was created for"):
        mask = ember.nn.attention.flex_attention.create_block_mask(lambda b, h, i, j: i >= j, None, None, 4, 4)
        ember.nn.attention.flex_attention.flex_attention(q, q, q, block_mask=mask)
