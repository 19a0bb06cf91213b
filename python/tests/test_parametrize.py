"""nn.utils.parametrize and nn.utils.parametrizations against PyTorch: the
class swap, the parametrized property and its right_inverse, state_dict
keys, chaining, caching, removal and transfer; orthogonal, weight_norm and
spectral_norm values and gradients; the old hook-based weight_norm."""

import copy
import pickle

import numpy
import pytest

import ember
import ember.nn.utils.parametrize as P
from helpers import assert_close

RNG = numpy.random.default_rng(5)


def array(*shape):
    return RNG.standard_normal(shape).astype(numpy.float32)


def linear_pair(torch, in_features=3, out_features=3):
    """An ember and a PyTorch Linear holding the same weights."""
    ours = ember.nn.Linear(in_features, out_features)
    theirs = torch.nn.Linear(in_features, out_features)
    weight, bias = array(out_features, in_features), array(out_features)
    with ember.no_grad():
        ours.weight.copy_(ember.tensor(weight))
        ours.bias.copy_(ember.tensor(bias))
    with torch.no_grad():
        theirs.weight.copy_(torch.tensor(weight))
        theirs.bias.copy_(torch.tensor(bias))
    return ours, theirs


def symmetric(nn):
    class Symmetric(nn.Module):
        def forward(self, X):  # noqa: N803
            return X.triu() + X.triu(1).transpose(-1, -2)

        def right_inverse(self, A):  # noqa: N803
            return A.triu()

    return Symmetric


def scaled(nn):
    class Scaled(nn.Module):
        def forward(self, X):  # noqa: N803
            return 2 * X

    return Scaled


def split_in_two(nn):
    class SplitInTwo(nn.Module):
        def forward(self, A, B):  # noqa: N803
            return A + B

        def right_inverse(self, X):  # noqa: N803
            return X * 0.25, X * 0.75

    return SplitInTwo


def test_registering_swaps_the_class_and_moves_the_parameter(torch):
    ours, theirs = linear_pair(torch)
    original = ours.weight
    P.register_parametrization(ours, "weight", symmetric(ember.nn)())
    torch.nn.utils.parametrize.register_parametrization(theirs, "weight", symmetric(torch.nn)())
    assert type(ours).__name__ == type(theirs).__name__ == "ParametrizedLinear"
    assert isinstance(ours, ember.nn.Linear) and P.type_before_parametrizations(ours) is ember.nn.Linear
    assert type(ember.nn.Linear(2, 2)).__name__ == "Linear"
    assert ours.parametrizations.weight.original is original
    assert [name for name, _ in ours.named_parameters()] == [name for name, _ in theirs.named_parameters()]
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert_close(ours.weight, theirs.weight.detach())
    assert P.is_parametrized(ours) and P.is_parametrized(ours, "weight") and not P.is_parametrized(ours, "bias")
    assert repr(ours).replace("ember.", "") == repr(theirs).replace("torch.", "")


def test_the_parametrized_weight_trains_through_its_original(torch):
    ours, theirs = linear_pair(torch)
    P.register_parametrization(ours, "weight", symmetric(ember.nn)())
    torch.nn.utils.parametrize.register_parametrization(theirs, "weight", symmetric(torch.nn)())
    x = array(4, 3)
    ours(ember.tensor(x)).square().sum().backward()
    theirs(torch.tensor(x)).square().sum().backward()
    assert_close(ours.parametrizations.weight.original.grad, theirs.parametrizations.weight.original.grad, rtol=1e-5)
    assert_close(ours.bias.grad, theirs.bias.grad, rtol=1e-5)


def test_assigning_runs_right_inverse_in_place(torch):
    ours, theirs = linear_pair(torch)
    P.register_parametrization(ours, "weight", symmetric(ember.nn)())
    torch.nn.utils.parametrize.register_parametrization(theirs, "weight", symmetric(torch.nn)())
    original = ours.parametrizations.weight.original
    value = array(3, 3)
    value = value + value.T
    ours.weight = ember.tensor(value)
    theirs.weight = torch.tensor(value)
    assert ours.parametrizations.weight.original is original
    assert_close(original, theirs.parametrizations.weight.original.detach())
    assert_close(ours.weight, theirs.weight.detach())


def test_assigning_a_parameter_to_a_parametrized_name_is_refused(torch):
    ours, _ = linear_pair(torch)
    P.register_parametrization(ours, "weight", scaled(ember.nn)())
    with pytest.raises(KeyError, match="attribute 'weight' already exists"):
        ours.weight = ember.nn.Parameter(ember.zeros(3, 3))
    module = ember.nn.Module()
    module.plain = 3
    with pytest.raises(KeyError, match="attribute 'plain' already exists"):
        module.register_parameter("plain", ember.nn.Parameter(ember.zeros(1)))
    with pytest.raises(KeyError, match="buffer name can"):
        module.register_buffer("a.b", ember.zeros(1))


