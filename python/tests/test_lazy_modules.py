"""Lazy modules and uninitialized parameters against PyTorch: reprs and
state dicts before and after the first forward, the class each becomes, the
shapes it infers, outputs once given PyTorch's weights, loading a state
dict into a lazy module, moves, copies and the errors of touching an
uninitialized tensor."""

import copy
import pickle

import numpy
import pytest

import ember
from helpers import assert_close

RNG = numpy.random.default_rng(7)

CASES = [
    (lambda nn: nn.LazyLinear(3), (4, 5)),
    (lambda nn: nn.LazyLinear(2, bias=False), (2, 3, 4)),
    (lambda nn: nn.LazyConv1d(4, 3, padding=1), (2, 3, 7)),
    (lambda nn: nn.LazyConv2d(4, 3, stride=2, groups=2), (1, 2, 6, 6)),
    (lambda nn: nn.LazyConv2d(4, 3, bias=False), (2, 5, 5)),
    (lambda nn: nn.LazyConv3d(2, 2), (1, 3, 4, 4, 4)),
    (lambda nn: nn.LazyConvTranspose1d(3, 2, stride=2), (2, 4, 5)),
    (lambda nn: nn.LazyConvTranspose2d(4, 3, output_padding=1, stride=2), (1, 2, 4, 4)),
    (lambda nn: nn.LazyConvTranspose3d(2, 2), (1, 3, 3, 3, 3)),
    (lambda nn: nn.LazyBatchNorm1d(), (6, 3)),
    (lambda nn: nn.LazyBatchNorm2d(affine=False), (2, 3, 4, 4)),
    (lambda nn: nn.LazyBatchNorm3d(momentum=None, bias=False), (2, 3, 2, 2, 2)),
    (lambda nn: nn.LazyInstanceNorm1d(), (2, 3, 6)),
    (lambda nn: nn.LazyInstanceNorm2d(track_running_stats=False), (2, 3, 4, 4)),
    (lambda nn: nn.LazyInstanceNorm3d(affine=False), (2, 3, 2, 2, 2)),
]


def printed(state):
    return {key: repr(value).replace("torch.", "ember.") if value.__class__.__name__.startswith("Uninitialized")
            else tuple(value.shape) for key, value in state.items()}


