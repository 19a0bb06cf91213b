"""F.interpolate (nearest, nearest-exact and area; linear, bilinear,
trilinear and bicubic with and without align_corners) and nn.Upsample
against PyTorch: values, gradients, errors."""

import numpy
import pytest

import ember
import ember.nn.functional as F
from helpers import assert_close

RNG = numpy.random.default_rng(0)

CASES = [
    ((1, 2, 5), dict(size=8, mode="nearest")),
    ((2, 1, 4, 5), dict(scale_factor=2, mode="nearest")),
    ((1, 2, 6, 4), dict(size=(3, 7), mode="nearest")),
    ((1, 1, 2, 3, 4), dict(scale_factor=(2, 1.5, 0.5), mode="nearest")),
    ((1, 2, 5), dict(size=9, mode="linear", align_corners=False)),
    ((1, 2, 5), dict(scale_factor=0.6, mode="linear", align_corners=True)),
    ((2, 3, 4, 5), dict(size=(7, 3), mode="bilinear", align_corners=False)),
    ((2, 3, 4, 5), dict(scale_factor=2, mode="bilinear", align_corners=True)),
    ((1, 1, 4, 4), dict(scale_factor=1.7, mode="bilinear")),
    ((1, 2, 3, 1), dict(size=(1, 4), mode="bilinear", align_corners=True)),
    ((1, 1, 2, 3, 4), dict(size=(3, 4, 2), mode="trilinear", align_corners=False)),
    # bicubic reads up to two pixels beyond the edge (clamped) and, unlike
    # linear, does not clamp the source coordinate at 0 when downsampling
    ((2, 3, 5, 7), dict(size=(9, 4), mode="bicubic")),
    ((1, 2, 6, 6), dict(scale_factor=2.5, mode="bicubic", align_corners=True)),
    ((1, 1, 8, 5), dict(scale_factor=(0.5, 1.7), mode="bicubic", align_corners=False)),
    ((1, 1, 8, 5), dict(scale_factor=(0.5, 1.7), mode="bicubic", recompute_scale_factor=True)),
    ((2, 1, 4, 4), dict(size=(4, 4), mode="bicubic", align_corners=True)),
    ((1, 2, 7), dict(size=3, mode="nearest-exact")),
    ((1, 2, 3, 9), dict(scale_factor=(2.5, 0.4), mode="nearest-exact")),
    ((1, 2, 7), dict(size=3, mode="area")),
    ((1, 2, 5, 9), dict(size=(2, 4), mode="area")),
    ((1, 1, 4, 6, 5), dict(scale_factor=0.5, mode="area")),
    # antialias: the filter widened by the downsampling factor, normalized at the edges
    ((2, 2, 17, 23), dict(size=(5, 7), mode="bilinear", antialias=True)),
    ((1, 2, 8, 8), dict(size=(16, 12), mode="bicubic", antialias=True)),
    ((1, 1, 13, 13), dict(scale_factor=0.3, mode="bilinear", antialias=True, align_corners=True)),
    ((1, 1, 9, 9), dict(scale_factor=2.5, mode="bicubic", antialias=True, align_corners=False)),
    ((1, 1, 6, 5), dict(size=(1, 5), mode="bicubic", antialias=True, align_corners=True)),
]


@pytest.mark.parametrize("shape, kwargs", CASES)
def test_interpolate_matches_pytorch_with_gradients(torch, shape, kwargs):
    array = RNG.standard_normal(shape)
    x = ember.tensor(array).requires_grad_()
    tx = torch.tensor(array, requires_grad=True)
    out, expected = F.interpolate(x, **kwargs), torch.nn.functional.interpolate(tx, **kwargs)
    assert_close(out, expected.detach(), rtol=1e-10, atol=1e-12)
    weights = RNG.standard_normal(tuple(expected.shape))
    (out * ember.tensor(weights)).sum().backward()
    (expected * torch.tensor(weights)).sum().backward()
    assert_close(x.grad, tx.grad, rtol=1e-10, atol=1e-12)


def test_upsample_modules_match_pytorch(torch):
    array = RNG.standard_normal((1, 2, 3, 4))
    for ours, theirs in [(ember.nn.Upsample(scale_factor=2), torch.nn.Upsample(scale_factor=2)),
                         (ember.nn.Upsample(size=(5, 5), mode="bilinear", align_corners=False),
                          torch.nn.Upsample(size=(5, 5), mode="bilinear", align_corners=False)),
                         (ember.nn.UpsamplingNearest2d(size=(6, 2)), torch.nn.UpsamplingNearest2d(size=(6, 2))),
                         (ember.nn.UpsamplingBilinear2d(scale_factor=3),
                          torch.nn.UpsamplingBilinear2d(scale_factor=3))]:
        assert_close(ours(ember.tensor(array)), theirs(torch.tensor(array)), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("call, error", [
    ("F.interpolate(T.ones(1, 1, 4), size=3, scale_factor=2)", ValueError),
    ("F.interpolate(T.ones(1, 1, 4))", ValueError),
    ("F.interpolate(T.ones(1, 1, 4), size=3, align_corners=True)", ValueError),
    ("F.interpolate(T.ones(1, 1, 4, 4), size=(3,))", ValueError),
    ("F.interpolate(T.ones(1, 1, 4), size=3, mode='bilinear')", NotImplementedError),
    ("F.interpolate(T.ones(1, 1, 4), size=3, mode='bicubic')", NotImplementedError),
    ("F.interpolate(T.ones(1, 1, 4, 4), size=3, mode='area', align_corners=False)", ValueError),
    ("F.interpolate(T.ones(1, 1, 4, 4), size=3, mode='nearest', antialias=True)", ValueError),
    ("F.interpolate(T.ones(1, 1, 4), size=3, mode='linear', antialias=True)", ValueError),
])
def test_bad_arguments_raise_what_pytorch_raises(torch, call, error):
    for library in (torch, ember):
        with pytest.raises(error):
            eval(call, {"T": library, "F": library.nn.functional})  # noqa: S307 - fixed test data
