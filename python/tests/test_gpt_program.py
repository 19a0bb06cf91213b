"""nanoGPT's GPT (tests/programs/nanogpt.py, as published) run unchanged on
`import ember as torch`: from PyTorch's initial weights, a few AdamW steps
with gradient clipping give PyTorch's losses, and generation gives its
tokens. The two libraries draw different random streams, so both sample
with argmax here (greedy decoding) in place of multinomial, which makes the
tokens comparable."""

import pathlib
import sys
import types

import numpy
import pytest

import ember

PROGRAM = pathlib.Path(__file__).parent / "programs" / "nanogpt.py"
ON_EMBER = {
    "import torch\n": "import ember as torch\n",
    "import torch.nn as nn\n": "import ember.nn as nn\n",
    "from torch.nn import functional as F\n": "from ember.nn import functional as F\n",
}


def load_program(library):
    """The program's module with its imports pointing at `library`."""
    source = PROGRAM.read_text()
    if library == "ember":
        for theirs, ours in ON_EMBER.items():
            assert theirs in source
            source = source.replace(theirs, ours, 1)
    name = f"nanogpt_on_{library}"
    module = types.ModuleType(name)
    sys.modules[name] = module  # dataclasses look their module up
    try:
        exec(compile(source, str(PROGRAM), "exec"), module.__dict__)
    finally:
        del sys.modules[name]
    return module


def greedy(probs, num_samples):
    return probs.argmax(-1, keepdim=True)


def train(library, lib, state, batches, monkeypatch):
    program = load_program(library)
    config = program.GPTConfig(block_size=16, vocab_size=48, n_layer=2, n_head=4, n_embd=32, dropout=0.0)
    model = program.GPT(config)
    model.load_state_dict({k: lib.tensor(v.numpy()) for k, v in state.items()})
    optimizer = model.configure_optimizers(0.1, 1e-2, (0.9, 0.95), "cpu")
    losses = []
    for x, y in batches:
        _, loss = model(lib.tensor(x), lib.tensor(y))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.item())
    model.eval()
    monkeypatch.setattr(lib, "multinomial", greedy)
    tokens = model.generate(lib.tensor(batches[0][0][:2, :4]), 6, temperature=0.8, top_k=10)
    return losses, tokens.numpy()


def test_nanogpt_trains_and_generates_as_on_pytorch(torch, monkeypatch, capsys):
    torch.manual_seed(0)
    reference = load_program("torch")
    config = reference.GPTConfig(block_size=16, vocab_size=48, n_layer=2, n_head=4, n_embd=32, dropout=0.0)
    state = {k: v.detach().clone() for k, v in reference.GPT(config).state_dict().items()}
    rng = numpy.random.default_rng(0)
    data = rng.integers(0, 48, size=(4, 17))
    batches = [(data[:, :-1].copy(), data[:, 1:].copy())] * 4  # one batch, learnt
    expected_losses, expected_tokens = train("torch", torch, state, batches, monkeypatch)
    losses, tokens = train("ember", ember, state, batches, monkeypatch)
    numpy.testing.assert_allclose(losses, expected_losses, rtol=2e-4)
    assert losses[-1] < losses[0]
    numpy.testing.assert_array_equal(tokens, expected_tokens)
    assert "number of parameters" in capsys.readouterr().out
