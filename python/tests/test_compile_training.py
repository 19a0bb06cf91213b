"""Compiled training: joint graphs, the partition, one autograd node (docs/compiler.md)."""

import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember import compiler


@pytest.fixture(autouse=True)
def _fresh_compiler():
    compiler.reset()
    yield


def _close(a, b, rtol=1e-5, atol=1e-6):
    assert a.shape == b.shape, (a.shape, b.shape)
    assert ember.allclose(a, b, rtol=rtol, atol=atol), (a - b).abs().max().item()


def _training(fn):
    """The training plans of a compiled function or module."""
    compiled = getattr(fn, "_ember_compiled", None) or fn.forward
    return [v.training for v in compiled.variants if v.training is not None]


def test_gradients_of_a_compiled_function_equal_eager():
    def f(x, w, b):
        return (x @ w + b).relu().sin().sum()

    x = ember.randn(8, 5)
    w = ember.randn(5, 3, requires_grad=True)
    b = ember.randn(3, requires_grad=True)
    loss = f(x, w, b)
    gw, gb = ember.autograd.grad(loss, [w, b])
    cf = ember.compile(f)
    closs = cf(x, w, b)
    assert closs.grad_fn is not None and closs.grad_fn.name() == "CompiledFunctionBackward"
    cgw, cgb = ember.autograd.grad(closs, [w, b])
    _close(closs, loss)
    _close(cgw, gw)
    _close(cgb, gb)
    # Later calls reuse the training plan.
    closs2 = cf(x, w, b)
    closs2.backward()
    _close(w.grad, gw)
    assert len(_training(cf)) == 1


needs_generator = pytest.mark.skipif(not ember._C._codegen_available("cpu")[0],
                                     reason="no code generator for cpu: "
                                            + ember._C._codegen_available("cpu")[1])


@needs_generator
def test_backward_kernels_are_generated_and_fused():
    f = ember.compile(lambda x: (x.sin() * x.cos()).exp().sum())
    x = ember.randn(1000, requires_grad=True)
    f(x).backward()
    plan = _training(f)[0]
    assert plan.forward.num_kernels >= 1
    assert plan.backward.num_kernels >= 1
    assert plan.backward.num_extern_calls == 0
    _close(x.grad, ((x.sin() * x.cos()).exp() * (x.cos() ** 2 - x.sin() ** 2)).detach())


def test_captured_parameters_get_gradients():
    lin = nn.Linear(6, 4)
    x = ember.randn(3, 6)
    expected = ember.autograd.grad(lin(x).tanh().sum(), [lin.weight, lin.bias])
    got = ember.autograd.grad(ember.compile(lambda x: lin(x).tanh().sum())(x), [lin.weight, lin.bias])
    for e, g in zip(expected, got):
        _close(g, e)


def _mlp():
    return nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU(),
                         nn.Linear(16, 10))


