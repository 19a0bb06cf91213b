"""Module backward hooks and forward hooks' options against PyTorch:
register_full_backward_hook, register_full_backward_pre_hook,
register_forward_hook(prepend=, with_kwargs=)."""

import warnings

import pytest


def backward_hook_log(library):
    nn = library.nn
    log = []
    layer = nn.Linear(3, 2)
    with library.no_grad():
        layer.weight.copy_(library.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
        layer.bias.zero_()

    def listed(grads):
        return [None if g is None else g.tolist() for g in grads]

    def hook(module, grad_input, grad_output):
        log.append(("full", listed(grad_input), listed(grad_output)))

    def pre_hook(module, grad_output):
        log.append(("pre", listed(grad_output)))
        return (grad_output[0] * 2,)

    layer.register_full_backward_hook(hook)
    pre = layer.register_full_backward_pre_hook(pre_hook)
    x = library.tensor([[1.0, 1.0, 1.0]], requires_grad=True)
    layer(x).sum().backward()
    log.append(("grads", x.grad.tolist(), layer.weight.grad.tolist()))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        layer(library.ones(1, 3)).sum().backward()  # no input requires grad: grad_input is (None,)
    log.append(("warned", [str(w.message)[:40] for w in caught]))
    pre.remove()
    layer.register_full_backward_hook(lambda module, grad_input, grad_output: (grad_input[0] * 0,))
    x.grad = None
    layer(x).sum().backward()
    log.append(("replaced", x.grad.tolist()))

    class Two(nn.Module):
        def forward(self, a, k, b):
            return a * b, a + k

    two = Two()
    two.register_full_backward_hook(hook)
    a, b = library.ones(2, requires_grad=True), library.full((2,), 3.0)
    first, second = two(a, 2.0, b)
    (first.sum() + 2 * second.sum()).backward()
    log.append(("two", a.grad.tolist()))
    return log


def test_full_backward_hooks_see_and_replace_what_pytorchs_do(torch):
    import ember

    assert backward_hook_log(ember) == backward_hook_log(torch)


def test_a_hook_returning_the_wrong_count_is_an_error():
    import ember

    layer = ember.nn.Linear(2, 2)
    layer.register_full_backward_hook(lambda module, grad_input, grad_output: (None, None))
    with pytest.raises(RuntimeError, match="Backward hook returned an invalid number of grad_input, got 2, but "
                                           "expected 1"):
        layer(ember.ones(1, 2, requires_grad=True)).sum().backward()


def test_forward_hooks_take_prepend_and_with_kwargs(torch):
    def run(library):
        seen = []

        class Scaled(library.nn.Module):
            def forward(self, x, scale=1.0):
                return x * scale

        module = Scaled()
        module.register_forward_hook(lambda m, args, kwargs, out: seen.append(("kwargs", sorted(kwargs))),
                                     with_kwargs=True)
        module.register_forward_hook(lambda m, args, out: seen.append(("first", out.tolist())), prepend=True)
        module(library.ones(1), scale=2.0)
        return seen

    import ember

    assert run(ember) == run(torch) == [("first", [2.0]), ("kwargs", ["scale"])]
