"""nn.RNN, LSTM, GRU, their cells and packed sequences against PyTorch from
the same weights: values, final states, gradients, state_dict names and
initialisation, and errors."""

import numpy
import pytest

import ember
from helpers import assert_close

TOL = {"rtol": 1e-4, "atol": 1e-5}


def to_ember(t, requires_grad=False):
    out = ember.tensor(t.detach().numpy())
    return out.requires_grad_() if requires_grad else out


def copy_state(ember_module, torch_module):
    ember_module.load_state_dict({k: to_ember(v) for k, v in torch_module.state_dict().items()})


def states_sum(hidden):
    return sum(h.sum() for h in hidden) if isinstance(hidden, tuple) else hidden.sum()


def check_parameter_grads(mine, theirs):
    named = dict(mine.named_parameters())
    assert [n for n, _ in mine.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    for name, p in theirs.named_parameters():
        assert_close(named[name].grad, p.grad, **TOL)


CONFIGS = [
    ("LSTM", {}),
    ("LSTM", {"num_layers": 2, "bidirectional": True, "batch_first": True}),
    ("LSTM", {"proj_size": 3, "num_layers": 2, "bidirectional": True}),
    ("LSTM", {"bias": False}),
    ("GRU", {"num_layers": 2, "bidirectional": True}),
    ("GRU", {"bias": False, "batch_first": True}),
    ("RNN", {"nonlinearity": "relu", "num_layers": 2}),
    ("RNN", {"bias": False, "bidirectional": True}),
]


def make_pair(torch, kind, options):
    theirs = getattr(torch.nn, kind)(5, 6, **options)
    mine = getattr(ember.nn, kind)(5, 6, **options)
    assert list(mine.state_dict()) == list(theirs.state_dict())
    for name, p in theirs.state_dict().items():
        assert tuple(mine.state_dict()[name].shape) == tuple(p.shape), name
    copy_state(mine, theirs)
    return mine, theirs


def initial_states(torch, kind, options, batch):
    layers = options.get("num_layers", 1) * (2 if options.get("bidirectional") else 1)
    out_size = options.get("proj_size") or 6
    h = torch.randn(layers, batch, out_size, requires_grad=True)
    if kind == "LSTM":
        return h, torch.randn(layers, batch, 6, requires_grad=True)
    return h


@pytest.mark.parametrize("kind, options", CONFIGS)
def test_padded_input_matches_pytorch(torch, kind, options):
    torch.manual_seed(0)
    mine, theirs = make_pair(torch, kind, options)
    shape = (3, 4, 5) if options.get("batch_first") else (4, 3, 5)
    x = torch.randn(*shape, requires_grad=True)
    hx = initial_states(torch, kind, options, 3)
    out, hidden = theirs(x, hx)
    (out.square().sum() + states_sum(hidden)).backward()
    ex = to_ember(x, True)
    ehx = tuple(to_ember(h, True) for h in hx) if kind == "LSTM" else to_ember(hx, True)
    my_out, my_hidden = mine(ex, ehx)
    ((my_out * my_out).sum() + states_sum(my_hidden)).backward()
    assert_close(my_out, out, **TOL)
    for mine_h, theirs_h in zip(my_hidden if kind == "LSTM" else (my_hidden,), hidden if kind == "LSTM" else (hidden,)):
        assert_close(mine_h, theirs_h, **TOL)
    assert_close(ex.grad, x.grad, **TOL)
    for mine_h, theirs_h in zip(ehx if kind == "LSTM" else (ehx,), hx if kind == "LSTM" else (hx,)):
        assert_close(mine_h.grad, theirs_h.grad, **TOL)
    check_parameter_grads(mine, theirs)


@pytest.mark.parametrize("kind, options", CONFIGS)
def test_packed_input_matches_pytorch(torch, kind, options):
    torch.manual_seed(1)
    mine, theirs = make_pair(torch, kind, options)
    batch_first = options.get("batch_first", False)
    lengths = [4, 2, 3, 1]
    x = torch.randn(4, 4, 5, requires_grad=True)
    hx = initial_states(torch, kind, options, 4)
    packed = torch.nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=batch_first, enforce_sorted=False)
    out, hidden = theirs(packed, hx)
    padded, out_lengths = torch.nn.utils.rnn.pad_packed_sequence(out, batch_first=batch_first)
    (padded.square().sum() + states_sum(hidden)).backward()
    ex = to_ember(x, True)
    ehx = tuple(to_ember(h, True) for h in hx) if kind == "LSTM" else to_ember(hx, True)
    my_packed = ember.nn.utils.rnn.pack_padded_sequence(ex, lengths, batch_first=batch_first, enforce_sorted=False)
    assert_close(my_packed.batch_sizes, packed.batch_sizes)
    assert_close(my_packed.sorted_indices, packed.sorted_indices)
    my_out, my_hidden = mine(my_packed, ehx)
    assert isinstance(my_out, ember.nn.utils.rnn.PackedSequence)
    assert_close(my_out.data, out.data, **TOL)
    my_padded, my_lengths = ember.nn.utils.rnn.pad_packed_sequence(my_out, batch_first=batch_first)
    ((my_padded * my_padded).sum() + states_sum(my_hidden)).backward()
    assert_close(my_padded, padded, **TOL)
    assert_close(my_lengths, out_lengths)
    for mine_h, theirs_h in zip(my_hidden if kind == "LSTM" else (my_hidden,), hidden if kind == "LSTM" else (hidden,)):
        assert_close(mine_h, theirs_h, **TOL)
    assert_close(ex.grad, x.grad, **TOL)
    check_parameter_grads(mine, theirs)