def test_chained_parametrizations_apply_in_order(torch):
    ours, theirs = linear_pair(torch)
    for module, nn, register in ((ours, ember.nn, P.register_parametrization),
                                 (theirs, torch.nn, torch.nn.utils.parametrize.register_parametrization)):
        register(module, "weight", symmetric(nn)())
        register(module, "weight", scaled(nn)())
    assert len(ours.parametrizations.weight) == 2
    assert_close(ours.weight, theirs.weight.detach())
    assert repr(ours).replace("ember.", "") == repr(theirs).replace("torch.", "")


def test_a_parametrization_that_changes_the_shape_needs_unsafe(torch):
    class Transposed(ember.nn.Module):
        def forward(self, X):  # noqa: N803
            return X.transpose(0, 1)

    ours = ember.nn.Linear(3, 2)
    with pytest.raises(ValueError, match="may not change the shape of the tensor"):
        P.register_parametrization(ours, "weight", Transposed())
    assert type(ours) is ember.nn.Linear and "weight" in ours._parameters
    P.register_parametrization(ours, "weight", Transposed(), unsafe=True)
    assert list(ours.weight.shape) == [3, 2]
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized element"):
        P.register_parametrization(ours, "missing", Transposed())


def test_right_inverse_returning_a_tuple_gives_numbered_originals(torch):
    ours, theirs = linear_pair(torch)
    P.register_parametrization(ours, "weight", split_in_two(ember.nn)())
    torch.nn.utils.parametrize.register_parametrization(theirs, "weight", split_in_two(torch.nn)())
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert "original0" in ours.parametrizations.weight._parameters
    assert_close(ours.parametrizations.weight.original1, theirs.parametrizations.weight.original1.detach())
    assert_close(ours.weight, theirs.weight.detach())
    with pytest.raises(ValueError, match="Cannot leave unparametrized"):
        P.remove_parametrizations(ours, "weight", leave_parametrized=False)
    value = ours.weight.detach()
    P.remove_parametrizations(ours, "weight")
    assert type(ours) is ember.nn.Linear and isinstance(ours.weight, ember.nn.Parameter)
    assert_close(ours.weight, value)


@pytest.mark.parametrize("leave_parametrized", [True, False])
def test_removing_restores_the_module(torch, leave_parametrized):
    ours, theirs = linear_pair(torch)
    P.register_parametrization(ours, "weight", symmetric(ember.nn)())
    torch.nn.utils.parametrize.register_parametrization(theirs, "weight", symmetric(torch.nn)())
    original = ours.parametrizations.weight.original
    P.remove_parametrizations(ours, "weight", leave_parametrized=leave_parametrized)
    torch.nn.utils.parametrize.remove_parametrizations(theirs, "weight", leave_parametrized=leave_parametrized)
    assert type(ours) is ember.nn.Linear and not hasattr(ours, "parametrizations")
    assert ours.weight is original
    assert_close(ours.weight, theirs.weight.detach())
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["bias", "weight"]
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        P.remove_parametrizations(ours, "weight")


def test_a_buffer_can_be_parametrized():
    module = ember.nn.Module()
    module.register_buffer("table", ember.tensor([[1.0, 2.0], [3.0, 4.0]]))
    P.register_parametrization(module, "table", scaled(ember.nn)())
    assert list(module.state_dict()) == ["parametrizations.table.original"]
    assert list(module.parameters()) == []
    assert module.table.tolist() == [[2.0, 4.0], [6.0, 8.0]]


def test_cached_computes_each_tensor_once():
    calls = []

    class Counted(ember.nn.Module):
        def forward(self, X):  # noqa: N803
            calls.append(1)
            return X * 1.0

    module = ember.nn.Linear(2, 2)
    P.register_parametrization(module, "weight", Counted())
    calls.clear()
    with P.cached():
        first, second = module.weight, module.weight
        with P.cached():
            assert module.weight is first
    assert first is second and len(calls) == 1
    module.weight
    assert len(calls) == 2


def test_load_state_dict_and_deepcopy_keep_the_parametrization(torch):
    ours, theirs = linear_pair(torch)
    P.register_parametrization(ours, "weight", symmetric(ember.nn)())
    torch.nn.utils.parametrize.register_parametrization(theirs, "weight", symmetric(torch.nn)())
    ours.load_state_dict({key: ember.tensor(value.numpy()) for key, value in theirs.state_dict().items()})
    assert_close(ours.weight, theirs.weight.detach())
    replica = copy.deepcopy(ours)
    assert type(replica).__name__ == "ParametrizedLinear" and type(replica) is type(ours)
    assert replica.parametrizations.weight.original is not ours.parametrizations.weight.original
    assert_close(replica.weight, ours.weight)
    with pytest.raises(RuntimeError, match="only supported through state_dict"):
        pickle.dumps(ours)


