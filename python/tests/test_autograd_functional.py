"""torch.autograd.functional's vjp, jvp, jacobian, hessian, vhp and hvp
against PyTorch 2.13, the legacy Variable and the anomaly switches."""

import warnings

import numpy
import pytest

import ember

from helpers import to_numpy


def _f(T):
    def f(x, y):
        return (x * x * y.sin()).sum(0) + x.exp()[0] * y
    return f


def _scalar(T):
    def f(x, y):
        return (x.pow(3) * y).sum() + (x * y.cos()).sum() ** 2
    return f


_X = numpy.array([0.3, -1.2, 0.8], dtype=numpy.float64)
_Y = numpy.array([1.1, 0.4, -0.6], dtype=numpy.float64)
_V = numpy.array([0.5, -2.0, 1.5], dtype=numpy.float64)


def _inputs(T):
    return T.tensor(_X), T.tensor(_Y)


def _close(ours, theirs):
    if isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _close(a, b)
        return
    numpy.testing.assert_allclose(to_numpy(ours), to_numpy(theirs), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("call", [
    lambda T: T.autograd.functional.vjp(_f(T), _inputs(T), T.tensor(_V)),
    lambda T: T.autograd.functional.jvp(_f(T), _inputs(T), (T.tensor(_V), T.tensor(_X))),
    lambda T: T.autograd.functional.jacobian(_f(T), _inputs(T)),
    lambda T: T.autograd.functional.jacobian(lambda x: x.exp() * x.sum(), T.tensor(_X)),
    lambda T: T.autograd.functional.hessian(_scalar(T), _inputs(T)),
    lambda T: T.autograd.functional.hessian(lambda x: (x.exp() * x).sum(), T.tensor(_X)),
    lambda T: T.autograd.functional.hessian(lambda x: (x.exp() * x).sum().reshape(1), T.tensor(_X)),
    lambda T: T.autograd.functional.hvp(_scalar(T), _inputs(T), (T.tensor(_V), T.tensor(_Y))),
    lambda T: T.autograd.functional.vhp(_scalar(T), _inputs(T), (T.tensor(_V), T.tensor(_Y))),
], ids=["vjp", "jvp", "jacobian", "jacobian-one-input", "hessian", "hessian-one-input", "hessian-of-a-1-element-output",
        "hvp", "vhp"])
def test_matches_pytorch(call, torch):
    _close(call(ember), call(torch))


def test_create_graph_keeps_results_differentiable(torch):
    results = {}
    for library in (torch, ember):
        x = library.tensor(_X, requires_grad=True)
        jac = library.autograd.functional.jacobian(lambda z: z.sin() * z.sum(), x, create_graph=True)
        jac.sum().backward()
        results[library] = x.grad.tolist()
    numpy.testing.assert_allclose(results[ember], results[torch], rtol=1e-10)


def test_strict_refuses_an_independent_input(torch):
    for library in (torch, ember):
        with pytest.raises(RuntimeError):
            library.autograd.functional.jacobian(lambda x, y: x * 2, (library.ones(2), library.ones(2)), strict=True)
        jac = library.autograd.functional.jacobian(lambda x, y: x * 2, (library.ones(2), library.ones(2)))
        assert jac[1].tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_variable_and_anomaly_switches(torch):
    for library in (torch, ember):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            v = library.autograd.Variable(library.ones(2), requires_grad=True)
        assert v.requires_grad
        assert not library.is_anomaly_enabled()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with library.autograd.detect_anomaly():
                assert library.is_anomaly_enabled()
            with library.autograd.set_detect_anomaly(True):
                assert library.is_anomaly_enabled()
        assert not library.is_anomaly_enabled()


def test_backward_with_inputs_fills_only_their_grads(torch):
    seen = {}
    for library in (torch, ember):
        x = library.tensor([1.0, 2.0], requires_grad=True)
        y = library.tensor([3.0, 4.0], requires_grad=True)
        h = x * y
        loss = (h * h).sum()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # PyTorch warns about the non-leaf's .grad
            loss.backward(inputs=[x, h], retain_graph=True)
            first = (x.grad.tolist(), y.grad, h.grad.tolist())
            library.autograd.backward((x * y).sum(), inputs=x)
            seen[library] = first + (x.grad.tolist(), y.grad)
        with pytest.raises(RuntimeError, match="cannot be empty"):
            loss.backward(inputs=[])
    assert seen[ember] == seen[torch]
