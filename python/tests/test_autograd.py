"""ember.autograd against PyTorch: backward, grad, custom Functions, grad
modes as context managers and decorators, hooks."""

import threading

import pytest

import ember
from ember.autograd import Function
from helpers import assert_close


def leaf_pair(torch, shape, seed):
    ember.manual_seed(seed)
    e = ember.randn(*shape)
    t = torch.from_numpy(e.numpy().copy())
    return e.requires_grad_(), t.requires_grad_()


def test_backward_matches_pytorch(torch):
    x, tx = leaf_pair(torch, (3, 4), 0)
    w, tw = leaf_pair(torch, (4, 2), 1)

    def model(lib, x, w):
        h = (x @ w).tanh() * 2 + x.sum(1, keepdim=True).sigmoid()
        return (h.softmax(1) * h).mean() + (x ** 2).sum() / 3

    model(ember, x, w).backward()
    model(torch, tx, tw).backward()
    assert_close(x.grad, tx.grad, rtol=1e-4, atol=1e-6)
    assert_close(w.grad, tw.grad, rtol=1e-4, atol=1e-6)


def test_backward_with_gradient_and_retain_graph(torch):
    x, tx = leaf_pair(torch, (3,), 2)
    y, ty = x * x, tx * tx
    seed = [1.0, 0.5, -1.0]
    y.backward(ember.tensor(seed), retain_graph=True)
    y.backward(ember.tensor(seed))
    ty.backward(torch.tensor(seed), retain_graph=True)
    ty.backward(torch.tensor(seed))
    assert_close(x.grad, tx.grad)
    with pytest.raises(RuntimeError, match="second time"):
        y.backward(ember.tensor(seed))
    ember.autograd.backward([(x * 3).sum()])
    assert_close(x.grad, tx.grad + 3)


def test_a_linear_weight_gradient_reaches_grad_without_a_copy(torch):
    """The weight's gradient is computed in the weight's layout and reaches
    .grad as a transposed view of a product nothing else holds: .grad takes
    that memory (no copy kernel runs), and later backward passes add into it."""
    x, tx = leaf_pair(torch, (8, 6), 0)
    w, tw = leaf_pair(torch, (5, 6), 1)
    with ember.profiler.profile() as prof:
        ember.nn.functional.linear(x, w).square().sum().backward()
    assert "copy" not in {event.key for event in prof.key_averages()}
    assert w.grad.is_contiguous()
    first = w.grad.clone()
    ember.nn.functional.linear(x, w).square().sum().backward()
    for _ in range(2):
        torch.nn.functional.linear(tx, tw).square().sum().backward()
    assert_close(w.grad, tw.grad, rtol=1e-5, atol=1e-5)
    assert_close(first * 2, w.grad, rtol=1e-6, atol=1e-6)


def test_grad_and_higher_order(torch):
    x, tx = leaf_pair(torch, (4,), 3)
    (g,) = ember.autograd.grad((x ** 3).sum(), x, create_graph=True)
    (tg,) = torch.autograd.grad((tx ** 3).sum(), tx, create_graph=True)
    assert_close(g, tg, rtol=1e-5)
    (gg,) = ember.autograd.grad(g.sum(), x)
    (tgg,) = torch.autograd.grad(tg.sum(), tx)
    assert_close(gg, tgg, rtol=1e-5)
    assert x.grad is None
    unused = ember.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError):
        ember.autograd.grad((x * 2).sum(), [x, unused])
    grads = ember.autograd.grad((x * 2).sum(), [x, unused], allow_unused=True)
    assert grads[1] is None
    grads = ember.autograd.grad((x * 2).sum(), [x, unused], materialize_grads=True)
    assert grads[1].tolist() == [0.0, 0.0]