def test_transfer_shares_parametrizations_and_originals():
    source = ember.nn.Linear(3, 3)
    P.register_parametrization(source, "weight", symmetric(ember.nn)())
    target = ember.nn.Linear(3, 3)
    P.transfer_parametrizations_and_params(source, target)
    assert type(target).__name__ == "ParametrizedLinear"
    assert target.parametrizations.weight.original is source.parametrizations.weight.original
    assert target.parametrizations.weight[0] is source.parametrizations.weight[0]
    assert_close(target.weight, source.weight)


def test_compiled_module_sees_a_new_parametrization():
    module = ember.nn.Linear(3, 3)
    compiled = ember.compile(module)
    x = ember.tensor(array(2, 3))
    assert_close(compiled(x), module(x))
    P.register_parametrization(module, "weight", scaled(ember.nn)())
    assert_close(compiled(x), module(x), rtol=1e-5)


# --- parametrizations

def check_parametrized_linear(torch, ours, theirs, rtol=1e-4, atol=1e-5):
    """Same weights, and same gradients of every parameter, by name."""
    assert_close(ours.weight, theirs.weight.detach(), rtol=rtol, atol=atol)
    x = array(4, ours.weight.shape[1])
    ours(ember.tensor(x)).square().sum().backward()
    theirs(torch.tensor(x)).square().sum().backward()
    expected = dict(theirs.named_parameters())
    for name, param in ours.named_parameters():
        assert_close(param.grad, expected[name].grad, rtol=rtol, atol=atol)


@pytest.mark.parametrize("orthogonal_map, shape", [("matrix_exp", (4, 4)), ("cayley", (4, 4)),
                                                   ("householder", (4, 4)), ("matrix_exp", (3, 5)),
                                                   ("cayley", (5, 3)), ("householder", (5, 3)),
                                                   ("householder", (3, 5))])
def test_orthogonal_matches_pytorch(torch, orthogonal_map, shape):
    ours, theirs = linear_pair(torch, shape[1], shape[0])
    ember.nn.utils.parametrizations.orthogonal(ours, orthogonal_map=orthogonal_map)
    torch.nn.utils.parametrizations.orthogonal(theirs, orthogonal_map=orthogonal_map)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    # A non-square base is completed by random columns: take PyTorch's.
    ours.load_state_dict({key: ember.tensor(value.numpy()) for key, value in theirs.state_dict().items()})
    weight = ours.weight.detach().numpy()
    small = min(shape)
    gram = weight @ weight.T if shape[0] < shape[1] else weight.T @ weight
    numpy.testing.assert_allclose(gram, numpy.eye(small), atol=1e-5)
    check_parametrized_linear(torch, ours, theirs)


def test_orthogonal_without_trivialization(torch):
    ours, theirs = linear_pair(torch, 3, 5)
    ember.nn.utils.parametrizations.orthogonal(ours, orthogonal_map="householder", use_trivialization=False)
    torch.nn.utils.parametrizations.orthogonal(theirs, orthogonal_map="householder", use_trivialization=False)
    assert_close(ours.parametrizations.weight.original, theirs.parametrizations.weight.original.detach(),
                 rtol=1e-4, atol=1e-5)
    check_parametrized_linear(torch, ours, theirs)
    assigned = numpy.linalg.qr(array(5, 3))[0].astype(numpy.float32)
    ours.weight = ember.tensor(assigned)
    assert_close(ours.weight, assigned, rtol=1e-4, atol=1e-5)
    square = ember.nn.Linear(3, 3)
    ember.nn.utils.parametrizations.orthogonal(square, use_trivialization=False)
    with pytest.raises(NotImplementedError, match="use_trivialization=False"):
        square.weight = ember.eye(3)


def test_orthogonal_errors():
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices"):
        ember.nn.utils.parametrizations.orthogonal(ember.nn.Linear(3, 3), "bias")
    with pytest.raises(ValueError, match='orthogonal_map has to be one of "matrix_exp", "cayley", "householder"'):
        ember.nn.utils.parametrizations.orthogonal(ember.nn.Linear(3, 3), orthogonal_map="qr")
    with pytest.raises(ValueError, match="has no parameter or buffer with name 'kernel'"):
        ember.nn.utils.parametrizations.orthogonal(ember.nn.Linear(3, 3), "kernel")


