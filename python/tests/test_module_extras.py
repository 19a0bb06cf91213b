"""nn.Module's compile (in place), cuda/xpu, set_submodule and the
deprecated register_backward_hook, against PyTorch 2.13 where they compare."""

import warnings

import pytest

import ember


def test_compile_in_place_keeps_the_module_and_its_hooks():
    model = ember.nn.Sequential(ember.nn.Linear(4, 8), ember.nn.GELU(), ember.nn.Linear(8, 2))
    x = ember.randn(3, 4)
    expected = model(x)
    seen = []
    model.register_forward_hook(lambda module, args, out: seen.append(tuple(out.shape)))
    assert model.compile() is None
    assert "forward" in model.__dict__ and "forward" not in model.state_dict()
    assert ember.allclose(model(x), expected, atol=1e-6) and seen == [(3, 2)]
    assert len(model.__dict__["forward"].variants) == 1, "the call ran the compiled forward"


def test_a_compiled_function_inside_another_is_inlined():
    weight = ember.randn(4, 8, requires_grad=True)

    def f(x):
        return (x @ weight).relu()

    x = ember.randn(3, 4)
    outer = ember.compile(ember.compile(f))
    assert ember.allclose(outer(x), f(x))
    outer(x).sum().backward()
    assert weight.grad.shape == (4, 8)


def test_set_submodule(torch):
    for lib in (ember, torch):
        model = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Sequential(lib.nn.ReLU()))
        model.set_submodule("1.0", lib.nn.Tanh())
        assert isinstance(model[1][0], lib.nn.Tanh)
        with pytest.raises(AttributeError):
            model.set_submodule("1.missing", lib.nn.Tanh(), strict=True)


def test_device_conversions_and_the_deprecated_backward_hook(torch):
    layer = ember.nn.Linear(2, 2)
    assert layer.cpu() is layer
    if not ember.cuda.is_available():
        with pytest.raises(Exception):
            layer.cuda()
    grads = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        layer.register_backward_hook(lambda module, grad_input, grad_output: grads.append(grad_output[0].shape))
    layer(ember.ones(3, 2)).sum().backward()
    assert grads == [(3, 2)]


def test_a_function_that_changes_a_list_it_is_given_runs_eagerly():
    def append_and_add(x, cache):
        cache.append(x * 2)
        return x + 1

    def store_into(x, slots):
        slots[0] = x.sin()
        return x.cos()

    for fn, container, reason in ((append_and_add, list, "adds to or removes from a list or dict"),
                                  (store_into, lambda: [None], "stores into slots[0]")):
        compiled = ember.compile(fn)
        given = container()
        for _ in range(3):
            compiled(ember.ones(2), given)
        expected = container()
        for _ in range(3):
            fn(ember.ones(2), expected)
        assert len(given) == len(expected) and all(
            (a is None and b is None) or ember.equal(a, b) for a, b in zip(given, expected))
        assert any(reason in r for r in ember.compiler.explain(fn, ember.ones(2), container()).eager_reasons)