@pytest.mark.parametrize("make, shape", CASES)
def test_lazy_module_matches_pytorch_before_and_after_its_first_forward(torch, make, shape):
    ours, theirs = make(ember.nn), make(torch.nn)
    assert repr(ours) == repr(theirs)
    assert ours.has_uninitialized_params() and theirs.has_uninitialized_params()
    assert printed(ours.state_dict()) == printed(theirs.state_dict())
    x = RNG.standard_normal(shape).astype(numpy.float32)
    ours(ember.tensor(x))
    theirs(torch.tensor(x))
    assert type(ours).__name__ == type(theirs).__name__ and type(ours) is getattr(ember.nn, type(theirs).__name__)
    assert repr(ours) == repr(theirs)
    assert not any(ember.nn.parameter.is_lazy(tensor) for tensor in ours.state_dict().values())
    assert not hasattr(ours, "_initialize_hook") and not ours._forward_pre_hooks
    assert printed(ours.state_dict()) == printed(theirs.state_dict())
    assert all(type(param) is ember.nn.Parameter for param in ours.parameters())
    assert all(type(buffer) is ember.Tensor for buffer in ours.buffers())
    ours.load_state_dict({key: ember.tensor(value.detach().numpy()) for key, value in theirs.state_dict().items()})
    assert_close(ours(ember.tensor(x)), theirs(torch.tensor(x)).detach(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("make, shape", CASES[:3] + CASES[9:10])
def test_a_lazy_module_takes_its_shapes_from_a_loaded_state_dict(torch, make, shape):
    ours, theirs = make(ember.nn), make(torch.nn)
    x = RNG.standard_normal(shape).astype(numpy.float32)
    theirs(torch.tensor(x))
    result = ours.load_state_dict({key: ember.tensor(value.detach().numpy())
                                   for key, value in theirs.state_dict().items()})
    assert repr(result) == "<All keys matched successfully>"
    assert type(ours).__name__.startswith("Lazy") and not ours.has_uninitialized_params()
    output = ours(ember.tensor(x))
    assert type(ours).__name__ == type(theirs).__name__
    assert_close(output, theirs(torch.tensor(x)).detach(), rtol=1e-4, atol=1e-5)


def test_lazy_state_dicts_load_into_lazy_modules_only(torch):
    for lib in (ember, torch):
        lazy = lib.nn.LazyLinear(3)
        assert repr(lib.nn.LazyLinear(3).load_state_dict(lazy.state_dict())) == "<All keys matched successfully>"
        with pytest.raises(RuntimeError, match="^Can't access the shape of an uninitialized parameter or buffer"):
            lib.nn.Linear(2, 3).load_state_dict(lazy.state_dict())


def uninitialized_errors(lib):
    parameter = lib.nn.parameter.UninitializedParameter()
    calls = {"add": lambda: parameter + 1, "sum": lambda: parameter.sum(), "dim": lambda: parameter.dim(),
             "requires_grad_": lambda: parameter.requires_grad_(False), "clone": lambda: parameter.clone(),
             "shape": lambda: parameter.shape, "share_memory_": lambda: parameter.share_memory_()}
    errors = {}
    for name, call in calls.items():
        with pytest.raises(Exception) as caught:
            call()
        errors[name] = (type(caught.value), str(caught.value).split(" in <")[0])
    return errors


def test_touching_an_uninitialized_tensor_raises_as_in_pytorch(torch):
    assert uninitialized_errors(ember) == uninitialized_errors(torch)
    message = str(pytest.raises(ValueError, ember.nn.parameter.UninitializedBuffer().mul, 2).value)
    assert message.startswith("Attempted to use an uninitialized parameter in <method 'mul' of 'ember.Tensor'")
    assert "`ember.nn.parameter.UninitializedBuffer` objects" in message


def test_what_an_uninitialized_tensor_still_answers(torch):
    for lib in (ember, torch):
        parameter = lib.nn.parameter.UninitializedParameter(dtype=lib.float64)
        buffer = lib.nn.parameter.UninitializedBuffer()
        assert (repr(parameter), str(buffer)) == ("<UninitializedParameter>", "<UninitializedBuffer>")
        assert (parameter.requires_grad, buffer.requires_grad, parameter.dtype) == (True, False, lib.float64)
        assert tuple(parameter.size()) == (0,) and parameter.is_floating_point()
        assert isinstance(parameter, lib.nn.Parameter) and lib.nn.parameter.is_lazy(buffer)
        assert repr(copy.deepcopy(parameter)) == repr(pickle.loads(pickle.dumps(parameter))) == repr(parameter)
        parameter.materialize((2, 3))
        buffer.materialize([4], dtype=lib.float16)
        assert type(parameter) is lib.nn.Parameter and tuple(parameter.shape) == (2, 3)
        assert type(buffer) is lib.Tensor and buffer.dtype == lib.float16


def test_moves_and_copies_keep_a_module_lazy(torch):
    for lib in (ember, torch):
        norm = lib.nn.LazyBatchNorm1d().double()
        assert norm.weight.dtype == norm.running_mean.dtype == lib.float64 and norm.has_uninitialized_params()
        module = lib.nn.LazyLinear(3).double()
        copied = copy.deepcopy(module)
        assert copied.has_uninitialized_params() and copied.weight is not module.weight
        copied(lib.ones(2, 5, dtype=lib.float64))
        assert tuple(copied.weight.shape) == (3, 5) and copied.weight.dtype == lib.float64
        assert module.has_uninitialized_params()
        assert repr(pickle.loads(pickle.dumps(lib.nn.LazyLinear(2)))) == "LazyLinear(in_features=0, out_features=2, " \
                                                                         "bias=True)"


def error_of(call):
    with pytest.raises(Exception) as caught:
        call()
    return type(caught.value), str(caught.value).replace("torch.", "ember.")


def test_lazy_input_errors_match(torch):
    def errors(lib):
        return [error_of(lambda: lib.nn.LazyConv2d(4, 3)(lib.ones(2, 3))),
                error_of(lambda: lib.nn.LazyConv1d(4, 3, groups=2)(lib.ones(1, 3, 5))),
                error_of(lambda: lib.nn.LazyLinear(3)(lib.ones(())))[0]]
    assert errors(ember) == errors(torch)


def custom_lazy_modules(lib):
    class NoInitializer(lib.nn.modules.lazy.LazyModuleMixin, lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = lib.nn.parameter.UninitializedParameter()

        def forward(self, x):
            return x

    class HalfInitialized(NoInitializer):
        def initialize_parameters(self, x, *, scale):
            self.seen = (tuple(x.shape), scale)

    class Scaled(NoInitializer):
        cls_to_become = None

        def initialize_parameters(self, x, *, scale):
            self.weight.materialize(x.shape)
            with lib.no_grad():
                self.weight.fill_(scale)

        def forward(self, x, *, scale):
            return x * self.weight

    return NoInitializer, HalfInitialized, Scaled


def test_custom_lazy_modules_get_forward_keyword_arguments(torch):
    results = {}
    for lib in (ember, torch):
        no_initializer, half_initialized, scaled = custom_lazy_modules(lib)
        module = scaled()
        output = module(lib.ones(2), scale=3.0)
        results[lib.__name__] = [error_of(lambda: no_initializer()(lib.ones(1))),
                                 error_of(lambda: half_initialized()(lib.ones(1), scale=2.0)),
                                 output.tolist(), type(module).__name__]
    assert results["ember"] == results["torch"]
    assert results["ember"][0] == (NotImplementedError, "initialize_parameters is not implemented for NoInitializer")
    assert results["ember"][1] == (RuntimeError, "module HalfInitialized has not been fully initialized")
