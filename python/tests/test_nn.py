"""ember.nn against PyTorch: Module bookkeeping, layers forward and backward
with the same weights, initial statistics, functional ops, clipping."""

from collections import OrderedDict

import numpy
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from helpers import assert_close


def copy_weights(ember_module, torch_module, torch):
    """Gives the ember module the PyTorch module's weights (through DLPack)."""
    state = {k: ember.tensor(v.detach()) for k, v in torch_module.state_dict().items()}
    ember_module.load_state_dict(state)


def check_layer(torch, ember_layer, torch_layer, *shapes, integer_input=None, rtol=1e-4, atol=1e-5):
    copy_weights(ember_layer, torch_layer, torch)
    torch.manual_seed(0)
    if integer_input is not None:
        t_inputs = [torch.randint(0, integer_input, shapes[0])]
    else:
        t_inputs = [torch.randn(*shape, requires_grad=True) for shape in shapes]
    e_inputs = [ember.tensor(t.detach()).requires_grad_(t.requires_grad) for t in t_inputs]
    t_out, e_out = torch_layer(*t_inputs), ember_layer(*e_inputs)
    assert_close(e_out, t_out, rtol=rtol, atol=atol)
    t_out.pow(2).sum().backward()
    e_out.pow(2).sum().backward()
    for (name, e_param), (_, t_param) in zip(ember_layer.named_parameters(), torch_layer.named_parameters()):
        assert_close(e_param.grad, t_param.grad, rtol=rtol, atol=atol * 10)
    for e_input, t_input in zip(e_inputs, t_inputs):
        if t_input.requires_grad:
            assert_close(e_input.grad, t_input.grad, rtol=rtol, atol=atol * 10)


def test_layers_match_pytorch(torch):
    tnn = torch.nn
    check_layer(torch, nn.Linear(5, 3), tnn.Linear(5, 3), (4, 5))
    check_layer(torch, nn.Conv2d(2, 4, 3, stride=2, padding=1), tnn.Conv2d(2, 4, 3, stride=2, padding=1), (2, 2, 7, 7))
    check_layer(torch, nn.Conv1d(3, 2, 3, padding="same"), tnn.Conv1d(3, 2, 3, padding="same"), (2, 3, 8))
    check_layer(torch, nn.LayerNorm(6), tnn.LayerNorm(6), (3, 6))
    check_layer(torch, nn.GroupNorm(2, 4), tnn.GroupNorm(2, 4), (2, 4, 3, 3))
    check_layer(torch, nn.BatchNorm1d(3), tnn.BatchNorm1d(3), (8, 3))
    check_layer(torch, nn.BatchNorm2d(3), tnn.BatchNorm2d(3), (4, 3, 2, 2))
    check_layer(torch, nn.Embedding(10, 4, padding_idx=0), tnn.Embedding(10, 4, padding_idx=0), (3, 5),
                integer_input=10)
    check_layer(torch, nn.MaxPool2d(2), tnn.MaxPool2d(2), (1, 2, 4, 4))
    check_layer(torch, nn.AvgPool2d(3, 1, 1), tnn.AvgPool2d(3, 1, 1), (1, 2, 4, 4))
    check_layer(torch, nn.AdaptiveAvgPool2d(1), tnn.AdaptiveAvgPool2d(1), (2, 3, 4, 4))
    for ours, theirs in [(nn.ReLU(), tnn.ReLU()), (nn.GELU(), tnn.GELU()), (nn.SiLU(), tnn.SiLU()),
                         (nn.LeakyReLU(0.2), tnn.LeakyReLU(0.2)), (nn.ELU(), tnn.ELU()), (nn.Tanh(), tnn.Tanh()),
                         (nn.Softplus(), tnn.Softplus()), (nn.Sigmoid(), tnn.Sigmoid()),
                         (nn.Softmax(1), tnn.Softmax(1)), (nn.LogSoftmax(1), tnn.LogSoftmax(1)),
                         (nn.Hardtanh(), tnn.Hardtanh()), (nn.Flatten(), tnn.Flatten())]:
        check_layer(torch, ours, theirs, (3, 4, 2))


