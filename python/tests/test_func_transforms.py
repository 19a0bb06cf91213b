"""ember.func (torch.func): grad, grad_and_value, vjp, jacrev, jacfwd,
hessian, vmap and functional_call against PyTorch 2.13's."""

import pytest

import ember

from helpers import assert_close, linear_with


def _f(T):
    return lambda x, y: (x.sin() * x * y).sum()


CALLS = {
    "grad": lambda T, x, y: T.func.grad(_f(T))(x, y),
    "grad-argnums": lambda T, x, y: T.func.grad(_f(T), argnums=(0, 1))(x, y)[1],
    "grad_and_value": lambda T, x, y: T.func.grad_and_value(_f(T))(x, y)[1],
    "grad-of-grad": lambda T, x, y: T.func.grad(lambda z: T.func.grad(lambda w: (w ** 3).sum())(z).sum())(x),
    "jacrev": lambda T, x, y: T.func.jacrev(lambda a: a.exp() * a.sum())(x),
    "jacfwd": lambda T, x, y: T.func.jacfwd(lambda a, b: a * b, argnums=1)(x, y),
    "hessian": lambda T, x, y: T.func.hessian(lambda a: (a.sin() * a).sum())(x),
    "vjp": lambda T, x, y: T.func.vjp(lambda a: a.exp() * 2, x)[1](y)[0],
    "vmap": lambda T, x, y: T.func.vmap(lambda a, b: (a * b).sum(), in_dims=(0, None))(T.stack([x, y]), y),
    "vmap-out-dims": lambda T, x, y: T.vmap(lambda a: (a, a * 2), out_dims=(0, 1))(T.stack([x, y]))[1],
}


@pytest.mark.parametrize("call", CALLS.values(), ids=CALLS.keys())
def test_transforms_match_pytorch(call, torch):
    data_x, data_y = [0.3, -1.2, 0.8], [1.1, 0.4, -0.6]
    ours = call(ember, ember.tensor(data_x), ember.tensor(data_y))
    theirs = call(torch, torch.tensor(data_x), torch.tensor(data_y))
    assert_close(ours, theirs)
    assert ours.grad_fn is None  # plain tensors when nothing outside differentiates


def test_functional_call_uses_the_given_tensors_for_one_call(torch):
    for library in (torch, ember):
        model = library.nn.Sequential(library.nn.Linear(2, 2), library.nn.ReLU(), library.nn.Linear(2, 1))
        before = [p.clone() for p in model.parameters()]
        replaced = {name: library.ones_like(p) for name, p in model.named_parameters()}
        out = library.func.functional_call(model, replaced, (library.ones(1, 2),))
        assert out.tolist() == [[7.0]]
        assert all((a == b).all() for a, b in zip(before, model.parameters()))
        with pytest.raises(Exception):
            library.func.functional_call(model, {"nope.weight": library.ones(1)}, (library.ones(1, 2),))


def test_grads_through_functional_call_reach_the_given_tensors():
    model = ember.nn.Linear(2, 1)
    weights = {name: p.detach().clone().requires_grad_() for name, p in model.named_parameters()}
    loss = ember.func.functional_call(model, weights, (ember.tensor([[1.0, 2.0]]),)).sum()
    loss.backward()
    assert weights["weight"].grad.tolist() == [[1.0, 2.0]] and weights["bias"].grad.tolist() == [1.0]
    assert model.weight.grad is None


def test_grad_takes_a_dict_of_parameters_as_torch_func_does(torch):
    found = {}
    for library in (torch, ember):
        model = linear_with(library, [[1.0, -1.0, 0.5], [0.2, 0.3, -0.4]], [0.1, -0.1])
        params = {name: p.detach() for name, p in model.named_parameters()}
        x = library.tensor([[1.0, 2.0, 3.0]])

        def loss(p, data):
            return library.func.functional_call(model, p, (data,)).pow(2).sum()

        grads = library.func.grad(loss)(params, x)
        found[library] = {name: g.tolist() for name, g in grads.items()}
        assert all(g.grad_fn is None for g in grads.values())
    assert found[ember] == found[torch]
