"""autograd.Function as PyTorch programs write it today: forward without
ctx plus setup_context, zeros for the outputs no gradient reached (unless
set_materialize_grads(False)), None among saved tensors, once_differentiable,
and gradgradcheck; against PyTorch 2.13."""

import pytest

import ember

from helpers import assert_close


def _cube_function(lib):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x ** 3, 3 * x ** 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, = inputs
            ctx.save_for_backward(x, output[1], None)

        @staticmethod
        def backward(ctx, grad_output, grad_dx):
            x, dx, nothing = ctx.saved_tensors
            assert nothing is None
            return grad_output * dx + grad_dx * 6 * x

    return Cube


@pytest.mark.parametrize("use_both", [False, True])
def test_setup_context_and_materialized_grads(torch, use_both):
    results = []
    for lib in (ember, torch):
        x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
        cube, dx = _cube_function(lib).apply(x)
        # Only `cube` is used unless use_both: backward then gets zeros for dx's gradient.
        loss = cube.sum() + (dx.sum() if use_both else 0)
        first, = lib.autograd.grad(loss, x, create_graph=True)
        second, = lib.autograd.grad(first.sum(), x)
        results.append((first.detach(), second))
    for ours, theirs in zip(*results):
        assert_close(ours, theirs)


def test_set_materialize_grads_false_passes_none():
    seen = []

    class Pair(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, a, b):
            seen.append((a is None, b is None))
            return a * 2

    x = ember.ones(2, requires_grad=True)
    first, _ = Pair.apply(x)
    first.sum().backward()
    assert seen == [(False, True)]
    assert x.grad.tolist() == [2.0, 2.0]


def test_once_differentiable_refuses_a_second_derivative(torch):
    for lib in (ember, torch):
        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            @lib.autograd.function.once_differentiable
            def backward(ctx, grad):
                x, = ctx.saved_tensors
                assert not lib.is_grad_enabled()
                return 2 * x * grad

        x = lib.tensor([3.0], requires_grad=True)
        # A gradient that does not require grad gives a result without history, as in PyTorch.
        first, = lib.autograd.grad(Square.apply(x).sum(), x, create_graph=True)
        assert first.item() == 6.0 and first.grad_fn is None
        seed = lib.ones(1, requires_grad=True)
        first, = lib.autograd.grad(Square.apply(x), x, seed, create_graph=True)
        assert first.item() == 6.0 and first.requires_grad
        with pytest.raises(RuntimeError, match="trying to differentiate twice a function that was marked with "
                                               "@once_differentiable"):
            first.backward()
        y = lib.tensor([2.0], requires_grad=True)
        Square.apply(y).backward()
        assert y.grad.item() == 4.0


def test_gradgradcheck_accepts_right_and_rejects_wrong_second_derivatives():
    x = ember.tensor([0.3, -0.7], dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradgradcheck(lambda t: (t.sin() * t).sum(), (x,))
    assert ember.autograd.gradgradcheck(_cube_function(ember).apply, (x,))

    class WrongSecond(ember.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t ** 3

        @staticmethod
        def backward(ctx, grad):
            t, = ctx.saved_tensors
            return grad * 3 * t.detach() ** 2  # right first derivative, its own derivative lost

    assert ember.autograd.gradcheck(WrongSecond.apply, (x,))
    assert not ember.autograd.gradgradcheck(WrongSecond.apply, (x,), raise_exception=False)
    with pytest.raises(ember.autograd.GradcheckError, match="Jacobian mismatch"):
        ember.autograd.gradgradcheck(WrongSecond.apply, (x,))