# (input shape, kernel_size, stride, padding, dilation) and what ceil_mode
# changes in PyTorch: a partial window is kept where it starts inside the
# input or its top/left padding, and dropped where it would start in the
# bottom/right padding.
MAX_POOL_CASES = [
    ((1, 2, 5, 5), 2, None, 0, 1),  # 2x2 -> 3x3
    ((1, 1, 7, 10), 3, 2, 1, (2, 1)),  # 3x5 -> 3x6: a column only
    ((2, 6, 7), 2, 3, 0, 1),  # 2x2 -> 2x3: the extra row would start past the input
    ((1, 1, 6, 6), 3, 2, 1, 1),  # 3x3 -> 4x4 with padding
    ((1, 1, 5, 5), 2, 2, 1, 1),  # 3x3 either way: both extra windows would start in the padding
    ((2, 3, 9, 8), (3, 2), (2, 3), 1, 1),  # 5x3 either way
]


@pytest.mark.parametrize("ceil_mode", [False, True])
@pytest.mark.parametrize("shape, kernel_size, stride, padding, dilation", MAX_POOL_CASES)
def test_max_pool2d_ceil_mode_and_indices_match_pytorch(torch, shape, kernel_size, stride, padding, dilation,
                                                        ceil_mode):
    torch.manual_seed(0)
    t_input = torch.randn(*shape, requires_grad=True)
    e_input = ember.tensor(t_input.detach()).requires_grad_()
    args = (kernel_size, stride, padding, dilation, ceil_mode)
    t_values, t_indices = torch.nn.functional.max_pool2d(t_input, *args, return_indices=True)
    e_values, e_indices = F.max_pool2d(e_input, *args, return_indices=True)
    assert_close(e_values, t_values)
    assert_close(e_indices, t_indices)
    assert_close(F.max_pool2d(e_input, *args), t_values)
    weights = torch.randn(t_values.shape)
    (t_values * weights).sum().backward()
    (e_values * ember.tensor(weights)).sum().backward()
    assert_close(e_input.grad, t_input.grad)


@pytest.mark.parametrize("shape, ceil_mode", [((2, 3, 8, 10), False), ((2, 3, 7, 9), False), ((1, 2, 7, 9), True),
                                               ((1, 2, 4, 1030), False)])  # rows of 515 windows: pieces of 256
def test_the_2x2_max_pool_follows_the_general_rules(shape, ceil_mode):
    """float32's 2x2 stride-2 pool has a kernel of its own (Note [2x2 max
    pool]); float64 takes the general search. On the same values, with ties,
    infinities, NaNs (first one wins) and a -0 gradient, both give the same
    values, indices and gradients, through a strided view too."""
    values = numpy.random.default_rng(0).integers(-3, 4, size=(shape[0], shape[1] + 1, *shape[2:])).astype("float32")
    flat = values[0, 1].reshape(-1)  # the first plane pooled
    flat[5], flat[6], flat[17], flat[40], flat[41], flat[60] = numpy.nan, 2, numpy.inf, -numpy.inf, numpy.nan, -numpy.inf
    values[-1, -1, :2, :2] = -numpy.inf  # a window of -inf only
    results = []
    for dtype in (ember.float32, ember.float64):
        x = ember.tensor(values).to(dtype)[:, 1:].requires_grad_()  # planes a channel apart
        pooled, indices = F.max_pool2d(x, 2, ceil_mode=ceil_mode, return_indices=True)
        weights = numpy.random.default_rng(1).standard_normal(pooled.shape).astype("float32")
        weights = ember.tensor(weights).to(dtype)
        weights.view(-1)[0] = -0.0
        (pooled * weights).sum().backward()
        results.append((pooled.detach().double().numpy(), indices.numpy(), x.grad.double().numpy()))
    for ours, general in zip(*results):
        numpy.testing.assert_array_equal(ours, general)
        assert numpy.array_equal(numpy.signbit(ours), numpy.signbit(general))