def test_unbatched_input_and_default_state(torch):
    torch.manual_seed(2)
    for kind in ("LSTM", "GRU", "RNN"):
        mine, theirs = make_pair(torch, kind, {"num_layers": 2})
        x = torch.randn(4, 5)
        out, hidden = theirs(x)
        my_out, my_hidden = mine(to_ember(x))
        assert_close(my_out, out, **TOL)
        if kind == "LSTM":
            assert_close(my_hidden[1], hidden[1], **TOL)
            hidden, my_hidden = hidden[0], my_hidden[0]
        assert_close(my_hidden, hidden, **TOL)


def test_dropout_between_layers():
    ember.manual_seed(0)
    lstm = ember.nn.LSTM(4, 8, num_layers=2, dropout=0.5)
    x = ember.randn(5, 2, 4)
    lstm.eval()
    first, _ = lstm(x)
    assert ember.equal(first, lstm(x)[0])
    lstm.train()
    assert not ember.equal(lstm(x)[0], first)
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        ember.nn.GRU(4, 8, dropout=0.2)


def test_initialisation_is_uniform_in_one_over_sqrt_hidden():
    lstm = ember.nn.LSTM(10, 16, num_layers=2)
    bound = 1 / 16 ** 0.5
    values = numpy.concatenate([p.detach().numpy().ravel() for p in lstm.parameters()])
    assert values.min() >= -bound and values.max() <= bound
    assert values.std() > bound / 2  # spread over the range, not constant


@pytest.mark.parametrize("kind", ["LSTMCell", "GRUCell", "RNNCell"])
def test_cells_match_pytorch(torch, kind):
    torch.manual_seed(3)
    theirs = getattr(torch.nn, kind)(5, 6)
    mine = getattr(ember.nn, kind)(5, 6)
    assert list(mine.state_dict()) == list(theirs.state_dict())
    copy_state(mine, theirs)
    x = torch.randn(3, 5, requires_grad=True)
    hx = (torch.randn(3, 6), torch.randn(3, 6)) if kind == "LSTMCell" else torch.randn(3, 6)
    out = theirs(x, hx)
    states_sum(out).backward()
    ex = to_ember(x, True)
    my_out = mine(ex, tuple(to_ember(h) for h in hx) if kind == "LSTMCell" else to_ember(hx))
    states_sum(my_out).backward()
    for a, b in zip(my_out if kind == "LSTMCell" else (my_out,), out if kind == "LSTMCell" else (out,)):
        assert_close(a, b, **TOL)
    assert_close(ex.grad, x.grad, **TOL)
    check_parameter_grads(mine, theirs)
    unbatched = mine(to_ember(x[0]))
    expected = theirs(x[0])
    assert_close(unbatched[0] if kind == "LSTMCell" else unbatched, expected[0] if kind == "LSTMCell" else expected,
                 **TOL)


