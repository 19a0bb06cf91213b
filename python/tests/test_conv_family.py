"""unfold/fold, conv_transpose1d/2d/3d, conv3d, and conv1d/conv2d with a bias
(functional and modules) against PyTorch: values, gradients of input, weight
and bias, errors, module arguments, initialization and PyTorch state_dicts."""

import re

import numpy
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from helpers import assert_close

RNG = numpy.random.default_rng(5)


def check_with_gradients(torch, ours_fn, theirs_fn, *shapes):
    """Both functions over the same float64 arrays; then the gradient of every array under random upstream weights."""
    arrays = [RNG.standard_normal(shape) for shape in shapes]
    ours_in = [ember.tensor(a).requires_grad_(True) for a in arrays]
    theirs_in = [torch.tensor(a, requires_grad=True) for a in arrays]
    ours, theirs = ours_fn(*ours_in), theirs_fn(*theirs_in)
    assert_close(ours, theirs.detach(), rtol=1e-10, atol=1e-12)
    upstream = RNG.standard_normal(tuple(theirs.shape))
    (ours * ember.tensor(upstream)).sum().backward()
    (theirs * torch.tensor(upstream)).sum().backward()
    for mine, reference in zip(ours_in, theirs_in):
        assert_close(mine.grad, reference.grad, rtol=1e-10, atol=1e-12)


PATCHES = [  # kernel_size, dilation, padding, stride
    (2, 1, 0, 1), (3, 1, 1, 2), ((2, 3), (2, 1), (1, 2), (2, 3)), ((1, 2), 1, (0, 1), (1, 2)), (3, 2, 2, 1),
]


@pytest.mark.parametrize("kernel, dilation, padding, stride", PATCHES)
@pytest.mark.parametrize("shape", [(2, 3, 7, 6), (3, 5, 4)])
def test_unfold_matches_pytorch(torch, shape, kernel, dilation, padding, stride):
    check_with_gradients(torch, lambda x: F.unfold(x, kernel, dilation, padding, stride),
                         lambda x: torch.nn.functional.unfold(x, kernel, dilation, padding, stride), shape)


@pytest.mark.parametrize("kernel, dilation, padding, stride", PATCHES)
@pytest.mark.parametrize("batch", [(2,), ()])
def test_fold_matches_pytorch(torch, batch, kernel, dilation, padding, stride):
    size = (7, 6)
    columns = torch.nn.functional.unfold(torch.zeros((1, 3) + size), kernel, dilation, padding, stride).shape[1:]
    check_with_gradients(torch, lambda c: F.fold(c, size, kernel, dilation, padding, stride),
                         lambda c: torch.nn.functional.fold(c, size, kernel, dilation, padding, stride),
                         batch + tuple(columns))


TRANSPOSED_2D = [  # input, weight, stride, padding, output_padding, groups, dilation
    ((2, 4, 5, 4), (4, 3, 3, 2), 1, 0, 0, 1, 1),
    ((2, 4, 5, 4), (4, 3, 3, 2), (2, 3), (1, 0), (1, 2), 2, (1, 2)),
    ((1, 6, 3, 3), (6, 1, 3, 3), 2, 1, 1, 3, 1),
    ((4, 5, 4), (4, 2, 2, 3), 1, 1, 1, 1, 2),  # unbatched; output_padding below the dilation only
    ((2, 2, 1, 6), (2, 2, 1, 4), (1, 3), (0, 2), 0, 1, (1, 2)),
]


@pytest.mark.parametrize("input_shape, weight_shape, stride, padding, output_padding, groups, dilation", TRANSPOSED_2D)
def test_conv_transpose2d_matches_pytorch(torch, input_shape, weight_shape, stride, padding, output_padding, groups,
                                          dilation):
    outputs = weight_shape[1] * groups
    check_with_gradients(
        torch, lambda x, w, b: F.conv_transpose2d(x, w, b, stride, padding, output_padding, groups, dilation),
        lambda x, w, b: torch.nn.functional.conv_transpose2d(x, w, b, stride, padding, output_padding, groups,
                                                             dilation),
        input_shape, weight_shape, (outputs,))