@pytest.mark.parametrize("dim", [0, 1, None, -2])
def test_weight_norm_matches_pytorch(torch, dim):
    ours, theirs = linear_pair(torch, 4, 3)
    ember.nn.utils.parametrizations.weight_norm(ours, dim=dim)
    torch.nn.utils.parametrizations.weight_norm(theirs, dim=dim)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert_close(ours.parametrizations.weight.original0, theirs.parametrizations.weight.original0.detach())
    check_parametrized_linear(torch, ours, theirs, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make, dim", [(lambda nn: nn.Linear(5, 3), None), (lambda nn: nn.Conv2d(2, 3, 3), None),
                                       (lambda nn: nn.ConvTranspose2d(2, 3, 3), None),
                                       (lambda nn: nn.Linear(5, 3), 1)])
def test_spectral_norm_matches_pytorch_given_its_vectors(torch, make, dim):
    ours, theirs = make(ember.nn), make(torch.nn)
    ember.nn.utils.parametrizations.spectral_norm(ours, dim=dim)
    torch.nn.utils.parametrizations.spectral_norm(theirs, dim=dim)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    ours.load_state_dict({key: ember.tensor(value.numpy()) for key, value in theirs.state_dict().items()})
    x = array(2, *([5] if isinstance(ours, ember.nn.Linear) else [2, 6, 6]))
    for train in (True, False):
        ours.train(train)
        theirs.train(train)
        expected = theirs(torch.tensor(x))
        assert_close(ours(ember.tensor(x)), expected.detach(), rtol=1e-4, atol=1e-5)
        assert_close(ours.parametrizations.weight[0]._u, theirs.parametrizations.weight[0]._u, rtol=1e-4, atol=1e-5)
    ours(ember.tensor(x)).sum().backward()
    theirs(torch.tensor(x)).sum().backward()
    assert_close(ours.parametrizations.weight.original.grad, theirs.parametrizations.weight.original.grad,
                 rtol=1e-4, atol=1e-5)


def test_spectral_norm_estimates_the_largest_singular_value():
    module = ember.nn.Linear(6, 4)
    ember.nn.utils.parametrizations.spectral_norm(module, n_power_iterations=3)
    for _ in range(5):
        module.weight
    assert abs(numpy.linalg.norm(module.weight.detach().numpy(), 2) - 1.0) < 1e-3
    with pytest.raises(IndexError, match="Dimension out of range"):
        ember.nn.utils.parametrizations.spectral_norm(ember.nn.Linear(2, 2), dim=2)
    with pytest.raises(ValueError, match="Expected n_power_iterations to be positive"):
        ember.nn.utils.parametrizations.spectral_norm(ember.nn.Linear(2, 2), n_power_iterations=0)


def test_old_weight_norm_keeps_g_and_v_parameters(torch):
    ours, theirs = linear_pair(torch, 4, 3)
    with pytest.warns(FutureWarning, match="deprecated"):
        ember.nn.utils.weight_norm(ours, dim=1)
    with pytest.warns(FutureWarning):
        torch.nn.utils.weight_norm(theirs, dim=1)
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["bias", "weight_g", "weight_v"]
    assert_close(ours.weight_g, theirs.weight_g.detach())
    check_parametrized_linear(torch, ours, theirs, rtol=1e-5, atol=1e-6)
    with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks"), pytest.warns(FutureWarning):
        ember.nn.utils.weight_norm(ours, dim=1)
    ember.nn.utils.remove_weight_norm(ours)
    assert list(ours.state_dict()) == ["bias", "weight"] and isinstance(ours.weight, ember.nn.Parameter)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found in"):
        ember.nn.utils.remove_weight_norm(ours)


def test_parametrized_weight_norm_loads_a_hook_based_state_dict(torch):
    ours, theirs = ember.nn.Sequential(ember.nn.Linear(4, 3)), torch.nn.Sequential(torch.nn.Linear(4, 3))
    ember.nn.utils.parametrizations.weight_norm(ours[0], dim=1)
    torch.nn.utils.parametrizations.weight_norm(theirs[0], dim=1)
    old = torch.nn.Sequential(torch.nn.Linear(4, 3))
    with pytest.warns(FutureWarning):
        torch.nn.utils.weight_norm(old[0], dim=1)
    saved = old.state_dict()
    assert sorted(saved) == ["0.bias", "0.weight_g", "0.weight_v"]
    ours.load_state_dict({key: ember.tensor(value.detach().numpy()) for key, value in saved.items()})
    theirs.load_state_dict(saved)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert_close(ours[0].parametrizations.weight.original0, theirs[0].parametrizations.weight.original0.detach())
    assert_close(ours[0].weight, old[0].weight.detach())
