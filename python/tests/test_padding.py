"""F.pad in every mode and the padding modules against PyTorch: values,
negative pads, gradients, and the errors PyTorch raises."""

import numpy
import pytest

import ember
import ember.nn.functional as F
from helpers import assert_close

RNG = numpy.random.default_rng(0)


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape, pad", [((2, 5), (2, 1)), ((1, 2, 4), (3, 2)), ((2, 3, 4, 5), (1, 2, 3, 0)),
                                        ((1, 2, 4, 5), (-1, 2, 2, -1)), ((1, 1, 3, 3, 4), (1, 1, 2, 2, 1, 0))])
def test_pad_matches_pytorch_with_gradients(torch, mode, shape, pad):
    array = RNG.standard_normal(shape)
    x = ember.tensor(array).requires_grad_()
    tx = torch.tensor(array, requires_grad=True)
    kwargs = {"value": 1.5} if mode == "constant" else {}
    out, expected = F.pad(x, pad, mode, **kwargs), torch.nn.functional.pad(tx, pad, mode, **kwargs)
    assert_close(out, expected.detach())
    weights = RNG.standard_normal(tuple(expected.shape))
    (out * ember.tensor(weights)).sum().backward()
    (expected * torch.tensor(weights)).sum().backward()
    assert_close(x.grad, tx.grad)


@pytest.mark.parametrize("name, args", [("ZeroPad2d", (1,)), ("ConstantPad2d", ((1, 0, 2, 1), 3.0)),
                                        ("ReflectionPad2d", (2,)), ("ReplicationPad2d", ((0, 1, 2, 0),)),
                                        ("CircularPad2d", (1,)), ("ReflectionPad1d", ((2, 1),)),
                                        ("ReplicationPad1d", (2,)), ("ZeroPad1d", (1,)),
                                        ("ConstantPad1d", (2, -1.0)), ("CircularPad1d", (1,))])
def test_padding_modules_match_pytorch(torch, name, args):
    array = RNG.standard_normal((1, 2, 4, 4) if name.endswith("2d") else (2, 3, 4))
    ours, theirs = getattr(ember.nn, name)(*args), getattr(torch.nn, name)(*args)
    assert_close(ours(ember.tensor(array)), theirs(torch.tensor(array)))


@pytest.mark.parametrize("call", [
    "F.pad(T.ones(1, 2, 3), (3, 3), 'reflect')",
    "F.pad(T.ones(1, 2, 3), (1,), 'reflect')",
    "F.pad(T.ones(1, 2, 3), (4, 4), 'circular')",
])
def test_bad_padding_raises_runtime_error(torch, call):
    for library in (torch, ember):
        with pytest.raises(RuntimeError):
            eval(call, {"T": library, "F": library.nn.functional})  # noqa: S307 - fixed test data


@pytest.mark.parametrize("call", ["F.pad(T.ones(1, 2, 3), (1, 1), 'bogus')", "F.pad(T.ones(3), (1, 1), 'reflect')"])
def test_unsupported_padding_raises_not_implemented(torch, call):
    for library in (torch, ember):
        with pytest.raises(NotImplementedError):
            eval(call, {"T": library, "F": library.nn.functional})  # noqa: S307 - fixed test data