def test_grad_takes_pytorchs_other_arguments(torch):
    def run(library):
        x = library.tensor([1.0, 2.0, 3.0], requires_grad=True)
        w = library.tensor([0.5, -1.0, 2.0], requires_grad=True)
        unused = library.ones(2, requires_grad=True)
        y, z = (x * x * w).sum(), x * w
        with pytest.warns(FutureWarning, match="only_inputs argument is deprecated"):
            (plain,) = library.autograd.grad(y, x, only_inputs=False, retain_graph=True)
        (jacobian,) = library.autograd.grad(z, x, library.eye(3), is_grads_batched=True, retain_graph=True)
        by_name = library.autograd.grad(y, {"x": x, "w": w}, retain_graph=True)
        batched = library.autograd.grad(z, [x, unused], library.eye(3), is_grads_batched=True,
                                        materialize_grads=True)
        return (plain.tolist(), jacobian.tolist(), sorted(by_name), by_name["w"].tolist(),
                [list(g.shape) for g in batched])

    assert run(ember) == run(torch)


def test_leaf_and_requires_grad_state():
    x = ember.ones(2)
    assert not x.requires_grad and x.is_leaf and x.grad_fn is None
    x.requires_grad = True
    y = x * 2
    assert y.requires_grad and not y.is_leaf and y.grad_fn.name()
    assert y.grad_fn.next_functions
    assert not y.detach().requires_grad
    with pytest.raises(RuntimeError, match="floating point"):
        ember.ones(2, dtype=ember.int64).requires_grad_()
    x.grad = ember.full((2,), 3.0)
    assert x.grad.tolist() == [3.0, 3.0]
    x.grad = None
    assert x.grad is None


def test_grad_modes():
    x = ember.ones(2, requires_grad=True)
    with ember.no_grad():
        assert not ember.is_grad_enabled()
        assert not (x * 2).requires_grad
        with ember.enable_grad():
            assert (x * 2).requires_grad
        assert not (x * 2).requires_grad
    assert ember.is_grad_enabled()
    with ember.inference_mode():
        assert not (x * 2).requires_grad
    with ember.inference_mode(False):
        assert (x * 2).requires_grad

    @ember.no_grad()
    def doubled(t):
        return t * 2

    @ember.enable_grad()
    def tripled(t):
        return t * 3

    assert not doubled(x).requires_grad and ember.is_grad_enabled()
    with ember.no_grad():
        assert tripled(x).requires_grad

    ember.set_grad_enabled(False)
    assert not ember.is_grad_enabled()
    ember.set_grad_enabled(True)
    with ember.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert ember.is_grad_enabled()


def test_grad_mode_is_per_thread():
    seen = []
    with ember.no_grad():
        thread = threading.Thread(target=lambda: seen.append(ember.is_grad_enabled()))
        thread.start()
        thread.join()
    assert seen == [True]