def _cnn():
    return nn.Sequential(
        nn.Conv2d(1, 4, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(4, 8, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(8 * 2 * 2, 10))


@pytest.mark.parametrize("make", [_mlp, _cnn], ids=["mlp", "cnn"])
def test_twenty_training_steps_match_eager(make):
    ember.manual_seed(0)
    eager_model = make()
    compiled_model = make()
    compiled_model.load_state_dict(eager_model.state_dict())
    step_model = ember.compile(compiled_model)
    images = ember.randn(20, 32, 1, 8, 8)
    labels = ember.randint(0, 10, (20, 32))
    results = []
    for model, forward in ((eager_model, eager_model), (compiled_model, step_model)):
        opt = ember.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        losses = []
        for i in range(20):
            opt.zero_grad()
            loss = F.cross_entropy(forward(images[i]), labels[i])
            loss.backward()
            opt.step()
            losses.append(loss.item())
        results.append((losses, [p.detach().clone() for p in model.parameters()]))
    (eager_losses, eager_params), (compiled_losses, compiled_params) = results
    for e, c in zip(eager_losses, compiled_losses):
        assert abs(e - c) <= 1e-5 * abs(e) + 1e-6, (eager_losses, compiled_losses)
    for e, c in zip(eager_params, compiled_params):
        _close(c, e, rtol=1e-5, atol=1e-5)
    assert len(step_model.forward.variants) == 1


def test_hooks_and_retain_graph_behave_as_in_eager():
    f = ember.compile(lambda x, w: (x * w).sigmoid())
    x = ember.randn(4, 4)
    w = ember.randn(4, 4, requires_grad=True)
    seen = []
    w.register_hook(lambda g: seen.append(g.clone()))
    y = f(x, w)
    y.register_hook(lambda g: g * 2)
    y.sum().backward(retain_graph=True)
    expected = (2 * x * (x * w).sigmoid() * (1 - (x * w).sigmoid())).detach()
    _close(w.grad, expected)
    assert len(seen) == 1
    _close(seen[0], expected)
    y.sum().backward()
    _close(w.grad, 2 * expected)
    with pytest.raises(RuntimeError, match="second time"):
        y.sum().backward()


def test_no_grad_calls_compile_an_inference_graph():
    w = ember.randn(3, requires_grad=True)
    f = ember.compile(lambda x: (x * w).exp())
    x = ember.randn(3)
    with ember.no_grad():
        y = f(x)
    assert not y.requires_grad
    z = f(x)
    assert z.requires_grad
    z.sum().backward()
    _close(w.grad, (x * (x * w).exp()).detach())


def test_non_differentiable_outputs_and_returned_arguments():
    f = ember.compile(lambda x: (x, x.argmax(), x.exp()))
    x = ember.randn(5, requires_grad=True)
    same, index, e = f(x)
    assert same is x or ember.equal(same, x)
    assert not index.requires_grad
    (e.sum() + same.sum()).backward()
    _close(x.grad, (x.exp() + 1).detach())


def test_create_graph_runs_the_backward_eagerly_and_explain_says_so():
    def f(x):
        return (x ** 3).sum()

    cf = ember.compile(f)
    x = ember.randn(4, requires_grad=True)
    (g,) = ember.autograd.grad(cf(x), [x], create_graph=True)
    _close(g, (3 * x ** 2).detach())
    (gg,) = ember.autograd.grad(g.sum(), [x])
    _close(gg, (6 * x).detach())
    out = compiler.explain(cf, x)
    assert any("create_graph" in r for r in out.eager_reasons), out.eager_reasons


def test_a_parameter_that_starts_requiring_grad_retraces():
    w = ember.randn(3)
    f = ember.compile(lambda x: (x * w).sum())
    x = ember.randn(3, requires_grad=True)
    f(x).backward()
    w.requires_grad_(True)
    f(x).backward()
    _close(w.grad, x.detach())
    assert any("requires grad now" in r for r in f._ember_compiled.recompile_reasons)


@needs_generator
def test_the_partition_recomputes_pointwise_values_instead_of_saving_them():
    def chain(x):
        y = x
        for _ in range(6):
            y = (y.sin() * 1.5).tanh()
        return y.sum()

    f = ember.compile(chain)
    x = ember.randn(4096, requires_grad=True)
    f(x).backward()
    expected = ember.autograd.grad(chain(x), [x])[0]
    _close(x.grad, expected)
    plan = _training(f)[0]
    # Saving every intermediate the derivatives read would keep about a dozen
    # float32 vectors; recomputing from x keeps none but x.
    assert plan.save_everything_bytes >= 6 * 4096 * 4
    assert plan.saved_bytes < plan.save_everything_bytes
    assert plan.saved_bytes == 0


def test_matmul_outputs_are_saved_not_recomputed():
    f = ember.compile(lambda x, w: (x @ w).relu().sum())
    x = ember.randn(16, 8, requires_grad=True)
    w = ember.randn(8, 4, requires_grad=True)
    f(x, w).backward()
    plan = _training(f)[0]
    # The product runs once, in the forward; the backward has the two gradient products.
    assert plan.forward.graph["code"].count(" mm(") == 1
    assert plan.backward.graph["code"].count(" mm(") == 2
    _close(w.grad, (x.t() @ ((x @ w) > 0).to(ember.float32)).detach())


def test_a_saved_view_at_an_offset_is_read_from_its_own_first_element():
    # The backward reads y[1] as an input of its own: the view's offset
    # into the stacked tensor belongs to the forward only.
    def f(x, w):
        y = ember.stack([x * w, x + w])
        s = y[1]
        return (s.sin() * s).sum()

    x = ember.randn(3, requires_grad=True)
    w = ember.randn(3, requires_grad=True)
    expected = ember.autograd.grad(f(x, w), [x, w])
    got = ember.autograd.grad(ember.compile(f)(x, w), [x, w])
    for g, e in zip(got, expected):
        _close(g, e)


LSTM_OPTIONS = {
    "one layer": {},
    "two layers": {"num_layers": 2},
    "bidirectional": {"bidirectional": True},
    "batch first, two bidirectional layers": {"batch_first": True, "num_layers": 2, "bidirectional": True},
    "without biases": {"bias": False},
}


def _ops(plan):
    return [n["op"] for n in plan.graph["nodes"]]


@pytest.mark.parametrize("options", LSTM_OPTIONS.values(), ids=LSTM_OPTIONS)
def test_a_compiled_lstm_runs_the_fused_layer_with_eagers_values_and_gradients(options):
    # Each layer and direction is one lstm_layer extern call forward and one
    # lstm_layer_backward backward, the kernels eager runs, so values and
    # gradients are eager's to the bit (Note [Ops answered from shapes in traces]).
    ember.manual_seed(0)
    lstm = nn.LSTM(4, 6, **options)
    x = ember.randn(*((2, 5, 4) if options.get("batch_first") else (5, 2, 4)), requires_grad=True)
    compiled = ember.compile(lstm)
    results = []
    for forward in (lstm, compiled):
        x.grad = None
        lstm.zero_grad()
        out, (h, c) = forward(x)
        (out.pow(2).sum() + h.sin().sum() + c.sum()).backward()
        results.append([out, h, c, x.grad] + [p.grad for p in lstm.parameters()])
    for e, g in zip(*results):
        assert ember.equal(g, e), (g - e).abs().max().item()
    plan = _training(compiled)[0]
    calls = options.get("num_layers", 1) * (2 if options.get("bidirectional") else 1)
    assert _ops(plan.forward).count("lstm_layer") == calls
    assert _ops(plan.backward).count("lstm_layer_backward") == calls
    assert "sigmoid" not in _ops(plan.forward) + _ops(plan.backward)


def test_a_compiled_lstm_trains_as_eager_does():
    ember.manual_seed(0)
    lstm = nn.LSTM(4, 6)
    x = ember.randn(5, 2, 4)

    def step(x):
        out, (h, c) = lstm(x)
        return out.pow(2).sum() + c.sum()

    step(x).backward()
    expected = [p.grad.clone() for p in lstm.parameters()]
    lstm.zero_grad()
    compiled = ember.compile(step)
    _close(compiled(x), step(x))
    compiled(x).backward()
    for p, e in zip(lstm.parameters(), expected):
        _close(p.grad, e)
    explained = compiler.explain(step, x)
    assert explained.graph_break_count == 0
    assert explained.ops_per_graph[0].count("lstm_layer") == 1


def test_a_compiled_lstm_without_grad_runs_the_layer_without_a_workspace():
    ember.manual_seed(0)
    lstm = nn.LSTM(4, 6, num_layers=2)
    x = ember.randn(5, 2, 4)
    compiled = ember.compile(lstm)
    with ember.no_grad():
        out, (h, c) = lstm(x)
        compiled_out, (compiled_h, compiled_c) = compiled(x)
    for e, g in ((out, compiled_out), (h, compiled_h), (c, compiled_c)):
        assert ember.equal(g, e)
    plan = compiled.forward.variants[0].graphs[0]
    assert _ops(plan).count("lstm_layer") == 2 and "sigmoid" not in _ops(plan)
    # oneDNN's inference pass, which keeps nothing for a backward.
    assert all(n["attrs"]["workspace_bytes"] == 0 for n in plan.graph["nodes"] if n["op"] == "lstm_layer")


UNARY = ["exp", "log", "sin", "cos", "tanh", "sigmoid", "sqrt", "relu", "abs", "neg", "reciprocal",
         "erf", "expm1", "log1p", "rsqrt", "tan"]


@pytest.mark.parametrize("name", UNARY)
def test_gradient_parity_of_unary_ops(name):
    op = getattr(ember, name)
    x = (ember.rand(37) + 0.5).requires_grad_()
    expected = ember.autograd.grad(op(x).sum(), [x])[0]
    got = ember.autograd.grad(ember.compile(lambda t: op(t).sum())(x), [x])[0]
    _close(got, expected)


BINARY = ["add", "sub", "mul", "div", "pow", "maximum", "minimum"]


@pytest.mark.parametrize("name", BINARY)
def test_gradient_parity_of_binary_ops_with_broadcasting(name):
    op = getattr(ember, name)
    a = (ember.rand(5, 7) + 0.5).requires_grad_()
    b = (ember.rand(7) + 0.5).requires_grad_()
    expected = ember.autograd.grad(op(a, b).sum(), [a, b])
    got = ember.autograd.grad(ember.compile(lambda x, y: op(x, y).sum())(a, b), [a, b])
    for e, g in zip(expected, got):
        _close(g, e)


REDUCTIONS = [
    ("sum", lambda x: x.sum(1)),
    ("mean", lambda x: x.mean(0)),
    ("amax", lambda x: x.amax(1)),
    ("softmax", lambda x: F.softmax(x, dim=1)),
    ("log_softmax", lambda x: F.log_softmax(x, dim=0)),
    ("layer_norm", lambda x: F.layer_norm(x, (9,))),
    ("var", lambda x: x.var(1)),
    ("norm", lambda x: x.norm(dim=1)),
    ("logsumexp", lambda x: x.logsumexp(1)),
    ("cross_entropy", lambda x: F.cross_entropy(x, ember.tensor([1, 0, 3, 8, 2, 2]))),
    ("mse", lambda x: F.mse_loss(x, ember.ones(6, 9))),
    ("gelu", lambda x: F.gelu(x)),
    ("view_transpose", lambda x: x.t().reshape(3, 18) * 2),
]


@pytest.mark.parametrize("name,fn", REDUCTIONS, ids=[n for n, _ in REDUCTIONS])
def test_gradient_parity_of_reductions_norms_and_views(name, fn):
    x = ember.randn(6, 9, requires_grad=True)
    weights = ember.randn(*fn(x).shape)
    expected = ember.autograd.grad((fn(x) * weights).sum(), [x])[0]
    got = ember.autograd.grad(ember.compile(lambda t: (fn(t) * weights).sum())(x), [x])[0]
    _close(got, expected)


def test_a_graph_break_in_training_runs_eagerly_with_the_reason():
    def f(x):
        y = x.exp()
        if y.sum().item() > 0:
            y = y * 2
        return y.sum()

    cf = ember.compile(f)
    x = ember.randn(3, requires_grad=True)
    cf(x).backward()
    _close(x.grad, (2 * x.exp()).detach())
    reasons = compiler.explain(cf, x).eager_reasons
    assert any("cannot break" in r for r in reasons), reasons


def test_dropout_draws_eager_numbers_compiled_and_in_training():
    def f(x, w):
        return F.dropout((x @ w).relu(), p=0.3, training=True).sum(1)

    x = ember.randn(16, 8)
    w = ember.randn(8, 32, requires_grad=True)
    cf = ember.compile(f)
    for _ in range(3):  # the first call traces; later calls run the plans
        ember.manual_seed(7)
        expected = f(x, w)
        (expected_grad,) = ember.autograd.grad(expected.sum(), [w])
        ember.manual_seed(7)
        got = cf(x, w)
        (got_grad,) = ember.autograd.grad(got.sum(), [w])
        _close(got, expected)
        _close(got_grad, expected_grad)
    # Each call draws anew.
    assert not ember.equal(cf(x, w), cf(x, w))


def test_random_ops_in_an_inference_graph_follow_the_seed():
    f = ember.compile(lambda x: x + ember.randn(x.shape) * ember.rand(x.shape))
    x = ember.zeros(1000)
    ember.manual_seed(3)
    eager = [x + ember.randn(x.shape) * ember.rand(x.shape) for _ in range(2)]
    ember.manual_seed(3)
    compiled = [f(x) for _ in range(2)]
    for e, c in zip(eager, compiled):
        assert ember.equal(e, c)
