"""The hook-based nn.utils.spectral_norm and remove_spectral_norm against
PyTorch: the weight_orig/weight_u/weight_v entries and their metadata, the
power iteration in training mode, gradients, removal, errors and loading a
version-0 state dict."""

import numpy
import pytest

import ember
from helpers import assert_close

RNG = numpy.random.default_rng(11)


def ember_copy(state):
    return {key: ember.tensor(value.detach().numpy()) for key, value in state.items()}


def normalized_pair(torch, make, **options):
    """An ember and a PyTorch module under spectral_norm, holding the same
    weights and power iteration vectors."""
    ours, theirs = make(ember.nn), make(torch.nn)
    torch.nn.utils.spectral_norm(theirs, **options)
    ember.nn.utils.spectral_norm(ours, **options)
    ours.load_state_dict(ember_copy(theirs.state_dict()))
    return ours, theirs


MODULES = [(lambda nn: nn.Linear(5, 3), {}), (lambda nn: nn.Conv2d(2, 3, 3), {"n_power_iterations": 3}),
           (lambda nn: nn.ConvTranspose2d(2, 3, 3), {}), (lambda nn: nn.Linear(5, 3), {"dim": 1})]


@pytest.mark.parametrize("make, options", MODULES)
def test_spectral_norm_hook_matches_pytorch(torch, make, options):
    ours, theirs = normalized_pair(torch, make, **options)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert list(ours.state_dict())[-3:] == ["weight_orig", "weight_u", "weight_v"]
    assert ours.state_dict()._metadata == theirs.state_dict()._metadata
    x = RNG.standard_normal((2, 5) if isinstance(ours, ember.nn.Linear) else (2, 2, 6, 6)).astype(numpy.float32)
    for train in (True, True, False):
        ours.train(train)
        theirs.train(train)
        expected = theirs(torch.tensor(x))
        assert_close(ours(ember.tensor(x)), expected.detach(), rtol=1e-4, atol=1e-5)
        assert_close(ours.weight_u, theirs.weight_u, rtol=1e-4, atol=1e-5)
        assert_close(ours.weight_v, theirs.weight_v, rtol=1e-4, atol=1e-5)
    ours.train()
    theirs.train()
    ours(ember.tensor(x)).sum().backward()
    theirs(torch.tensor(x)).sum().backward()
    assert_close(ours.weight_orig.grad, theirs.weight_orig.grad, rtol=1e-4, atol=1e-5)


def test_removal_keeps_the_normalized_weight(torch):
    ours, theirs = normalized_pair(torch, lambda nn: nn.Linear(4, 3))
    ours(ember.ones(1, 4))
    theirs(torch.ones(1, 4))
    ember.nn.utils.remove_spectral_norm(ours)
    torch.nn.utils.remove_spectral_norm(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["bias", "weight"]
    assert isinstance(ours.weight, ember.nn.Parameter)
    assert_close(ours.weight, theirs.weight.detach(), rtol=1e-5, atol=1e-6)
    # PyTorch leaves its load pre-hook behind, so strict loading then fails there.
    assert tuple(ours.load_state_dict(ours.state_dict())) == ([], [])
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found in Linear"):
        ember.nn.utils.remove_spectral_norm(ours)


def test_spectral_norm_hook_errors(torch):
    for lib in (ember, torch):
        module = lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2))
        with pytest.raises(RuntimeError, match="^Cannot register two spectral_norm hooks on the same parameter "
                                               "weight$"):
            lib.nn.utils.spectral_norm(module)
        with pytest.raises(ValueError, match="^Expected n_power_iterations to be positive, but got "
                                             "n_power_iterations=0$"):
            lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2), n_power_iterations=0)
        with pytest.raises(ValueError, match="cannot be applied as parameter `bias` is None"):
            lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2, bias=False), name="bias")
        uninitialized = lib.nn.Linear(2, 2)
        uninitialized.weight = lib.nn.parameter.UninitializedParameter()
        with pytest.raises(ValueError, match="can't have uninitialized parameters"):
            lib.nn.utils.spectral_norm(uninitialized)


def test_a_version_0_state_dict_gets_its_v_back(torch):
    # A weight of full column rank, where v is unique.
    ours, theirs = normalized_pair(torch, lambda nn: nn.Linear(3, 4))
    saved = theirs.state_dict()
    theirs(torch.ones(1, 3))
    old = dict(saved)
    old["weight"] = theirs.weight.detach()
    del old["weight_v"]
    theirs.load_state_dict(old)
    ours.load_state_dict(ember_copy(old))
    assert_close(ours.weight_v, theirs.weight_v, rtol=1e-4, atol=1e-5)