def test_relu_cell_and_sequence_helpers(torch):
    theirs, mine = torch.nn.RNNCell(3, 4, nonlinearity="relu"), ember.nn.RNNCell(3, 4, nonlinearity="relu")
    copy_state(mine, theirs)
    x = torch.randn(2, 3)
    assert_close(mine(to_ember(x)), theirs(x), **TOL)
    seqs = [torch.randn(n, 2) for n in (3, 1, 2)]
    for options in ({}, {"batch_first": True, "padding_value": -1.0}, {"padding_side": "left"}):
        assert_close(ember.nn.utils.rnn.pad_sequence([to_ember(s) for s in seqs], **options),
                     torch.nn.utils.rnn.pad_sequence(seqs, **options))
    packed = torch.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=False)
    my_packed = ember.nn.utils.rnn.pack_sequence([to_ember(s) for s in seqs], enforce_sorted=False)
    assert_close(my_packed.data, packed.data)
    assert_close(my_packed.unsorted_indices, packed.unsorted_indices)
    padded, lengths = torch.nn.utils.rnn.pad_packed_sequence(packed, total_length=5)
    my_padded, my_lengths = ember.nn.utils.rnn.pad_packed_sequence(my_packed, total_length=5)
    assert_close(my_padded, padded)
    assert_close(my_lengths, lengths)


def test_errors(torch):
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        ember.nn.utils.rnn.pack_sequence([ember.zeros(1), ember.zeros(2)])
    with pytest.raises(RuntimeError, match="greater than 0"):
        ember.nn.utils.rnn.pack_padded_sequence(ember.zeros(3, 2), [0, 2], enforce_sorted=False)
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        ember.nn.LSTM(4, 4, proj_size=4)
    with pytest.raises(ValueError, match="only supported for LSTM"):
        ember.nn.GRU(4, 4, proj_size=2)
    with pytest.raises(ValueError, match="Unknown nonlinearity 'sigmoid'"):
        ember.nn.RNN(4, 4, nonlinearity="sigmoid")
    with pytest.raises(ValueError, match="dropout should be a number in range"):
        ember.nn.LSTM(4, 4, dropout=1.5)
    lstm = ember.nn.LSTM(4, 6, num_layers=2)
    cases = [
        ((ember.zeros(5, 2, 3),), RuntimeError, r"input.size\(-1\) must be equal to input_size. Expected 4, got 3"),
        ((ember.zeros(5, 2, 4), (ember.zeros(1, 2, 6), ember.zeros(2, 2, 6))), RuntimeError,
         r"Expected hidden size \(2, 2, 6\), got \[1, 2, 6\]"),
        ((ember.zeros(5, 2, 4), (ember.zeros(2, 2, 6), ember.zeros(2, 2, 5))), RuntimeError,
         r"Expected hidden\[1\] size \(2, 2, 6\), got \[2, 2, 5\]"),
        ((ember.zeros(5, 1, 2, 4),), ValueError, "Expected input to be 2D or 3D, got 4D instead"),
        ((ember.zeros(5, 2, 4, dtype=ember.float64),), ValueError, "input must have the type"),
    ]
    theirs = torch.nn.LSTM(4, 6, num_layers=2)
    for args, error, match in cases:
        with pytest.raises(error, match=match):
            mine_args = args
            lstm(*mine_args)
        torch_args = [torch.from_numpy(a.numpy()) if not isinstance(a, tuple) else
                      tuple(torch.from_numpy(t.numpy()) for t in a) for a in args]
        with pytest.raises(error):
            theirs(*torch_args)
    with pytest.raises(ValueError, match="Expected input to be 1D or 2D"):
        ember.nn.GRUCell(4, 6)(ember.zeros(1, 2, 4))
    with pytest.raises(RuntimeError, match="Input batch size 2 doesn't match hidden batch size 3"):
        ember.nn.GRUCell(4, 6)(ember.zeros(2, 4), ember.zeros(3, 6))


