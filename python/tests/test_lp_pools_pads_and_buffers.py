"""LPPool1d/2d/3d, the 3-d padding modules, the max pools' `_with_indices`
names, F.upsample* and nn.Buffer, against PyTorch 2.13."""

import warnings

import numpy
import pytest

import ember

from helpers import assert_close, check_with_gradients

_RNG = numpy.random.default_rng(3)


@pytest.mark.parametrize("make, shape", [
    (lambda nn: nn.LPPool1d(2, 3, stride=2), (2, 3, 9)),
    (lambda nn: nn.LPPool2d(2, 2), (1, 2, 4, 6)),
    (lambda nn: nn.LPPool2d(3, (2, 3), stride=1, ceil_mode=True), (1, 1, 5, 7)),
    (lambda nn: nn.LPPool3d(1.5, 2), (1, 2, 4, 4, 4)),
    (lambda nn: nn.ZeroPad3d((1, 0, 2, 1, 0, 1)), (1, 2, 2, 3, 3)),
    (lambda nn: nn.ConstantPad3d(1, 0.5), (1, 1, 2, 2, 2)),
    (lambda nn: nn.ReflectionPad3d(1), (1, 2, 3, 3, 3)),
    (lambda nn: nn.ReplicationPad3d((2, 1, 0, 1, 1, 0)), (2, 1, 2, 3, 2)),
    (lambda nn: nn.CircularPad3d(1), (1, 1, 2, 3, 3)),
], ids=["LPPool1d", "LPPool2d", "LPPool2d-ceil", "LPPool3d", "ZeroPad3d", "ConstantPad3d", "ReflectionPad3d",
        "ReplicationPad3d", "CircularPad3d"])
def test_modules_match_pytorch_with_gradients(make, shape, torch):
    array = _RNG.uniform(0.1, 2.0, shape).astype(numpy.float32)
    ours, theirs = make(ember.nn), make(torch.nn)
    assert repr(ours).replace("ember", "torch") == repr(theirs)
    check_with_gradients(torch, ours, theirs, [array], rtol=1e-5, atol=1e-6)


def test_older_functional_names(torch):
    x = numpy.arange(32, dtype=numpy.float32).reshape(1, 2, 4, 4)
    for name in ("max_pool2d_with_indices", "max_pool1d_with_indices"):
        data = x if name.startswith("max_pool2d") else x[0]
        ours = getattr(ember.nn.functional, name)(ember.tensor(data), 2)
        theirs = getattr(torch.nn.functional, name)(torch.tensor(data), 2)
        assert ours[1].tolist() == theirs[1].tolist()
        assert_close(ours[0], theirs[0])
    for name, kwargs in (("upsample", {"scale_factor": 2, "mode": "bilinear", "align_corners": False}),
                         ("upsample_nearest", {"scale_factor": 2}), ("upsample_bilinear", {"size": (6, 5)})):
        with pytest.warns(UserWarning, match="deprecated"):
            ours = getattr(ember.nn.functional, name)(ember.tensor(x), **kwargs)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = getattr(torch.nn.functional, name)(torch.tensor(x), **kwargs)
        assert_close(ours, theirs)


def test_a_buffer_assigned_to_a_module_is_registered(torch):
    for library in (torch, ember):
        nn = library.nn

        class Scaler(nn.Module):
            def __init__(self):
                super().__init__()
                self.scale = nn.Buffer(library.full((2,), 3.0))
                self.cache = nn.Buffer(library.zeros(1), persistent=False)

            def forward(self, x):
                return x * self.scale

        module = Scaler()
        assert [name for name, _ in module.named_buffers()] == ["scale", "cache"]
        assert list(module.state_dict()) == ["scale"]
        assert type(module.scale) is library.Tensor and not module.scale.requires_grad
        assert module(library.ones(2)).tolist() == [3.0, 3.0]
        module.scale = nn.Buffer(library.ones(2), persistent=False)
        assert list(module.state_dict()) == []
        assert len(list(module.parameters())) == 0
