"""gelu against torch: both forms, the CPU plugin's fused kernels (forward
and backward; the conformance kit checks them against the decomposition),
dtypes, views, special values, second derivatives (through the
decomposition), and compiled graphs, where it decomposes and fuses."""

import numpy
import pytest

import ember

FORMS = ["none", "tanh"]
TOLERANCE = {"float32": 2e-6, "float64": 1e-13, "bfloat16": 1e-2}


def values(dtype):
    rng = numpy.random.default_rng(0)
    v = numpy.concatenate([rng.normal(size=997) * 4, [0.0, -0.0, 1e-30, 30.0, -30.0, -10.0, float("nan")]])
    return v.astype("float32" if dtype == "bfloat16" else dtype)


def compare(torch, got, want, dtype):
    tol = TOLERANCE[dtype]
    numpy.testing.assert_allclose(numpy.array(got.float().tolist()), want.float().detach().numpy(), rtol=tol,
                                  atol=tol, equal_nan=True)


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("form", FORMS)
def test_values_and_gradients_match_torch(torch, form, dtype):
    v = values(dtype)
    x = ember.tensor(v.tolist(), dtype=getattr(ember, dtype), requires_grad=True)
    tx = torch.tensor(v, dtype=getattr(torch, dtype), requires_grad=True)
    y = ember.nn.functional.gelu(x, approximate=form)
    ty = torch.nn.functional.gelu(tx, approximate=form)
    compare(torch, y, ty, dtype)
    g = numpy.random.default_rng(1).normal(size=v.shape)
    y.backward(ember.tensor(g.tolist(), dtype=y.dtype))
    ty.backward(torch.tensor(g, dtype=ty.dtype))
    compare(torch, x.grad, tx.grad, dtype)
    assert y.grad_fn.name() == ty.grad_fn.name() == "GeluBackward0"


def test_module_and_views_match_torch(torch):
    base = numpy.random.default_rng(2).normal(size=(6, 8))
    x = ember.tensor(base.tolist(), dtype=ember.float64)
    tx = torch.tensor(base, dtype=torch.float64)
    for form in FORMS:
        module, reference = ember.nn.GELU(approximate=form), torch.nn.GELU(approximate=form)
        assert repr(module) == repr(reference)
        compare(torch, module(x.t()[1:, ::2]), reference(tx.t()[1:, ::2]), "float64")


@pytest.mark.parametrize("form", FORMS)
def test_second_derivative_matches_torch(torch, form):
    v = [-2.5, -0.7, 0.0, 0.3, 1.9]
    x = ember.tensor(v, dtype=ember.float64, requires_grad=True)
    (g,) = ember.autograd.grad(ember.nn.functional.gelu(x, approximate=form).sum(), x, create_graph=True)
    (h,) = ember.autograd.grad(g.sum(), x)
    tx = torch.tensor(v, dtype=torch.float64, requires_grad=True)
    (tg,) = torch.autograd.grad(torch.nn.functional.gelu(tx, approximate=form).sum(), tx, create_graph=True)
    (th,) = torch.autograd.grad(tg.sum(), tx)
    compare(torch, g, tg, "float64")
    compare(torch, h, th, "float64")


def test_an_unknown_form_is_refused_as_by_torch(torch):
    with pytest.raises(RuntimeError, match="approximate"):
        ember.nn.functional.gelu(ember.ones(2), approximate="fast")
    with pytest.raises(RuntimeError):
        torch.nn.functional.gelu(torch.ones(2), approximate="fast")


@pytest.mark.parametrize("form", FORMS)
def test_compiled_gelu_fuses_and_matches_eager(form):
    x = ember.randn(64, 33, requires_grad=True)

    def f(t):
        return ember.nn.functional.gelu(t * 2.0 + 1.0, approximate=form).sum()

    compiled = ember.compile(f)
    eager_value = f(x)
    (eager_grad,) = ember.autograd.grad(eager_value, x)
    compiled_value = compiled(x)
    (compiled_grad,) = ember.autograd.grad(compiled_value, x)
    assert compiled_value.item() == pytest.approx(eager_value.item(), rel=1e-5)
    numpy.testing.assert_allclose(compiled_grad.tolist(), eager_grad.tolist(), rtol=1e-5, atol=1e-6)