def test_lstm_double_backward_matches_pytorch(torch):
    torch.manual_seed(3)
    mine, theirs = make_pair(torch, "LSTM", {"num_layers": 2, "bidirectional": True})
    x = torch.randn(4, 3, 5, requires_grad=True)
    ex = to_ember(x, True)
    for lib, model, inp in ((torch, theirs, x), (ember, mine, ex)):
        out, _ = model(inp)
        (g,) = lib.autograd.grad((out * out).sum(), inp, create_graph=True)
        (g * g).sum().backward()
    assert_close(ex.grad, x.grad, **TOL)
    check_parameter_grads(mine, theirs)


def lstm_pair(torch, dtype, **options):
    theirs = torch.nn.LSTM(**options).to(getattr(torch, dtype))
    mine = ember.nn.LSTM(**options).to(getattr(ember, dtype))
    copy_state(mine, theirs)
    return mine, theirs


def check_lstm_step(torch, mine, theirs, x, tol):
    """Output, final states and every gradient of a loss on all three."""
    out, (h, c) = theirs(x)
    (out.square().sum() + (h * c).sum()).backward()
    ex = to_ember(x, True)
    my_out, (my_h, my_c) = mine(ex)
    ((my_out * my_out).sum() + (my_h * my_c).sum()).backward()
    for a, b in ((my_out, out), (my_h, h), (my_c, c), (ex.grad, x.grad)):
        assert_close(a, b, **tol)
    named = dict(mine.named_parameters())
    for name, p in theirs.named_parameters():
        assert_close(named[name].grad, p.grad, **tol)


@pytest.mark.parametrize("options", [{"num_layers": 2}, {"num_layers": 1}, {"bidirectional": True},
                                     {"bias": False, "batch_first": True}])
def test_lstm_layer_kernel_matches_pytorch(torch, options):
    """float32 on the CPU runs the catalogue's lstm_layer on the plugin's
    kernel (oneDNN's LSTM primitive), at a language model's proportions."""
    torch.manual_seed(6)
    mine, theirs = lstm_pair(torch, "float32", input_size=48, hidden_size=64, **options)
    shape = (8, 20, 48) if options.get("batch_first") else (20, 8, 48)
    x = torch.randn(*shape, requires_grad=True)
    assert ember._C._nn.lstm_layer_runs_kernel(to_ember(x))
    check_lstm_step(torch, mine, theirs, x, {"rtol": 2e-4, "atol": 2e-5})


def test_lstm_layer_kernel_without_gradients_matches_pytorch(torch):
    """Under no_grad the kernel keeps no workspace (oneDNN's inference pass)."""
    torch.manual_seed(9)
    mine, theirs = lstm_pair(torch, "float32", input_size=16, hidden_size=32, num_layers=2, bidirectional=True)
    x = torch.randn(12, 4, 16)
    with torch.no_grad():
        out, (h, c) = theirs(x)
    with ember.no_grad():
        my_out, (my_h, my_c) = mine(to_ember(x))
    for a, b in ((my_out, out), (my_h, h), (my_c, c)):
        assert_close(a, b, rtol=2e-4, atol=2e-5)


def test_lstm_over_an_empty_batch_matches_pytorch(torch):
    """An empty batch has no primitive: the layer runs its decomposition."""
    torch.manual_seed(10)
    mine, theirs = lstm_pair(torch, "float32", input_size=5, hidden_size=6)
    x = torch.randn(4, 0, 5, requires_grad=True)
    assert not ember._C._nn.lstm_layer_runs_kernel(to_ember(x))
    check_lstm_step(torch, mine, theirs, x, TOL)