def test_max_pool2d_module_options(torch):
    options = dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, return_indices=True)
    pool, t_pool = nn.MaxPool2d(**options), torch.nn.MaxPool2d(**options)
    assert repr(pool) == repr(t_pool).replace("torch.", "")
    t_input = torch.randn(2, 3, 6, 8)
    values, indices = pool(ember.tensor(t_input))
    t_values, t_indices = t_pool(t_input)
    assert_close(values, t_values)
    assert_close(indices, t_indices)
    unbatched = t_input[0, :, :5, :5]
    assert_close(nn.MaxPool2d(2, ceil_mode=True)(ember.tensor(unbatched)),
                 torch.nn.MaxPool2d(2, ceil_mode=True)(unbatched))


@pytest.mark.parametrize("shape, kernel_size, stride, padding, ceil_mode", [
    ((2, 3, 11), 3, None, 0, False),
    ((2, 3, 11), 3, 2, 1, True),
    ((4, 10), 2, 3, 0, True),  # unbatched [C, L]
])
def test_1d_pools_match_pytorch(torch, shape, kernel_size, stride, padding, ceil_mode):
    torch.manual_seed(0)
    t_input = torch.randn(*shape, requires_grad=True)
    e_input = ember.tensor(t_input.detach()).requires_grad_()
    t_values, t_indices = torch.nn.functional.max_pool1d(t_input, kernel_size, stride, padding, 1, ceil_mode, True)
    e_values, e_indices = F.max_pool1d(e_input, kernel_size, stride, padding, 1, ceil_mode, True)
    assert_close(e_values, t_values)
    assert_close(e_indices, t_indices)
    (t_values * t_values).sum().backward()
    (e_values * e_values).sum().backward()
    assert_close(e_input.grad, t_input.grad)
    assert_close(F.avg_pool1d(e_input, kernel_size, stride, padding, ceil_mode),
                 torch.nn.functional.avg_pool1d(t_input, kernel_size, stride, padding, ceil_mode))
    assert_close(F.adaptive_avg_pool1d(e_input, 4), torch.nn.functional.adaptive_avg_pool1d(t_input, 4))


@pytest.mark.parametrize("count_include_pad", [True, False])
@pytest.mark.parametrize("divisor_override", [None, 5])
@pytest.mark.parametrize("shape, kernel_size, stride, padding", [case[:4] for case in MAX_POOL_CASES])
def test_avg_pool2d_ceil_mode_and_divisor_override_match_pytorch(torch, shape, kernel_size, stride, padding,
                                                                 count_include_pad, divisor_override):
    torch.manual_seed(0)
    t_input = torch.randn(*shape, requires_grad=True)
    e_input = ember.tensor(t_input.detach()).requires_grad_()
    args = (kernel_size, stride, padding, True, count_include_pad, divisor_override)
    t_out = torch.nn.functional.avg_pool2d(t_input, *args)
    e_out = F.avg_pool2d(e_input, *args)
    assert_close(e_out, t_out)
    weights = torch.randn(t_out.shape)
    (t_out * weights).sum().backward()
    (e_out * ember.tensor(weights)).sum().backward()
    assert_close(e_input.grad, t_input.grad)


def test_1d_pool_modules_match_pytorch(torch):
    t_input = torch.randn(2, 3, 12)
    for name, args in (("MaxPool1d", (3, 2, 1)), ("AvgPool1d", (3, 2, 1)), ("AdaptiveAvgPool1d", (5,))):
        ours, theirs = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
        assert repr(ours) == repr(theirs).replace("torch.", "")
        assert_close(ours(ember.tensor(t_input)), theirs(t_input))


