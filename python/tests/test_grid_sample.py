"""F.affine_grid and F.grid_sample against PyTorch: values and gradients in
the input, the grid and theta for every mode, padding mode and corner
alignment, in 2-d and 3-d, the align_corners=None warning, and errors."""

import re
import warnings

import numpy
import pytest

import ember
import ember.nn.functional as F
from helpers import assert_close

RNG = numpy.random.default_rng(11)


def _sampled(torch, input, grid, **kwargs):
    """grid_sample's output and the gradients of a weighted sum of it at the
    input and the grid, by Ember and by PyTorch."""
    results = []
    for library in (ember, torch):
        x, g = library.tensor(input, requires_grad=True), library.tensor(grid, requires_grad=True)
        out = library.nn.functional.grid_sample(x, g, **kwargs)
        weights = numpy.random.default_rng(0).standard_normal(tuple(out.shape))
        (out * library.tensor(weights)).sum().backward()
        results.append((out, x.grad, g.grad))
    return results


def _assert_same(ours, theirs):
    out, input_grad, grid_grad = ours
    assert_close(out, theirs[0].detach(), rtol=1e-9, atol=1e-10)
    assert_close(input_grad, theirs[1], rtol=1e-9, atol=1e-10)
    if grid_grad is None:  # nearest: the grid takes no part in the arithmetic
        assert not theirs[2].any()
    else:
        assert_close(grid_grad, theirs[2], rtol=1e-8, atol=1e-9)


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
def test_grid_sample_2d_matches_pytorch_with_gradients(torch, mode, padding_mode, align_corners):
    # Points beyond [-1, 1] reach the padding.
    input, grid = RNG.standard_normal((2, 3, 5, 6)), RNG.uniform(-1.4, 1.4, (2, 4, 7, 2))
    _assert_same(*_sampled(torch, input, grid, mode=mode, padding_mode=padding_mode, align_corners=align_corners))


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_grid_sample_3d_matches_pytorch_with_gradients(torch, mode, padding_mode, align_corners):
    input, grid = RNG.standard_normal((2, 2, 3, 4, 5)), RNG.uniform(-1.4, 1.4, (2, 2, 3, 4, 3))
    _assert_same(*_sampled(torch, input, grid, mode=mode, padding_mode=padding_mode, align_corners=align_corners))


def test_reflection_of_a_single_cell_and_far_points(torch):
    input = RNG.standard_normal((1, 2, 1, 4))
    grid = RNG.uniform(-5, 5, (1, 3, 3, 2))
    for align_corners in (False, True):
        _assert_same(*_sampled(torch, input, grid, padding_mode="reflection", align_corners=align_corners))