class Cube(Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return x ** 3 * scale

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x ** 2 * ctx.scale, None


class SplitSign(Function):
    @staticmethod
    def forward(ctx, x):
        positive = x > 0
        ctx.mark_non_differentiable(positive)
        ctx.save_for_backward(positive)
        return x.abs(), positive

    @staticmethod
    def backward(ctx, grad_abs, grad_positive):
        # PyTorch hands zeros of the output's dtype for an output no gradient reached.
        assert grad_positive.dtype == ember.bool and not grad_positive.any()
        (positive,) = ctx.saved_tensors
        return grad_abs * (positive.float() * 2 - 1)


def test_custom_function(torch):
    x, tx = leaf_pair(torch, (5,), 4)
    y = Cube.apply(x, 2.0)
    assert "Cube" in y.grad_fn.name()
    y.sum().backward()
    (tx ** 3 * 2.0).sum().backward()
    assert_close(x.grad, tx.grad, rtol=1e-5)
    x.grad = None
    magnitude, positive = SplitSign.apply(x)
    assert not positive.requires_grad and magnitude.requires_grad
    magnitude.sum().backward()
    assert_close(x.grad, tx.detach().sign())
    with ember.no_grad():
        assert not Cube.apply(x, 1.0).requires_grad


def test_custom_function_context_and_errors():
    needs = []

    class Probe(Function):
        @staticmethod
        def forward(ctx, a, b, c):
            needs.append(ctx.needs_input_grad)
            return a * b

        @staticmethod
        def backward(ctx, grad):
            raise ValueError("backward failed on purpose")

    a = ember.ones(2, requires_grad=True)
    out = Probe.apply(a, ember.ones(2), 3)
    assert needs == [(True, False, False)]
    with pytest.raises(ValueError, match="on purpose"):
        out.sum().backward()

    class BadForward(Function):
        @staticmethod
        def forward(ctx, a):
            return 3

    with pytest.raises(TypeError, match="forward must return"):
        BadForward.apply(a)
    ctx = ember.autograd.FunctionCtx()
    with pytest.raises(RuntimeError, match="only available inside"):
        ctx.saved_tensors


def test_hooks_see_and_replace_gradients():
    x = ember.ones(3, requires_grad=True)
    seen = []
    y = x * 2
    y.register_hook(lambda g: seen.append(g.tolist()))
    y.register_hook(lambda g: g * 10)
    y.sum().backward()
    assert seen == [[1.0, 1.0, 1.0]]
    assert x.grad.tolist() == [20.0, 20.0, 20.0]


def test_inplace_on_saved_tensor_is_an_error():
    x = ember.ones(3, requires_grad=True)
    y = x * 1
    z = y * y
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace"):
        z.sum().backward()
    with pytest.raises(RuntimeError, match="leaf"):
        x.add_(1)


def test_retain_grad_keeps_a_non_leaf_gradient(torch):
    for library in (torch, ember):
        x = library.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        assert not y.retains_grad
        y.retain_grad()
        y.retain_grad()  # a second call adds no second hook
        x.retain_grad()  # a leaf keeps its gradient anyway
        assert y.retains_grad and not x.retains_grad
        (y * y).sum().backward(retain_graph=True)
        (y * y).sum().backward()
        assert y.grad.tolist() == [12.0, 24.0]  # 2y, accumulated over both passes
        with pytest.raises(RuntimeError):
            library.ones(2).retain_grad()


def _non_leaf_input_gradients(library):
    """The .grad of a non-leaf listed in backward's inputs, over later passes."""
    x = library.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    loss = (y * y).sum()
    seen = []
    loss.backward(inputs=[y], retain_graph=True)
    seen.append((y.retains_grad, y.grad.tolist(), x.grad))
    loss.backward(inputs=[y], retain_graph=True)  # the pass ends at y
    loss.backward(retain_graph=True)  # a pass without inputs stores into y.grad too
    (y * 3).sum().backward(inputs=[y, x])  # a pass through y on to x
    seen.append((y.grad.tolist(), x.grad.tolist()))
    z = x * 2
    (z * z).sum().backward(inputs=[z], create_graph=True)
    (z * z).sum().backward(create_graph=True)
    seen.append((z.grad.tolist(), z.grad.requires_grad))
    return seen


@pytest.mark.filterwarnings(r"ignore:Using backward\(\) with create_graph=True")
def test_a_non_leaf_input_of_backward_retains_its_gradient_as_pytorchs(torch):
    assert _non_leaf_input_gradients(ember) == _non_leaf_input_gradients(torch)


@pytest.mark.filterwarnings(r"ignore:Using backward\(\) with create_graph=True")
def test_retain_grad_keeps_the_gradients_graph_under_create_graph(torch):
    for library in (torch, ember):
        x = library.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        y.retain_grad()
        (y * y).sum().backward(create_graph=True)
        assert y.grad.requires_grad
        y.grad.sum().backward(inputs=[x])
        assert x.grad.tolist() == [24.0, 42.0]  # 18x from the first pass, and 6 from y.grad = 2y = 6x


def test_detach_in_place_makes_a_leaf(torch):
    for library in (torch, ember):
        x = library.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        assert y.detach_() is y
        assert not y.requires_grad and y.grad_fn is None and y.is_leaf
        z = x * 2
        with pytest.raises(RuntimeError):
            z[:1].detach_()  # a view of a tensor with history


def test_gradcheck_accepts_right_and_refuses_wrong_gradients():
    x = ember.tensor([[0.3, -1.2], [2.0, 0.5]], dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: (t * t).sum(1), (x,))
    assert not ember.autograd.gradcheck(lambda t: (t * t).detach() * t, (x,), raise_exception=False)
    with pytest.raises(ember.autograd.GradcheckError, match="Jacobian mismatch"):
        ember.autograd.gradcheck(lambda t: (t * t).detach() * t, (x,))
    with pytest.raises(ValueError, match="float64"):
        ember.autograd.gradcheck(lambda t: t * 2, (ember.ones(2, requires_grad=True),))


@pytest.mark.parametrize("views", [
    lambda x: x.unfold(0, 3, 2).unfold(1, 2, 1),
    lambda x: x.unfold(0, 4, 1).as_strided((3, 2), (1, 1), 1),
    lambda x: x.expand(3, 10).as_strided((4, 3), (2, 1)),
    lambda x: x.as_strided((5, 3), (1, 2)),
], ids=["unfold_of_unfold", "as_strided_of_unfold", "as_strided_of_expand", "overlapping_as_strided"])
def test_views_of_overlapping_views_match_pytorch(torch, views):
    # A base whose elements share addresses gets each address's gradient shared out among them.
    x, tx = leaf_pair(torch, (10,), 4)
    y, ty = views(x), views(tx)
    w = ember.randn(*y.shape)
    (y * w).sum().backward()
    (ty * torch.from_numpy(w.numpy().copy())).sum().backward()
    assert_close(x.grad, tx.grad, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("how, node", [
    (lambda x: x.split(2, 1), "SplitBackward0"),
    (lambda x: x.chunk(3, 1), "SplitBackward0"),
    (lambda x: x.split([1, 3, 2], 1), "SplitWithSizesBackward0"),
])
def test_split_pieces_share_one_node_and_match_pytorch(torch, how, node):
    x, tx = leaf_pair(torch, (4, 6), 3)
    pieces, tpieces = how(x), how(tx)
    assert all(p.grad_fn is pieces[0].grad_fn for p in pieces)
    assert type(tpieces[0].grad_fn).__name__ == node == pieces[0].grad_fn.name()
    # The middle piece gets no gradient: zeros stand in for it.
    (pieces[0] * 2).sum().backward(retain_graph=True)
    (tpieces[0] * 2).sum().backward(retain_graph=True)
    (pieces[-1].exp() * pieces[0]).sum().backward()
    (tpieces[-1].exp() * tpieces[0]).sum().backward()
    assert_close(x.grad, tx.grad, rtol=1e-5, atol=1e-6)


def test_split_gradients_of_gradients_and_writes_into_pieces(torch):
    x, tx = leaf_pair(torch, (6,), 4)
    first, second = x.chunk(2)
    tfirst, tsecond = tx.chunk(2)
    (grad,) = ember.autograd.grad((first ** 3).sum() + (second ** 2).sum(), x, create_graph=True)
    (tgrad,) = torch.autograd.grad((tfirst ** 3).sum() + (tsecond ** 2).sum(), tx, create_graph=True)
    assert_close(grad, tgrad, rtol=1e-5, atol=1e-6)
    (grad * grad).sum().backward()
    (tgrad * tgrad).sum().backward()
    assert_close(x.grad, tx.grad, rtol=1e-5, atol=1e-5)
    # A write into a piece reaches its base's history (PyTorch refuses this
    # write; the gradient Ember gives is the one the arithmetic implies).
    z = x.detach().clone().requires_grad_()
    w = z * 1
    w.chunk(2)[0].mul_(3)
    w.sum().backward()
    assert z.grad.tolist() == [3.0] * 3 + [1.0] * 3
    # Without a gradient to record, the pieces are plain views.
    with ember.no_grad():
        assert all(p.grad_fn is None for p in x.split(4))
