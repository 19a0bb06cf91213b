"""ember.utils.checkpoint against torch.utils.checkpoint: the same
gradients as without it (dropout's mask included), both variants'
behaviour when no argument requires grad, keyword arguments, warnings,
checkpoint_sequential, and the memory it saves."""

import importlib
import warnings

import pytest

import ember
from ember.utils.checkpoint import checkpoint


def checkpoint_behaviour(library):
    checkpointing = importlib.import_module(library.__name__ + ".utils.checkpoint")
    nn = library.nn
    library.manual_seed(0)
    block = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.5), nn.Linear(8, 4))
    x = library.randn(3, 4)
    report = []

    def gradients(mode, input_needs_grad=True):
        block.zero_grad()
        xi = x.detach().requires_grad_(input_needs_grad)
        library.manual_seed(1)  # the same dropout mask in every run
        y = block(xi) if mode == "plain" else checkpointing.checkpoint(block, xi, use_reentrant=mode)
        (y * y).sum().backward()
        return [p.grad.clone() for p in block.parameters()], xi.grad

    expected, expected_x = gradients("plain")
    for mode in (True, False):
        found, found_x = gradients(mode)
        report.append(all(float((a - b).abs().max()) < 1e-6 for a, b in zip(found, expected)))
        report.append(float((found_x - expected_x).abs().max()) < 1e-6)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError, match="does not require grad"):
            gradients(True, input_needs_grad=False)
    report.append([str(w.message)[:35] for w in caught])
    found, _ = gradients(False, input_needs_grad=False)
    report.append(all(float((a - b).abs().max()) < 1e-6 for a, b in zip(found, expected)))
    chain = nn.Sequential(*[nn.Linear(4, 4) for _ in range(4)])
    out = checkpointing.checkpoint_sequential(chain, 2, x.requires_grad_(), use_reentrant=False)
    out.sum().backward()
    report.append((list(out.shape), all(p.grad is not None for p in chain.parameters())))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        checkpointing.checkpoint(lambda a: a * 2, x)
    report.append([str(w.message)[:50] for w in caught])
    with pytest.raises(ValueError, match="Unexpected keyword arguments: k"):
        checkpointing.checkpoint(lambda a, k=1: a * k, x, use_reentrant=True, k=2)
    scaled = checkpointing.checkpoint(lambda a, k=1: a * k, x, use_reentrant=False, k=2)
    report.append(scaled.tolist() == (x * 2).tolist())
    return report


def test_checkpoint_behaves_as_pytorchs(torch):
    assert checkpoint_behaviour(ember) == checkpoint_behaviour(torch)


def test_checkpoint_keeps_no_intermediate_tensor():
    def chain(x):
        for _ in range(8):
            x = (x * 1.5).sin()
        return x

    x = ember.randn(256, 1024, requires_grad=True)
    before = ember.cpu.memory_allocated()
    kept = chain(x)
    plain = ember.cpu.memory_allocated() - before
    del kept
    before = ember.cpu.memory_allocated()
    out = checkpoint(chain, x, use_reentrant=False)
    checkpointed = ember.cpu.memory_allocated() - before
    assert checkpointed <= x.numel() * 4 + 4096 < plain / 8
    out.sum().backward()
    expected = ember.autograd.grad(chain(x).sum(), x)[0]
    assert float((x.grad - expected).abs().max()) < 1e-6