def test_batch_norm_running_statistics(torch):
    ours, theirs = nn.BatchNorm1d(3), torch.nn.BatchNorm1d(3)
    torch.manual_seed(1)
    for _ in range(3):
        x = torch.randn(6, 3) * 2 + 1
        ours(ember.tensor(x))
        theirs(x)
    assert_close(ours.running_mean, theirs.running_mean, rtol=1e-5)
    assert_close(ours.running_var, theirs.running_var, rtol=1e-5)
    assert int(ours.num_batches_tracked) == 3
    ours.eval()
    theirs.eval()
    x = torch.randn(2, 3)
    assert_close(ours(ember.tensor(x)), theirs(x), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss",
                                  "binary_cross_entropy", "binary_cross_entropy_with_logits"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_losses_match_pytorch(torch, loss, reduction):
    torch.manual_seed(2)
    logits = torch.randn(4, 5, requires_grad=True)
    if loss in ("cross_entropy", "nll_loss"):
        target = torch.tensor([0, 3, 4, 1])
        inputs = logits.log_softmax(1) if loss == "nll_loss" else logits
    elif loss == "binary_cross_entropy":
        target, inputs = torch.rand(4, 5), logits.sigmoid()
    else:
        target, inputs = torch.randn(4, 5), logits
    e_logits = ember.tensor(logits.detach()).requires_grad_()
    e_inputs = {"nll_loss": e_logits.log_softmax(1), "binary_cross_entropy": e_logits.sigmoid()}.get(loss, e_logits)
    expected = getattr(torch.nn.functional, loss)(inputs, target, reduction=reduction)
    actual = getattr(F, loss)(e_inputs, ember.tensor(target), reduction=reduction)
    assert_close(actual, expected, rtol=1e-5, atol=1e-6)
    expected.sum().backward()
    actual.sum().backward()
    assert_close(e_logits.grad, logits.grad, rtol=1e-4, atol=1e-6)


def test_cross_entropy_options(torch):
    torch.manual_seed(3)
    logits, target, weight = torch.randn(6, 4), torch.tensor([0, 1, -100, 3, 2, 1]), torch.rand(4)
    expected = torch.nn.functional.cross_entropy(logits, target, weight=weight, label_smoothing=0.1)
    actual = nn.CrossEntropyLoss(weight=ember.tensor(weight), label_smoothing=0.1)(ember.tensor(logits),
                                                                                 ember.tensor(target))
    assert_close(actual, expected, rtol=1e-5)


def test_module_registration_and_traversal():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(3, 4), nn.ReLU())
            self.head = nn.Linear(4, 2, bias=False)
            self.register_buffer("steps", ember.zeros(()))
            self.register_buffer("cache", ember.zeros(2), persistent=False)
            self.scale = 2.0

        def forward(self, x):
            return self.head(self.body(x)) * self.scale

    net = Net()
    assert [name for name, _ in net.named_parameters()] == ["body.0.weight", "body.0.bias", "head.weight"]
    assert list(net.state_dict()) == ["steps", "body.0.weight", "body.0.bias", "head.weight"]
    assert [name for name, _ in net.named_modules()] == ["", "body", "body.0", "body.1", "head"]
    assert len(list(net.children())) == 2 and len(list(net.buffers())) == 2
    assert net(ember.ones(5, 3)).shape == (5, 2)
    assert not net.eval().training and not net.body[0].training
    assert net.train().body[1].training
    net.head = nn.Linear(4, 2)
    assert "head.bias" in net.state_dict()
    with pytest.raises(TypeError, match="nn.Parameter or None"):
        net.head.weight = ember.ones(2, 4)
    with pytest.raises(AttributeError):
        net.missing
    visited = []
    net.apply(lambda m: visited.append(type(m).__name__))
    assert visited[-1] == "Net" and "ReLU" in visited
    assert "(body): Sequential(" in repr(net) and "(head): Linear(in_features=4" in repr(net)