@pytest.mark.parametrize("padding_mode", ["border", "reflection"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_non_finite_grid_points_are_clipped_as_pytorch_clips_them(torch, mode, padding_mode):
    grid = numpy.array([[[[numpy.nan, 0.2], [numpy.inf, -0.3], [0.5, -numpy.inf]]]])
    input = RNG.standard_normal((1, 2, 3, 4))
    outputs = [library.nn.functional.grid_sample(library.tensor(input), library.tensor(grid), mode=mode,
                                                 padding_mode=padding_mode, align_corners=False)
               for library in (ember, torch)]
    assert_close(outputs[0], outputs[1], rtol=1e-12, atol=1e-12)


def test_float32_sampling_keeps_its_dtype(torch):
    input = RNG.standard_normal((1, 2, 4, 4)).astype(numpy.float32)
    grid = RNG.uniform(-1.2, 1.2, (1, 3, 3, 2)).astype(numpy.float32)
    ours, theirs = _sampled(torch, input, grid, mode="bicubic", align_corners=False)
    for mine, expected in zip(ours, theirs):
        assert_close(mine, expected.detach(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 3, 1, 5), (2, 1, 3, 4, 2)])
def test_affine_grid_matches_pytorch_with_gradients(torch, size, align_corners):
    spatial = len(size) - 2
    theta = RNG.standard_normal((size[0], spatial, spatial + 1))
    results = []
    for library in (ember, torch):
        t = library.tensor(theta, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the unit-size warning, checked below
            grid = library.nn.functional.affine_grid(t, size, align_corners=align_corners)
        (grid * library.tensor(numpy.random.default_rng(0).standard_normal(tuple(grid.shape)))).sum().backward()
        results.append((grid, t.grad))
    assert_close(results[0][0], results[1][0].detach(), rtol=1e-12, atol=1e-12)
    assert_close(results[0][1], results[1][1], rtol=1e-10, atol=1e-10)


def test_rotating_an_image_through_affine_grid_and_grid_sample(torch):
    angle = 0.3
    theta = numpy.array([[[numpy.cos(angle), -numpy.sin(angle), 0.1], [numpy.sin(angle), numpy.cos(angle), -0.2]]])
    image = RNG.standard_normal((1, 3, 8, 8))
    outputs = []
    for library in (ember, torch):
        grid = library.nn.functional.affine_grid(library.tensor(theta), (1, 3, 8, 8), align_corners=False)
        outputs.append(library.nn.functional.grid_sample(library.tensor(image), grid, align_corners=False))
    assert_close(outputs[0], outputs[1], rtol=1e-9, atol=1e-10)


def test_align_corners_none_warns_and_means_false(torch):
    theta = RNG.standard_normal((1, 2, 3))
    image = RNG.standard_normal((1, 1, 3, 4))
    messages, outputs = [], []
    for library in (ember, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            grid = library.nn.functional.affine_grid(library.tensor(theta), (1, 1, 3, 4))
            outputs.append(library.nn.functional.grid_sample(library.tensor(image), grid))
        messages.append([(w.category, str(w.message)) for w in caught])
    assert messages[0] == messages[1] and len(messages[0]) == 2
    assert_close(outputs[0], outputs[1], rtol=1e-9, atol=1e-10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.grid_sample(ember.tensor(image), ember.zeros(1, 2, 2, 2, dtype=ember.float64), align_corners=False)


@pytest.mark.parametrize("call, error, message", [
    ("F.grid_sample(x, g, mode='linear', align_corners=False)", ValueError,
     "expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: 'linear'"),
    ("F.grid_sample(x, g, padding_mode='wrap', align_corners=False)", ValueError,
     "expected padding_mode to be 'zeros', 'border', or 'reflection', but got: 'wrap'"),
    ("F.grid_sample(x, T.zeros(2, 3, 3, 3), align_corners=False)", RuntimeError,
     "expected grid to have size 2 in last dimension, but got grid with sizes [2, 3, 3, 3]"),
    ("F.grid_sample(x, T.zeros(2, 3, 3, 1, 2), align_corners=False)", RuntimeError,
     "expected 4D input and grid with same number of dimensions"),
    ("F.grid_sample(x, T.zeros(3, 3, 3, 2), align_corners=False)", RuntimeError,
     "expected grid and input to have same batch size"),
    ("F.grid_sample(x.unsqueeze(2), T.zeros(2, 1, 3, 3, 3), mode='bicubic', align_corners=False)", RuntimeError,
     "bicubic interpolation only supports 4D input"),
    ("F.grid_sample(T.zeros(2, 3, 0, 4), g, align_corners=False)", RuntimeError,
     "expected input to have non-empty spatial dimensions, but input has sizes [2, 3, 0, 4] with dimension 2 being "
     "empty"),
    ("F.grid_sample(x, g.double(), align_corners=False)", RuntimeError, ""),
    ("F.grid_sample(x.long(), g.long(), align_corners=False)", NotImplementedError, ""),
    ("F.affine_grid(T.zeros(2, 2, 3).long(), (2, 3, 4, 5), False)", ValueError,
     "Expected theta to have floating point type"),
    ("F.affine_grid(T.zeros(2, 2, 3), (2, 3, 4, 5, 6), False)", ValueError,
     "Expected a batch of 3D affine matrices of shape Nx3x4 for size (2, 3, 4, 5, 6)."),
    ("F.affine_grid(T.zeros(2, 2, 3), (2, 3, 4), False)", NotImplementedError,
     "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. Got size (2, 3, 4)."),
    ("F.affine_grid(T.zeros(2, 2, 3), (2, 3, 0, 5), False)", ValueError,
     "Expected non-zero, positive output size. Got (2, 3, 0, 5)"),
    ("F.affine_grid(T.zeros(2, 2, 3), (3, 3, 4, 5), False)", RuntimeError, ""),
])
def test_bad_arguments_raise_what_pytorch_raises(torch, call, error, message):
    for library in (torch, ember):
        scope = {"T": library, "F": library.nn.functional, "x": library.zeros(2, 3, 4, 5),
                 "g": library.zeros(2, 3, 3, 2)}
        with pytest.raises(error, match=re.escape(message) if message else None):
            eval(call, scope)  # noqa: S307 - fixed test data


def test_unit_size_grids_with_align_corners_warn_as_pytorch(torch):
    for library in (ember, torch):
        with pytest.warns(UserWarning, match="affine_grid behavior has changed for unit-size grids"):
            library.nn.functional.affine_grid(library.zeros(1, 2, 3), (1, 1, 1, 4), align_corners=True)