@pytest.mark.parametrize("input_shape, stride, padding, output_padding, groups, dilation", [
    ((2, 4, 5), 1, 0, 0, 1, 1), ((2, 4, 5), 3, 1, 2, 2, 1), ((4, 6), 2, 2, 1, 4, 3), ((1, 4, 1), 1, 0, 0, 1, 2),
])
def test_conv_transpose1d_matches_pytorch(torch, input_shape, stride, padding, output_padding, groups, dilation):
    weight_shape = (4, 6 // groups, 3)
    check_with_gradients(
        torch, lambda x, w, b: F.conv_transpose1d(x, w, b, stride, padding, output_padding, groups, dilation),
        lambda x, w, b: torch.nn.functional.conv_transpose1d(x, w, b, stride, padding, output_padding, groups,
                                                             dilation),
        input_shape, weight_shape, (weight_shape[1] * groups,))


def float32_pair(torch, *shapes):
    arrays = [RNG.standard_normal(shape).astype("float32") for shape in shapes]
    return ([ember.tensor(a).requires_grad_(True) for a in arrays],
            [torch.tensor(a, requires_grad=True) for a in arrays])


def assert_float32_gradients_match(torch, y, ty, ours, theirs, atol):
    """The values, then the inputs' gradients under one random upstream gradient."""
    assert_close(y, ty.detach(), rtol=1e-4, atol=1e-4)
    upstream = RNG.standard_normal(tuple(ty.shape)).astype("float32")
    (y * ember.tensor(upstream)).sum().backward()
    (ty * torch.tensor(upstream)).sum().backward()
    for mine, reference in zip(ours, theirs):
        assert_close(mine.grad, reference.grad, rtol=1e-4, atol=atol)


@pytest.mark.parametrize("input_shape, weight_shape, stride, padding, output_padding, groups, dilation", TRANSPOSED_2D)
def test_conv_transpose2d_in_float32_runs_the_input_gradient_kernel(torch, input_shape, weight_shape, stride, padding,
                                                                    output_padding, groups, dilation):
    """float32 takes the CPU plugin's conv2d_backward_input (oneDNN), and its gradients the forward convolution
    and conv2d_backward_weight; the decomposition where the output padding reaches the stride."""
    ours, theirs = float32_pair(torch, input_shape, weight_shape, (weight_shape[1] * groups,))
    args = (stride, padding, output_padding, groups, dilation)
    with ember.profiler.profile() as prof:
        y = F.conv_transpose2d(*ours, *args)
    strides = [stride] * 2 if isinstance(stride, int) else stride
    paddings = [output_padding] * 2 if isinstance(output_padding, int) else output_padding
    # An output padding of the stride or more leaves no conv2d input shape: decomposed.
    by_kernel = all(p < s for p, s in zip(paddings, strides))
    assert ("conv2d_backward_input" in {event.key for event in prof.key_averages()}) == by_kernel
    assert_float32_gradients_match(torch, y, torch.nn.functional.conv_transpose2d(*theirs, *args), ours, theirs, 1e-4)


def test_conv_transpose_in_float32_second_derivatives_match_pytorch(torch):
    for ours_fn, theirs_fn, shapes in [
        (lambda x, w: F.conv_transpose2d(x, w, None, 2, 1, 1), lambda x, w: torch.nn.functional.conv_transpose2d(
            x, w, None, 2, 1, 1), [(2, 3, 4, 5), (3, 2, 3, 3)]),
        (lambda x, w: F.conv_transpose1d(x, w, None, 2), lambda x, w: torch.nn.functional.conv_transpose1d(x, w, None, 2),
         [(2, 3, 6), (3, 4, 3)]),
        (lambda x, w: F.conv_transpose2d(x, w, None, (2, 1), (1, 2), 0, 2, (2, 3)),
         lambda x, w: torch.nn.functional.conv_transpose2d(x, w, None, (2, 1), (1, 2), 0, 2, (2, 3)),
         [(2, 4, 5, 4), (4, 3, 2, 3)]),
    ]:
        ours, theirs = float32_pair(torch, *shapes)
        (gx, gw) = ember.autograd.grad((ours_fn(*ours) ** 2).sum(), ours, create_graph=True)
        (tgx, tgw) = torch.autograd.grad((theirs_fn(*theirs) ** 2).sum(), theirs, create_graph=True)
        ember.autograd.backward((gx * gx).sum() + (gw * gw).sum())
        torch.autograd.backward((tgx * tgx).sum() + (tgw * tgw).sum())
        for mine, reference in zip(ours, theirs):
            assert_close(mine.grad, reference.grad, rtol=1e-3, atol=1e-3)


def test_conv_transpose3d_matches_pytorch(torch):
    check_with_gradients(
        torch, lambda x, w, b: F.conv_transpose3d(x, w, b, (2, 1, 2), (1, 0, 0), (1, 0, 0), 2, (1, 2, 1)),
        lambda x, w, b: torch.nn.functional.conv_transpose3d(x, w, b, (2, 1, 2), (1, 0, 0), (1, 0, 0), 2, (1, 2, 1)),
        (2, 4, 3, 2, 3), (4, 1, 2, 3, 2), (2,))


CONV_3D = [  # input, weight, stride, padding, dilation, groups
    ((2, 4, 5, 6, 5), (6, 2, 2, 3, 3), (1, 2, 1), (1, 0, 2), (2, 1, 1), 2),
    ((1, 2, 4, 4, 4), (3, 2, 3, 3, 3), 2, 1, 1, 1),
    ((4, 5, 6, 7), (3, 4, 2, 3, 2), 1, "same", (1, 1, 3), 1),  # unbatched; even kernels pad one more after
    ((2, 3, 3, 5, 4), (3, 1, 1, 2, 3), 1, "valid", 1, 3),
    ((1, 2, 3, 3, 3), (2, 2, 3, 3, 3), 1, 0, 1, 1),  # one output cell
]


@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel")  # PyTorch's note on its own copy
@pytest.mark.parametrize("input_shape, weight_shape, stride, padding, dilation, groups", CONV_3D)
def test_conv3d_matches_pytorch(torch, input_shape, weight_shape, stride, padding, dilation, groups):
    check_with_gradients(
        torch, lambda x, w, b: F.conv3d(x, w, b, stride, padding, dilation, groups),
        lambda x, w, b: torch.nn.functional.conv3d(x, w, b, stride, padding, dilation, groups),
        input_shape, weight_shape, (weight_shape[0],))


@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel")
@pytest.mark.parametrize("input_shape, weight_shape, stride, padding, dilation, groups", CONV_3D)
def test_conv3d_in_float32_runs_the_plugin_s_kernels(torch, input_shape, weight_shape, stride, padding, dilation,
                                                      groups):
    """float32 takes the CPU plugin's conv3d and both of its backward kernels (oneDNN)."""
    ours, theirs = float32_pair(torch, input_shape, weight_shape, (weight_shape[0],))
    with ember.profiler.profile() as prof:
        assert_float32_gradients_match(torch, F.conv3d(*ours, stride, padding, dilation, groups),
                                       torch.nn.functional.conv3d(*theirs, stride, padding, dilation, groups), ours,
                                       theirs, 1e-3)
    assert {"conv3d", "conv3d_backward_input", "conv3d_backward_weight"} <= {e.key for e in prof.key_averages()}


def test_conv3d_second_derivatives_match_pytorch(torch):
    """create_graph differentiates the decomposition (2-d convolutions over the depth taps) in float32 and float64."""
    for dtype in ("float32", "float64"):
        arrays = [RNG.standard_normal(shape).astype(dtype) for shape in [(2, 4, 4, 5, 4), (6, 2, 2, 3, 2)]]
        ours = [ember.tensor(a).requires_grad_(True) for a in arrays]
        theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
        args = ((2, 1, 1), (1, 0, 1), (1, 2, 1), 2)
        (gx, gw) = ember.autograd.grad((F.conv3d(*ours, None, *args) ** 2).sum(), ours, create_graph=True)
        (tgx, tgw) = torch.autograd.grad((torch.nn.functional.conv3d(*theirs, None, *args) ** 2).sum(), theirs,
                                         create_graph=True)
        assert_close(gw, tgw.detach(), rtol=1e-4, atol=1e-3)
        ember.autograd.backward((gx * gx).sum() + (gw * gw).sum())
        torch.autograd.backward((tgx * tgx).sum() + (tgw * tgw).sum())
        for mine, reference in zip(ours, theirs):
            assert_close(mine.grad, reference.grad, rtol=1e-3, atol=1e-2)


CONV_2D_BIAS = [  # function, input, weight, stride, padding, dilation, groups
    ("conv2d", (2, 3, 6, 5), (4, 3, 3, 3), 1, 0, 1, 1),
    ("conv2d", (1, 4, 7, 7), (6, 2, 3, 2), (2, 1), (1, 2), (1, 2), 2),
    ("conv2d", (3, 6, 5), (4, 3, 2, 3), 1, "same", (1, 3), 1),  # unbatched
    ("conv1d", (2, 3, 9), (5, 3, 3), 2, 1, 1, 1),
    ("conv1d", (4, 8), (4, 2, 2), 1, "valid", 3, 2),  # unbatched
]


@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel")
@pytest.mark.parametrize("name, input_shape, weight_shape, stride, padding, dilation, groups", CONV_2D_BIAS)
def test_conv_with_bias_in_float32_runs_conv2d_bias(torch, name, input_shape, weight_shape, stride, padding, dilation,
                                                     groups):
    """float32 adds the bias in the CPU plugin's conv2d_bias kernel (oneDNN), with no add of its own; the bias's
    gradient is the output gradient summed over all but the channels."""
    ours, theirs = float32_pair(torch, input_shape, weight_shape, (weight_shape[0],))
    args = (stride, padding, dilation, groups)
    with ember.profiler.profile() as prof:
        y = getattr(F, name)(*ours, *args)
    ops = {event.key for event in prof.key_averages()}
    assert "conv2d_bias" in ops and "conv2d" not in ops and "add" not in ops
    assert_float32_gradients_match(torch, y, getattr(torch.nn.functional, name)(*theirs, *args), ours, theirs, 1e-4)


@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel")
@pytest.mark.parametrize("name, input_shape, weight_shape, stride, padding, dilation, groups", CONV_2D_BIAS)
def test_conv_with_bias_in_float64_matches_pytorch(torch, name, input_shape, weight_shape, stride, padding, dilation,
                                                   groups):
    """float64, which the plugin's kernel does not take, runs conv2d_bias's decomposition: conv2d and an add."""
    check_with_gradients(torch, lambda x, w, b: getattr(F, name)(x, w, b, stride, padding, dilation, groups),
                         lambda x, w, b: getattr(torch.nn.functional, name)(x, w, b, stride, padding, dilation, groups),
                         input_shape, weight_shape, (weight_shape[0],))


def test_conv2d_with_bias_gradcheck():
    arrays = [RNG.standard_normal(shape) for shape in [(2, 2, 5, 4), (3, 2, 2, 3), (3,)]]
    inputs = [ember.tensor(a).requires_grad_(True) for a in arrays]
    assert ember.autograd.gradcheck(lambda x, w, b: F.conv2d(x, w, b, 2, 1), inputs)


def test_conv2d_with_a_strided_bias_matches_pytorch(torch):
    ours, theirs = float32_pair(torch, (2, 3, 6, 6), (4, 3, 3, 3), (8,))
    y = F.conv2d(ours[0], ours[1], ours[2][::2], padding=1)
    ty = torch.nn.functional.conv2d(theirs[0], theirs[1], theirs[2][::2], padding=1)
    assert_float32_gradients_match(torch, y, ty, ours, theirs, 1e-4)


def test_conv2d_with_bias_second_derivatives_match_pytorch(torch):
    """create_graph differentiates the decomposition; the bias's gradient is a sum, differentiable again."""
    ours, theirs = float32_pair(torch, (2, 3, 5, 5), (4, 3, 3, 3), (4,))
    grads = ember.autograd.grad((F.conv2d(*ours, 1, 1) ** 2).sum(), ours, create_graph=True)
    torch_grads = torch.autograd.grad((torch.nn.functional.conv2d(*theirs, 1, 1) ** 2).sum(), theirs,
                                      create_graph=True)
    ember.autograd.backward(sum((g * g).sum() for g in grads))
    torch.autograd.backward(sum((g * g).sum() for g in torch_grads))
    for mine, reference in zip(ours, theirs):
        assert_close(mine.grad, reference.grad, rtol=1e-3, atol=1e-2)


def test_conv2d_sees_weights_and_bias_changed_in_place(torch):
    """An optimizer step writes the parameters in place, at the same addresses: the next call reads the new values."""
    layer = nn.Conv2d(3, 4, 3, padding=1)
    reference = torch.nn.Conv2d(3, 4, 3, padding=1)
    x = RNG.standard_normal((2, 3, 6, 6)).astype("float32")
    for step in range(3):
        reference.load_state_dict({k: torch.tensor(v.detach().numpy()) for k, v in layer.state_dict().items()})
        with ember.no_grad():
            assert_close(layer(ember.tensor(x)), reference(torch.tensor(x)).detach(), rtol=1e-4, atol=1e-4)
            layer.weight.mul_(1.5).add_(0.25)
            layer.bias.sub_(1.0)


def test_conv_transpose3d_in_float32_runs_the_input_gradient_kernel(torch):
    ours, theirs = float32_pair(torch, (2, 4, 3, 4, 3), (4, 3, 2, 3, 2), (6,))
    args = ((2, 1, 2), (1, 0, 0), (1, 0, 1), 2, (1, 2, 1))
    with ember.profiler.profile() as prof:
        y = F.conv_transpose3d(*ours, *args)
    assert "conv3d_backward_input" in {event.key for event in prof.key_averages()}
    assert_float32_gradients_match(torch, y, torch.nn.functional.conv_transpose3d(*theirs, *args), ours, theirs, 1e-3)


def test_create_graph_gradients_of_an_input_made_from_another_match_pytorch(torch):
    """The first-order gradients of a create_graph backward are partial derivatives per use: w reaches the
    second convolution both as its weight and through its input."""
    for dtype in ("float32", "float64"):
        arrays = [RNG.standard_normal(shape).astype(dtype) for shape in [(1, 3, 6, 6), (3, 3, 3, 3)]]
        ours = [ember.tensor(a).requires_grad_(True) for a in arrays]
        theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
        ember_grads = ember.autograd.grad(F.conv2d(F.conv2d(ours[0], ours[1], padding=1), ours[1], padding=1).sum(),
                                          ours, create_graph=True)
        torch_grads = torch.autograd.grad(
            torch.nn.functional.conv2d(torch.nn.functional.conv2d(theirs[0], theirs[1], padding=1), theirs[1],
                                       padding=1).sum(), theirs, create_graph=True)
        for mine, reference in zip(ember_grads, torch_grads):
            assert_close(mine, reference.detach(), rtol=1e-4, atol=1e-3)


@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel")
@pytest.mark.parametrize("name, input_shape, weight_shape, padding, dilation", [
    ("conv1d", (2, 3, 7), (4, 3, 4), "same", 1), ("conv1d", (3, 7), (4, 3, 3), "same", 2),
    ("conv2d", (2, 3, 6, 5), (4, 3, 2, 3), "same", (1, 3)), ("conv2d", (3, 6, 5), (4, 3, 3, 3), "valid", 1),
])
def test_conv1d_and_conv2d_take_padding_strings(torch, name, input_shape, weight_shape, padding, dilation):
    check_with_gradients(torch, lambda x, w: getattr(F, name)(x, w, padding=padding, dilation=dilation),
                         lambda x, w: getattr(torch.nn.functional, name)(x, w, padding=padding, dilation=dilation),
                         input_shape, weight_shape)


@pytest.mark.parametrize("call", [
    "F.conv3d(T.ones(0, 2, 4, 4, 4), T.ones(3, 2, 2, 2, 2))",
    "F.conv_transpose2d(T.ones(0, 2, 4, 4), T.ones(2, 3, 2, 2), stride=2)",
    "F.unfold(T.ones(0, 2, 4, 4), 2)",
    "F.fold(T.ones(0, 8, 9), (4, 4), 2)",
])
def test_empty_batches_give_pytorch_s_shapes(torch, call):
    ours = eval(call, {"T": ember, "F": F})
    theirs = eval(call, {"T": torch, "F": torch.nn.functional})
    assert tuple(ours.shape) == tuple(theirs.shape)


BAD_CALLS = [  # each raises what PyTorch raises, in PyTorch's words
    "F.unfold(T.ones(1, 2, 3, 4, 5), 2)",
    "F.unfold(T.ones(1, 0, 3, 4), 2)",
    "F.unfold(T.ones(1, 2, 3, 4), 5)",
    "F.unfold(T.ones(1, 2, 3, 4), (2, 2, 2))",
    "F.fold(T.ones(1, 8, 7), (3, 4), 2)",
    "F.fold(T.ones(1, 7, 6), (3, 4), 2)",
    "F.fold(T.ones(1, 2, 8, 6), (3, 4), 2)",
    "F.fold(T.ones(1, 8, 6), (1, 1), 2)",
    "F.fold(T.ones(1, 8, 6), (3, 4, 5), 2)",
    "F.conv_transpose2d(T.ones(1, 3, 5, 5), T.ones(4, 3, 3, 3))",
    "F.conv_transpose2d(T.ones(2, 1, 4, 5, 5), T.ones(4, 3, 3, 3))",
    "F.conv_transpose2d(T.ones(1, 4, 5, 5), T.ones(4, 3, 3, 3), bias=T.ones(4))",
    "F.conv_transpose2d(T.ones(1, 4, 5, 5), T.ones(4, 3, 3, 3), padding=5)",
    "F.conv_transpose2d(T.ones(1, 4, 5, 5), T.ones(4, 3, 3, 3), stride=0)",
    "F.conv_transpose2d(T.ones(1, 4, 5, 5), T.ones(4, 3, 3, 3), padding=-1)",
    "F.conv_transpose2d(T.ones(1, 4, 5, 5), T.ones(4, 3, 3, 3), groups=0)",
    "F.conv_transpose2d(T.ones(1, 4, 5, 5), T.ones(4, 3, 3, 3), stride=(1, 1, 1))",
    "F.conv3d(T.ones(1, 4, 5, 5, 5), T.ones(6, 2, 3, 3, 3), groups=2, padding='same', stride=2)",
    "F.conv3d(T.ones(1, 4, 5, 5, 5), T.ones(6, 2, 3, 3, 3), groups=2, padding='foo')",
    "F.conv3d(T.ones(1, 4, 5, 5, 5), T.ones(6, 2, 3, 3, 3), groups=3)",
    "F.conv3d(T.ones(1, 4, 5, 5, 5), T.ones(6, 2, 7, 3, 3), groups=2)",
    "F.conv3d(T.ones(5, 5, 5), T.ones(6, 2, 3, 3, 3), groups=2)",
    "F.conv3d(T.ones(1, 4, 5, 5, 5), T.ones(6, 2, 3, 3, 3), groups=2, bias=T.ones(5))",
    "F.conv3d(T.ones(1, 4, 5, 5, 5), T.ones(6, 2, 3, 3, 3), groups=2, dilation=0)",
    "F.conv3d(T.ones(1, 4, 5, 5, 5), T.ones(6, 2, 3, 3, 3), groups=2, padding=-1)",
    "F.conv2d(T.ones(1, 2, 5, 5), T.ones(3, 2, 3, 3), padding='same', stride=2)",
    "F.conv1d(T.ones(1, 2, 5), T.ones(3, 2, 3), padding='full')",
    "nn.ConvTranspose2d(2, 2, 3, padding_mode='reflect')",
    "nn.Conv3d(2, 2, 3, padding='full')",
    "nn.Conv3d(2, 2, 3, stride=2, padding='same')",
    "nn.Conv3d(2, 2, 3, groups=0)",
    "nn.ConvTranspose2d(2, 2, 3, stride=2)(T.ones(1, 2, 4, 4), output_size=(11, 11))",
    "nn.ConvTranspose2d(2, 2, 3, stride=2)(T.ones(1, 2, 4, 4), output_size=(1, 9, 9))",
]

BAD_CALLS_OWN_WORDS = [  # PyTorch's error type; the message names the op, or drops a quirk of PyTorch's
    "nn.Conv3d(2, 2, 3, padding_mode='mirror')",  # lists the modes of a set, in an order the hash seed picks
    "F.conv_transpose2d(T.ones(1, 4, 5, 5), T.ones(4, 3, 3, 3), stride=2, output_padding=2)",
    "F.conv_transpose1d(T.ones(1, 4, 5), T.ones(4, 3, 3), stride=2, output_padding=3)",
    "F.conv_transpose2d(T.ones(1, 4, 5, 5), T.ones(4, 3, 3, 3), groups=3)",
    "F.conv_transpose2d(T.ones(1, 4, 5, 5), T.ones(4, 3, 3, 3, dtype=T.float64))",
]


def raised_by_both(torch, call):
    """The exceptions the call raises with Ember and with PyTorch."""
    raised = []
    for T, functional, layers in ((ember, F, nn), (torch, torch.nn.functional, torch.nn)):
        with pytest.raises(Exception) as caught:
            eval(call, {"T": T, "F": functional, "nn": layers})
        raised.append(caught.value)
    return raised


@pytest.mark.parametrize("call", BAD_CALLS + BAD_CALLS_OWN_WORDS)
def test_bad_arguments_raise_pytorch_s_error_type(torch, call):
    ours, theirs = raised_by_both(torch, call)
    assert type(ours) is type(theirs), (ours, theirs)


@pytest.mark.parametrize("call", BAD_CALLS)
def test_bad_arguments_are_reported_in_pytorch_s_words(torch, call):
    ours, theirs = raised_by_both(torch, call)
    assert str(ours) == re.sub(r"torch\.Size\((\[.*?\])\)", r"\1", str(theirs))


def copy_state(ours, theirs):
    ours.load_state_dict({name: ember.tensor(value.detach()) for name, value in theirs.state_dict().items()})


def check_module(torch, ours, theirs, input_shape, **call):
    """A PyTorch module's state_dict loaded into ours gives its output and gradients."""
    assert [tuple(p.shape) for p in ours.parameters()] == [tuple(p.shape) for p in theirs.parameters()]
    copy_state(ours, theirs)
    array = RNG.standard_normal(input_shape).astype(numpy.float32)
    x, tx = ember.tensor(array).requires_grad_(True), torch.tensor(array, requires_grad=True)
    out, t_out = ours(x, **call), theirs(tx, **call)
    assert_close(out, t_out.detach(), rtol=1e-4, atol=1e-5)
    upstream = RNG.standard_normal(tuple(t_out.shape)).astype(numpy.float32)
    (out * ember.tensor(upstream)).sum().backward()
    (t_out * torch.tensor(upstream)).sum().backward()
    assert_close(x.grad, tx.grad, rtol=1e-4, atol=1e-4)
    for (name, mine), (_, reference) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert_close(mine.grad, reference.grad, rtol=1e-4, atol=1e-4)


MODULES = [  # class name, constructor arguments, input shape, forward keywords
    ("ConvTranspose1d", dict(in_channels=4, out_channels=6, kernel_size=3, stride=2, padding=1, output_padding=1,
                             groups=2), (2, 4, 5), {}),
    ("ConvTranspose2d", dict(in_channels=3, out_channels=2, kernel_size=(2, 3), stride=(2, 1), dilation=(1, 2),
                             bias=False), (3, 4, 4), {}),
    ("ConvTranspose2d", dict(in_channels=2, out_channels=2, kernel_size=3, stride=3, padding=1), (1, 2, 3, 4),
     {"output_size": (8, 10)}),
    ("ConvTranspose3d", dict(in_channels=2, out_channels=4, kernel_size=2, stride=2), (1, 2, 2, 3, 2),
     {"output_size": (1, 4, 5, 6, 4)}),
    ("Conv3d", dict(in_channels=4, out_channels=2, kernel_size=(2, 3, 1), padding=1, groups=2), (2, 4, 3, 4, 3), {}),
    ("Conv3d", dict(in_channels=2, out_channels=3, kernel_size=2, padding="same", padding_mode="reflect"),
     (2, 3, 4, 5), {}),
    ("Conv3d", dict(in_channels=2, out_channels=2, kernel_size=3, padding=(1, 2, 0), padding_mode="circular",
                    dilation=(1, 1, 2)), (1, 2, 3, 4, 5), {}),
    ("Conv3d", dict(in_channels=2, out_channels=2, kernel_size=3, stride=2, padding="valid",
                    padding_mode="replicate"), (1, 2, 5, 5, 6), {}),
    ("Conv2d", dict(in_channels=2, out_channels=3, kernel_size=(2, 4), padding="same"), (1, 2, 5, 6), {}),
    ("Conv2d", dict(in_channels=2, out_channels=3, kernel_size=3, padding=(1, 2), padding_mode="reflect"),
     (1, 2, 5, 6), {}),
    ("Conv1d", dict(in_channels=2, out_channels=2, kernel_size=3, padding=2, padding_mode="circular"), (2, 2, 5), {}),
    ("Fold", dict(output_size=(5, 4), kernel_size=2, padding=1, stride=(1, 2)), (2, 12, 18), {}),
    ("Unfold", dict(kernel_size=(3, 2), dilation=(1, 2), stride=2), (2, 3, 5, 6), {}),
]


@pytest.mark.parametrize("name, arguments, input_shape, call", MODULES)
def test_modules_loaded_from_pytorch_match_it(torch, name, arguments, input_shape, call):
    check_module(torch, getattr(nn, name)(**arguments), getattr(torch.nn, name)(**arguments), input_shape, **call)


@pytest.mark.parametrize("name, arguments, input_shape, call", MODULES)
def test_modules_print_as_pytorch_s(torch, name, arguments, input_shape, call):
    assert repr(getattr(nn, name)(**arguments)) == repr(getattr(torch.nn, name)(**arguments))


def test_modules_live_where_pytorch_s_do():
    from ember.nn.modules import conv, fold

    assert nn.ConvTranspose2d is conv.ConvTranspose2d and nn.Conv3d is conv.Conv3d
    assert nn.Fold is fold.Fold and nn.Unfold is fold.Unfold


@pytest.mark.parametrize("name, arguments, fan_in", [
    ("ConvTranspose2d", (16, 96, 3), 96 * 9),  # the transposed layout's dim 1 is out_channels
    ("ConvTranspose1d", (8, 64, 5, 1, 0, 0, 4), 16 * 5),
    ("Conv3d", (12, 64, 3), 12 * 27),
])
def test_initialization_draws_from_pytorch_s_bounds(torch, name, arguments, fan_in):
    ember.manual_seed(0)
    torch.manual_seed(0)
    ours, theirs = getattr(nn, name)(*arguments), getattr(torch.nn, name)(*arguments)
    bound = fan_in ** -0.5
    for module in (ours, theirs):
        for parameter in (module.weight, module.bias):
            values = parameter.detach().numpy()
            assert 0.9 * bound < abs(values).max() <= bound
            assert abs(values.std() - bound / 3 ** 0.5) < 0.15 * bound / 3 ** 0.5