def test_state_dict_round_trip_and_strictness(tmp_path):
    source, target = nn.Linear(3, 2), nn.Linear(3, 2)
    path = tmp_path / "linear.safetensors"
    ember.save(source.state_dict(), path)
    result = target.load_state_dict(ember.load(path))
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert target.weight.tolist() == source.weight.tolist()
    with pytest.raises(RuntimeError, match='Missing key.*"bias"'):
        target.load_state_dict({"weight": source.weight})
    result = target.load_state_dict({"weight": source.weight, "extra": ember.ones(1)}, strict=False)
    assert result.missing_keys == ["bias"] and result.unexpected_keys == ["extra"]
    with pytest.raises(RuntimeError, match="size mismatch for weight"):
        target.load_state_dict({"weight": ember.ones(2, 2), "bias": source.bias})


def test_zero_grad_to_and_hooks():
    layer = nn.Linear(2, 2)
    layer(ember.ones(1, 2)).sum().backward()
    assert layer.weight.grad is not None
    layer.zero_grad(set_to_none=False)
    assert layer.weight.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    layer.zero_grad()
    assert layer.weight.grad is None
    doubled = layer.to(ember.float64)
    assert doubled is layer and layer.weight.dtype is ember.float64 and isinstance(layer.weight, nn.Parameter)
    assert layer.weight.requires_grad
    calls = []
    handle = layer.register_forward_hook(lambda module, args, output: calls.append(output.shape) or output * 0)
    assert layer(ember.ones(1, 2, dtype=ember.float64)).tolist() == [[0.0, 0.0]]
    handle.remove()
    layer(ember.ones(1, 2, dtype=ember.float64))
    assert calls == [(1, 2)]
    pre = layer.register_forward_pre_hook(lambda module, args: (args[0] * 0,))
    assert layer(ember.ones(1, 2, dtype=ember.float64)).tolist() == layer.bias.detach().unsqueeze(0).tolist()
    pre.remove()


def test_deepcopy_makes_independent_modules():
    import copy

    original = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    clone = copy.deepcopy(original)
    assert isinstance(clone[0].weight, nn.Parameter) and clone[0].weight.requires_grad
    assert clone[0].weight.tolist() == original[0].weight.tolist()
    with ember.no_grad():
        clone[0].weight.fill_(0)
    assert original[0].weight.abs().sum().item() > 0
    assert not clone[1].running_mean.is_alias_of(original[1].running_mean)


def test_containers():
    seq = nn.Sequential(OrderedDict([("a", nn.Linear(2, 3)), ("b", nn.ReLU())]))
    assert isinstance(seq[0], nn.Linear) and len(seq) == 2 and isinstance(seq[1:][0], nn.ReLU)
    layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    layers.append(nn.Linear(2, 1))
    assert len(layers) == 4 and len(list(layers.parameters())) == 8
    table = nn.ModuleDict({"x": nn.Linear(1, 1)})
    table["y"] = nn.ReLU()
    assert list(table.keys()) == ["x", "y"] and "x" in table


def test_parameter():
    p = nn.Parameter(ember.ones(2))
    assert p.requires_grad and p.is_leaf and isinstance(p, ember.Tensor)
    assert repr(p).startswith("Parameter containing:\ntensor([1., 1.], requires_grad=True)")
    frozen = nn.Parameter(ember.ones(2), requires_grad=False)
    assert not frozen.requires_grad


@pytest.mark.parametrize("layer,torch_name,args,fan_in", [
    (nn.Linear, "Linear", (256, 128), 256),
    (nn.Conv2d, "Conv2d", (16, 128, 3), 16 * 9),
])
def test_default_initialization_matches_pytorch_statistics(torch, layer, torch_name, args, fan_in):
    """Weights and biases of fresh layers are uniform on +-1/sqrt(fan_in) in both libraries."""
    ember.manual_seed(0)
    torch.manual_seed(0)
    ours, theirs = layer(*args), getattr(torch.nn, torch_name)(*args)
    bound = fan_in ** -0.5
    for name in ("weight", "bias"):
        for values in (getattr(ours, name).detach().numpy(), getattr(theirs, name).detach().numpy()):
            assert 0.9 * bound < abs(values).max() <= bound
            assert abs(values.std() - bound / 3 ** 0.5) < 0.15 * bound / 3 ** 0.5
            assert abs(values.mean()) < 0.2 * bound


