"""pytorch/examples' word_language_model (tests/programs/word_language_model.py,
as published) run unchanged on `import ember as torch`: an LSTM language model
trained on a small synthetic corpus from PyTorch's initial weights gives
PyTorch's losses batch for batch (plain SGD through p.data.add_, gradient
clipping, hidden states carried across batches and detached)."""

import pathlib
import sys
import types

import numpy

import ember

PROGRAM = pathlib.Path(__file__).parent / "programs" / "word_language_model.py"
ON_EMBER = {
    "import torch\n": "import ember as torch\n",
    "import torch.nn as nn\n": "import ember.nn as nn\n",
    "import torch.nn.functional as F\n": "import ember.nn.functional as F\n",
}


def load_program(library):
    source = PROGRAM.read_text()
    if library == "ember":
        for theirs, ours in ON_EMBER.items():
            assert theirs in source
            source = source.replace(theirs, ours, 1)
    module = types.ModuleType(f"word_language_model_on_{library}")
    exec(compile(source, str(PROGRAM), "exec"), module.__dict__)
    return module


def run(library, lib, corpus, state):
    program = load_program(library)
    args = program.args
    model = program.RNNModel(args.model, 30, args.emsize, args.nhid, args.nlayers, args.dropout, args.tied)
    if state is None:
        state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    else:
        model.load_state_dict({k: lib.tensor(v.numpy()) for k, v in state.items()})
    train_data = program.batchify(lib.tensor(corpus), args.batch_size)
    losses = program.train(model, train_data, 30, args.lr) + program.train(model, train_data, 30, args.lr, epoch=2)
    return losses, state


def test_lstm_language_model_trains_as_on_pytorch(torch):
    torch.manual_seed(0)
    # A corpus with structure to learn: token t is mostly followed by t + 1.
    rng = numpy.random.default_rng(0)
    corpus = numpy.cumsum(rng.choice([1, 1, 1, 2], size=4 * 8 * 5 + 1)) % 30
    expected, state = run("torch", torch, corpus, None)
    losses, _ = run("ember", ember, corpus, state)
    numpy.testing.assert_allclose(losses, expected, rtol=1e-4)
    # The same batch in both epochs: the weights moved in between.
    assert abs(losses[len(losses) // 2] - losses[0]) > 1e-3
