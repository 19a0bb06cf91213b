"""The activations, losses, distances, rearrangements, channel dropouts and
normalizations of torch.nn.functional that Ember builds from core ops, and
their modules, against PyTorch: values, gradients and errors."""

import warnings

import numpy
import pytest

import ember
import ember.nn.functional as F
from helpers import assert_close, check_with_gradients

RNG = numpy.random.default_rng(3)


def signed(shape):
    values = RNG.standard_normal(shape) * 3
    values.flat[:4] = [0.0, 0.5, -0.5, 20.0][:values.size]
    return values


ACTIVATIONS = [
    ("celu", {"alpha": 0.7}), ("selu", {}), ("mish", {}), ("hardswish", {}), ("hardsigmoid", {}),
    ("softsign", {}), ("softshrink", {"lambd": 0.6}), ("hardshrink", {"lambd": 0.4}), ("tanhshrink", {}),
    ("logsigmoid", {}), ("glu", {"dim": 1}), ("threshold", {"threshold": 0.3, "value": -2.0}),
    ("softmin", {"dim": 1}), ("rrelu", {"training": False}),
]


@pytest.mark.parametrize("name, kwargs", ACTIVATIONS)
def test_activations_match_pytorch_with_gradients(torch, name, kwargs):
    check_with_gradients(torch, lambda x: getattr(F, name)(x, **kwargs),
                         lambda x: getattr(torch.nn.functional, name)(x, **kwargs), [signed((3, 6))])


@pytest.mark.parametrize("name", ["celu_", "selu_", "elu_", "leaky_relu_", "hardtanh_"])
def test_inplace_activations_write_their_input(torch, name):
    array = signed((4, 5))
    x, tx = ember.tensor(array), torch.tensor(array)
    assert getattr(F, name)(x) is x
    getattr(torch.nn.functional, name)(tx)
    assert_close(x, tx)


def test_prelu_with_one_slope_and_one_per_channel(torch):
    array = signed((2, 3, 4))
    for slopes in (numpy.array([0.2]), numpy.array([0.1, -0.3, 0.5])):
        check_with_gradients(torch, F.prelu, torch.nn.functional.prelu, [array, slopes], grad=(True, True))
    with pytest.raises(RuntimeError, match="2 slopes for an input of 3 channels"):
        F.prelu(ember.tensor(array), ember.tensor([0.1, 0.2]))


def test_rrelu_while_training_draws_slopes_between_its_bounds():
    x = -ember.ones(10000)
    slopes = -F.rrelu(x, 0.1, 0.3, training=True)
    assert float(slopes.min()) >= 0.1 and float(slopes.max()) <= 0.3
    assert abs(float(slopes.mean()) - 0.2) < 0.01


def test_glu_needs_an_even_dimension():
    with pytest.raises(RuntimeError, match="needs an even size, got 5"):
        F.glu(ember.ones(2, 5))


LOSSES = [
    ("huber_loss", lambda: [signed((4, 3)), signed((4, 3))], {"delta": 0.8}),
    ("kl_div", lambda: [numpy.log(RNG.uniform(0.1, 1, (4, 3))), RNG.uniform(0, 1, (4, 3))], {"reduction": "batchmean"}),
    ("kl_div", lambda: [signed((4, 3)), signed((4, 3)) * 0.1], {"reduction": "sum", "log_target": True}),
    # Negative targets give NaN terms and zero targets 0, as PyTorch's xlogy does.
    ("kl_div", lambda: [signed((4, 3)), signed((4, 3))], {"reduction": "none"}),
    ("margin_ranking_loss", lambda: [signed(6), signed(6), numpy.sign(signed(6)) + (signed(6) == 0)], {"margin": 0.2}),
    ("hinge_embedding_loss", lambda: [signed(8), numpy.where(RNG.random(8) > 0.5, 1.0, -1.0)], {"margin": 1.5}),
    ("soft_margin_loss", lambda: [signed(8), numpy.where(RNG.random(8) > 0.5, 1.0, -1.0)], {}),
    ("multilabel_soft_margin_loss", lambda: [signed((3, 5)), (RNG.random((3, 5)) > 0.5) * 1.0], {}),
    ("cosine_embedding_loss", lambda: [signed((4, 6)), signed((4, 6)), numpy.array([1.0, -1, 1, -1])],
     {"margin": 0.1}),
    ("triplet_margin_loss", lambda: [signed((4, 5)), signed((4, 5)), signed((4, 5))], {"swap": True}),
    ("poisson_nll_loss", lambda: [signed((3, 4)) * 0.3, RNG.integers(0, 5, (3, 4)) * 1.0], {"full": True}),
    ("poisson_nll_loss", lambda: [RNG.uniform(0.1, 3, (3, 4)), RNG.integers(0, 5, (3, 4)) * 1.0],
     {"log_input": False, "reduction": "none"}),
    ("gaussian_nll_loss", lambda: [signed((4, 2)), signed((4, 2)), RNG.uniform(0.1, 2, (4, 1))], {"full": True}),
    ("multi_margin_loss", lambda: [signed((4, 5)), RNG.integers(0, 5, 4)], {"p": 2, "margin": 0.7}),
    ("multilabel_margin_loss", lambda: [signed((3, 5)), numpy.array([[3, 0, -1, 1, 2], [1, 2, 4, -1, 0],
                                                                     [4, -1, 0, 0, 0]])], {}),
]


