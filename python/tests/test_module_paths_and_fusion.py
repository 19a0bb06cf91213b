"""The module paths custom layers import from (nn.modules.utils,
nn.common_types, utils.hooks, autograd.variable, types,
nn.utils.stateless) and nn.utils.fusion's folded layers, against PyTorch."""

import collections

import pytest

import ember


def helper_report(torch):
    import importlib

    utils = importlib.import_module(torch.__name__ + ".nn.modules.utils")
    state = collections.OrderedDict([("module.weight", 1), ("module.bias", 2), ("head", 3)])
    state._metadata = collections.OrderedDict([("", {}), ("module", {"version": 1})])
    utils.consume_prefix_in_state_dict_if_present(state, "module.")
    return (utils._single(3), utils._pair(3), utils._pair((1, 2)), utils._triple([4, 5, 6]), utils._quadruple(0),
            utils._reverse_repeat_tuple((1, 2), 2), utils._list_with_default([None, 7], (1, 2, 3, 4)),
            sorted(state), sorted(state._metadata))


def test_argument_helpers_match_pytorchs(torch):
    assert helper_report(ember) == helper_report(torch)


def test_the_other_paths_import_as_in_pytorch():
    from ember.autograd.variable import Variable
    from ember.nn.common_types import _size_2_t  # noqa: F401
    from ember.types import Number  # noqa: F401
    from ember.utils.hooks import RemovableHandle

    assert isinstance(ember.nn.Linear(1, 1).register_forward_hook(lambda *a: None), RemovableHandle)
    assert Variable(ember.ones(1), requires_grad=True).requires_grad
    layer = ember.nn.Linear(2, 1)
    with pytest.warns(FutureWarning, match="torch.func.functional_call"):
        out = ember.nn.utils.stateless.functional_call(layer, {"weight": ember.ones(1, 2), "bias": ember.zeros(1)},
                                                       (ember.tensor([[1.0, 2.0]]),))
    assert out.tolist() == [[3.0]]


def fused_outputs(torch):
    fusion = torch.nn.utils.fusion
    torch.manual_seed(0)
    conv, norm = torch.nn.Conv2d(3, 4, 3, bias=False), torch.nn.BatchNorm2d(4)
    linear, norm1d = torch.nn.Linear(5, 4), torch.nn.BatchNorm1d(4)
    with torch.no_grad():
        for i, module in enumerate((conv, norm, linear, norm1d)):
            for j, p in enumerate(list(module.parameters()) + list(module.buffers())[:2]):
                p.copy_((torch.arange(p.numel(), dtype=torch.float32).view_as(p) * 0.29 + i + j).sin().abs() + 0.1)
    for module in (conv, norm, linear, norm1d):
        module.eval()
    x = (torch.arange(96, dtype=torch.float32).view(2, 3, 4, 4) * 0.1).cos()
    v = (torch.arange(10, dtype=torch.float32).view(2, 5) * 0.3).sin()
    fused_conv = fusion.fuse_conv_bn_eval(conv, norm)
    fused_linear = fusion.fuse_linear_bn_eval(linear, norm1d)
    with torch.no_grad():
        return ((fused_conv(x) - norm(conv(x))).abs().max().item(), fused_conv(x).abs().sum().item(),
                (fused_linear(v) - norm1d(linear(v))).abs().max().item(), fused_linear(v).abs().sum().item())


def test_fused_layers_compute_what_the_pair_computed(torch):
    ours, theirs = fused_outputs(ember), fused_outputs(torch)
    assert ours[0] < 1e-5 and ours[2] < 1e-5
    assert ours[1] == pytest.approx(theirs[1], rel=1e-5) and ours[3] == pytest.approx(theirs[3], rel=1e-5)
    with pytest.raises(AssertionError, match="Fusion only for eval"):
        ember.nn.utils.fusion.fuse_conv_bn_eval(ember.nn.Conv2d(1, 1, 1), ember.nn.BatchNorm2d(1))