def test_lstm_without_kernel_matches_pytorch(torch):
    """float64 has no lstm_layer kernel: the layer runs its own recurrence."""
    torch.manual_seed(7)
    mine, theirs = lstm_pair(torch, "float64", input_size=5, hidden_size=6, bidirectional=True)
    x = torch.randn(7, 3, 5, dtype=torch.float64, requires_grad=True)
    assert not ember._C._nn.lstm_layer_runs_kernel(to_ember(x))
    check_lstm_step(torch, mine, theirs, x, {"rtol": 1e-10, "atol": 1e-12})


@pytest.mark.parametrize("reverse", [False, True])
def test_lstm_layer_op_matches_its_decomposition_in_float64(torch, reverse):
    """The op itself against PyTorch's float64 layer, and its gradient
    against the float32 kernel's."""
    torch.manual_seed(8)
    theirs = torch.nn.LSTM(4, 5).double()
    x = torch.randn(6, 3, 4, dtype=torch.float64, requires_grad=True)
    h0, c0 = (torch.randn(1, 3, 5, dtype=torch.float64) for _ in range(2))
    xs = x.flip(0) if reverse else x
    out, (h, c) = theirs(xs, (h0, c0))
    out = out.flip(0) if reverse else out
    w_ih, w_hh = (to_ember(w) for w in (theirs.weight_ih_l0, theirs.weight_hh_l0))
    b = to_ember(theirs.bias_ih_l0 + theirs.bias_hh_l0)
    for dtype in ("float64", "float32"):
        cast = [t.detach().to(getattr(ember, dtype)) for t in (to_ember(x), to_ember(h0[0]), to_ember(c0[0]), w_ih, w_hh, b)]
        for t in cast:
            t.requires_grad_()
        my_out, my_h, my_c = ember._C._nn.lstm_layer(*cast, reverse)
        tol = {"rtol": 1e-10, "atol": 1e-12} if dtype == "float64" else {"rtol": 1e-4, "atol": 1e-5}
        for a, expected in ((my_out, out), (my_h, h[0]), (my_c, c[0])):
            assert_close(a.double(), expected, **tol)
        (my_out.sum() + my_h.sum() * 2 + my_c.sum() * 3).backward()
        if dtype == "float64":
            expected_grads = [t.grad for t in cast]
        else:
            for t, expected in zip(cast, expected_grads):
                assert_close(t.grad.double(), expected, rtol=1e-4, atol=1e-5)


def test_lstm_layer_errors():
    x, h = ember.zeros(3, 2, 4), ember.zeros(2, 5)
    w_ih, w_hh, b = ember.zeros(20, 4), ember.zeros(20, 5), ember.zeros(20)
    with pytest.raises(RuntimeError, match=r"lstm_layer\(\): expected x \[T, B, I\].*w_ih \[20, 3\]"):
        ember._C._nn.lstm_layer(x, h, h, ember.zeros(20, 3), w_hh, b, False)
    with pytest.raises(RuntimeError, match=r"lstm_layer\(\): expected every operand to have x's dtype float32"):
        ember._C._nn.lstm_layer(x, h.double(), h, w_ih, w_hh, b, False)
    with pytest.raises(RuntimeError, match=r"lstm_layer\(\): expected a floating point tensor"):
        ember._C._nn.lstm_layer(x.long(), h, h, w_ih, w_hh, b, False)


def test_lstm_gradients_when_only_weights_require_grad(torch):
    torch.manual_seed(4)
    mine, theirs = make_pair(torch, "LSTM", {})
    x = torch.randn(6, 2, 5)
    (theirs(x)[0] * 2).sum().backward()
    (mine(to_ember(x, False))[0] * 2).sum().backward()
    check_parameter_grads(mine, theirs)


def test_compiled_lstm_training_matches_eager():
    ember.manual_seed(5)
    model = ember.nn.LSTM(5, 6, 2)
    x = ember.randn(4, 3, 5)
    model(x)[0].sum().backward()
    eager = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    ember.compile(model)(x)[0].sum().backward()
    for mine, expected in zip((p.grad for p in model.parameters()), eager):
        assert_close(mine, expected, rtol=1e-5, atol=1e-6)