def test_init_functions_follow_fan_rules():
    ember.manual_seed(0)
    w = ember.empty(400, 300)
    nn.init.kaiming_normal_(w, nonlinearity="relu")
    assert abs(float(w.std()) - (2 / 300) ** 0.5) < 0.01 * (2 / 300) ** 0.5 * 5
    nn.init.xavier_uniform_(w)
    bound = (6 / 700) ** 0.5
    assert float(w.abs().amax()) <= bound and float(w.abs().amax()) > 0.95 * bound
    nn.init.trunc_normal_(w, std=1.0, a=-0.5, b=0.5)
    assert float(w.abs().amax()) <= 0.5
    nn.init.constant_(w, 0.25)
    assert float(w.mean()) == 0.25
    assert nn.init.calculate_gain("leaky_relu", 0.2) == pytest.approx((2 / 1.04) ** 0.5)


def test_clip_grad_norm_matches_pytorch(torch):
    torch.manual_seed(4)
    grads = [torch.randn(3, 4), torch.randn(5)]
    for norm_type in (2.0, 1.0, float("inf")):
        theirs = [torch.zeros_like(g, requires_grad=True) for g in grads]
        ours = [ember.zeros(*g.shape, requires_grad=True) for g in grads]
        for t, e, g in zip(theirs, ours, grads):
            t.grad, e.grad = g.clone(), ember.tensor(g)
        expected = torch.nn.utils.clip_grad_norm_(theirs, 1.0, norm_type)
        actual = nn.utils.clip_grad_norm_(ours, 1.0, norm_type)
        assert_close(actual, expected, rtol=1e-5)
        for t, e in zip(theirs, ours):
            assert_close(e.grad, t.grad, rtol=1e-5, atol=1e-7)


def module_lookup_and_conversion_report(torch):
    nn = torch.nn
    m = nn.Sequential(nn.Linear(1, 1))
    out = []
    for t in ['', '0', '1', '0.weight', '0.nope']:
        try:
            out.append((t, type(m.get_submodule(t)).__name__))
        except AttributeError as e:
            out.append((t, str(e)))
    for t in ['0.weight', '0.bias', '0.nope', 'x.weight', '0', 'weight']:
        try:
            out.append((t, list(m.get_parameter(t).shape)))
        except AttributeError as e:
            out.append((t, str(e)))
    b = nn.BatchNorm1d(2)
    for t in ['running_mean', 'weight', 'nope']:
        try:
            out.append((t, list(b.get_buffer(t).shape)))
        except AttributeError as e:
            out.append((t, str(e)))
    out.append(str(nn.BatchNorm1d(2).type(torch.float64).num_batches_tracked.dtype).split('.')[-1])
    out.append(str(nn.Linear(2, 2).bfloat16().weight.dtype).split('.')[-1])
    meta = nn.Sequential(nn.Linear(2, 3, device="meta"), nn.Sequential(nn.Linear(3, 1, device="meta")))
    meta.to_empty(device="cpu", recurse=True)
    out.append([p.device.type for p in meta.parameters()] + [type(p).__name__ for p in meta.parameters()])
    meta2 = nn.Linear(2, 3, device="meta")
    meta2.to_empty(device="cpu", recurse=False)
    out.append(meta2.weight.device.type)
    return out


def test_module_lookups_conversions_and_to_empty_match_pytorch(torch):
    assert module_lookup_and_conversion_report(ember) == module_lookup_and_conversion_report(torch)