@pytest.mark.parametrize("name, make, kwargs", LOSSES)
def test_losses_match_pytorch_with_gradients(torch, name, make, kwargs):
    arrays = make()
    check_with_gradients(torch, lambda *a: getattr(F, name)(*a, **kwargs),
                         lambda *a: getattr(torch.nn.functional, name)(*a, **kwargs), arrays,
                         grad=(True, True, True) if name in ("triplet_margin_loss", "gaussian_nll_loss")
                         else (True,))


def test_distances_match_pytorch(torch):
    a, b = signed((5, 4)), signed((5, 4))
    check_with_gradients(torch, F.cosine_similarity, torch.nn.functional.cosine_similarity, [a, b], (True, True))
    check_with_gradients(torch, lambda x, y: F.pairwise_distance(x, y, 3.0, keepdim=True),
                         lambda x, y: torch.nn.functional.pairwise_distance(x, y, 3.0, keepdim=True), [a, b],
                         (True, True))
    check_with_gradients(torch, F.pdist, torch.nn.functional.pdist, [a])


@pytest.mark.parametrize("name, arg, shape", [("pixel_shuffle", 2, (2, 8, 3, 4)), ("pixel_unshuffle", 2, (1, 2, 4, 6)),
                                              ("channel_shuffle", 3, (2, 6, 2, 2))])
def test_rearrangements_match_pytorch(torch, name, arg, shape):
    check_with_gradients(torch, lambda x: getattr(F, name)(x, arg),
                         lambda x: getattr(torch.nn.functional, name)(x, arg), [signed(shape)])


def test_rearrangements_name_what_does_not_divide():
    with pytest.raises(RuntimeError, match="divisible by the square of upscale_factor"):
        F.pixel_shuffle(ember.ones(1, 6, 2, 2), 2)
    with pytest.raises(RuntimeError, match="divisible by groups"):
        F.channel_shuffle(ember.ones(1, 5, 2, 2), 2)


@pytest.mark.parametrize("name, shape", [("dropout1d", (4, 6, 5)), ("dropout2d", (3, 8, 4, 4)),
                                         ("dropout3d", (2, 5, 2, 3, 3))])
def test_channel_dropout_zeroes_whole_channels_and_scales_the_rest(name, shape):
    x = ember.ones(*shape)
    out = getattr(F, name)(x, 0.5, training=True)
    flat = out.reshape([shape[0], shape[1], -1]).numpy()
    assert set(numpy.unique(flat)) <= {0.0, 2.0}
    assert all(len(set(channel.tolist())) == 1 for sample in flat for channel in sample)
    assert getattr(F, name)(x, 0.5, training=False) is x


def _mask_groups(out):
    """For an all-ones input dropped out at p=0.5: the sizes of the groups
    of elements that fall together (each kept as 2 or zeroed as 0)."""
    values = out.numpy()
    assert set(numpy.unique(values)) <= {0.0, 2.0}
    return values


# PyTorch 2.13's ranks: dropout1d takes 2-D (C, L) and 3-D (N, C, L); dropout2d
# reads 3-D as (N, C, L) and 2-D as (N, C) with warnings; dropout3d reads 4-D
# as one (C, D, H, W) sample and any other rank, warned, as unbatched too.
@pytest.mark.parametrize("name, shape, mask_shape, warns", [
    ("dropout1d", (6, 50), (6, 1), False),
    ("dropout2d", (8, 6, 50), (8, 6, 1), True),
    ("dropout2d", (40, 30), (40, 30), True),
    ("dropout2d", (2, 3, 4, 5, 6), (2, 3, 1, 1, 1), True),
    ("dropout3d", (6, 2, 3, 40), (6, 1, 1, 1), False),
    ("dropout3d", (40, 30), (40, 1), True),
])
def test_channel_dropout_takes_pytorchs_ranks(name, shape, mask_shape, warns):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = _mask_groups(getattr(F, name)(ember.ones(*shape), 0.5, training=True))
    assert bool(caught) == warns and all(w.filename == __file__ for w in caught)
    # Every element equals the first of its group: broadcasting the group's
    # corner over the group gives the output back.
    corners = out[tuple(slice(0, size) if size > 1 else slice(0, 1) for size in mask_shape)]
    assert (numpy.broadcast_to(corners, shape) == out).all()
    assert 0 < out.mean() < 2


