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


def _ensemble(lib, weights):
    models = []
    for weight, bias in weights:
        layer = linear_with(lib, weight, bias)
        models.append(layer)
    return models


def test_vmap_over_dicts_of_parameters_and_per_sample_gradients(torch):
    weights = [([[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]], [0.0, 0.1, -0.1]),
               ([[-0.2, 0.4], [0.1, 0.1], [0.3, -0.5]], [0.2, 0.0, 0.1])]
    data = [[[1.0, 2.0], [0.5, -1.0]], [[-1.0, 0.0], [2.0, 1.0]]]
    results = []
    for lib in (ember, torch):
        models = _ensemble(lib, weights)
        params, buffers = lib.func.stack_module_state(models)
        assert all(p.requires_grad and p.is_leaf for p in params.values())
        base = models[0]

        def fmodel(params, buffers, x, base=base, lib=lib):
            return lib.func.functional_call(base, (params, buffers), (x,))

        batch = lib.tensor(data)
        per_model = lib.func.vmap(fmodel)(params, buffers, batch)
        shared_input = lib.func.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, batch[0])

        def loss(params, x, lib=lib):
            return lib.func.functional_call(base, params, (x.unsqueeze(0),)).pow(2).sum()

        single = {k: v[0].detach() for k, v in params.items()}
        per_sample = lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0))(single, batch[1])
        results.append([per_model.detach(), shared_input.detach(), per_sample["weight"], per_sample["bias"]])
    for ours, theirs in zip(*results):
        assert_close(ours, theirs)


def test_vmap_stacks_nested_results_along_out_dims(torch):
    for lib in (ember, torch):
        def pieces(x, lib=lib):
            return {"double": x * 2, "pair": (x.sum(), x[:1])}

        out = lib.func.vmap(pieces)(lib.arange(6.0).reshape(3, 2))
        assert out["double"].shape == (3, 2) and out["pair"][0].tolist() == [1.0, 5.0, 9.0]
        assert out["pair"][1].shape == (3, 1)
        moved = lib.func.vmap(lambda x: (x, x * 3), out_dims=(0, 1))(lib.arange(6.0).reshape(3, 2))
        assert moved[0].shape == (3, 2) and moved[1].shape == (2, 3)
    with pytest.raises(ValueError, match="in_dims has 1 entries for 2 values"):
        ember.func.vmap(lambda a, b: a + b, in_dims=(0,))(ember.ones(2), ember.ones(2))


def test_jvp_matches_pytorchs_forward_mode(torch):
    results = []
    for lib in (ember, torch):
        x = lib.tensor([0.3, -1.2, 2.0])
        y = lib.tensor([1.5, 0.5, -0.5])
        tx, ty = lib.tensor([1.0, 0.0, 2.0]), lib.tensor([0.5, 0.5, 0.5])

        def f(a, b, lib=lib):
            return (a.sin() * b, (a * b).sum())

        value, tangent = lib.func.jvp(f, (x, y), (tx, ty))
        unused_value, unused_tangent = lib.func.jvp(lambda a, b: a.exp(), (x, y), (tx, ty))
        results.append([*value, *tangent, unused_tangent])
    for ours, theirs in zip(*results):
        assert_close(ours, theirs, rtol=1e-6)
    with pytest.raises(RuntimeError, match="tangent of shape \\[2\\] does not match its primal of shape \\[3\\]"):
        ember.func.jvp(ember.sin, (ember.ones(3),), (ember.ones(2),))