def test_channel_dropout_refuses_what_pytorch_refuses():
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input, but received a 4D input"):
        F.dropout1d(ember.ones(2, 3, 4, 5))
    with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions in the input"), \
            pytest.warns(UserWarning, match="Received a 1-D input to dropout2d"):
        F.dropout2d(ember.ones(5))
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        F.dropout2d(ember.ones(2, 3, 4), 1.5)
    inplace = ember.ones(6, 50)
    assert F.dropout1d(inplace, 0.5, inplace=True) is inplace and inplace.shape == (6, 50)


def test_alpha_dropout_keeps_mean_and_variance():
    x = ember.randn(200000)
    out = F.alpha_dropout(x, 0.3, training=True)
    assert abs(float(out.mean())) < 0.02 and abs(float(out.std()) - 1) < 0.02


def test_normalizations_match_pytorch(torch):
    x = signed((2, 3, 4, 5))
    w = RNG.standard_normal(5)
    check_with_gradients(torch, lambda a, b: F.rms_norm(a, [5], b, 1e-6),
                         lambda a, b: torch.nn.functional.rms_norm(a, [5], b, 1e-6), [x, w], (True, True))
    check_with_gradients(torch, lambda a: F.instance_norm(a), lambda a: torch.nn.functional.instance_norm(a), [x])
    check_with_gradients(torch, lambda a: F.local_response_norm(a, 3),
                         lambda a: torch.nn.functional.local_response_norm(a, 3), [x])


def test_instance_norm_modules_track_running_statistics_as_pytorch(torch):
    x = signed((4, 3, 6))
    ours = ember.nn.InstanceNorm1d(3, affine=True, track_running_stats=True, dtype=ember.float64)
    theirs = torch.nn.InstanceNorm1d(3, affine=True, track_running_stats=True).double()
    for _ in range(2):
        assert_close(ours(ember.tensor(x)), theirs(torch.tensor(x)).detach(), rtol=1e-6, atol=1e-7)
    assert_close(ours.running_mean, theirs.running_mean, rtol=1e-6, atol=1e-7)
    assert_close(ours.running_var, theirs.running_var, rtol=1e-6, atol=1e-7)
    ours.eval(), theirs.eval()
    assert_close(ours(ember.tensor(x)), theirs(torch.tensor(x)).detach(), rtol=1e-6, atol=1e-7)


MODULES = [("Mish", ()), ("SELU", ()), ("CELU", (0.5,)), ("Hardswish", ()), ("Softsign", ()), ("Softshrink", (0.3,)),
           ("LogSigmoid", ()), ("GLU", (1,)), ("Threshold", (0.1, 5.0)), ("Softmin", (1,)), ("Tanhshrink", ()),
           ("Hardsigmoid", ()), ("Hardshrink", ()), ("PixelShuffle", (2,)), ("Unflatten", (1, (2, 2))),
           ("Softmax2d", ())]


@pytest.mark.parametrize("name, args", MODULES)
def test_modules_match_pytorch(torch, name, args):
    x = signed((2, 4, 2, 2))
    assert_close(getattr(ember.nn, name)(*args)(ember.tensor(x)),
                 getattr(torch.nn, name)(*args)(torch.tensor(x)).detach(), rtol=1e-6, atol=1e-7)


def test_loss_modules_match_pytorch(torch):
    a, b = signed((4, 3)), signed((4, 3))
    for name, kwargs in [("HuberLoss", {"delta": 0.5}), ("SoftMarginLoss", {}), ("KLDivLoss", {"log_target": True})]:
        assert_close(getattr(ember.nn, name)(**kwargs)(ember.tensor(a), ember.tensor(b)),
                     getattr(torch.nn, name)(**kwargs)(torch.tensor(a), torch.tensor(b)), rtol=1e-6, atol=1e-7)


def test_prelu_module_learns_its_slope():
    layer = ember.nn.PReLU(3)
    out = layer(-ember.ones(2, 3, 4))
    out.sum().backward()
    assert layer.weight.grad.tolist() == [-8.0, -8.0, -8.0]


def test_parameter_containers_register_their_parameters():
    plist = ember.nn.ParameterList([ember.nn.Parameter(ember.ones(2)), ember.zeros(3)])
    pdict = ember.nn.ParameterDict({"a": ember.ones(1)})
    holder = ember.nn.Module()
    holder.plist, holder.pdict = plist, pdict
    names = [name for name, _ in holder.named_parameters()]
    assert names == ["plist.0", "plist.1", "pdict.a"]
    assert all(p.requires_grad for p in holder.parameters())
    assert len(plist) == 2 and "a" in pdict and pdict["a"].shape == (1,)
