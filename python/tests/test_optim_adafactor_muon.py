"""Adafactor and Muon against PyTorch's: parameters and state after each of
several steps from the same weights and gradients, state dicts (layout and
a round trip through ember.save / ember.load) and argument errors."""

import io

import numpy
import pytest

import ember
import ember.nn as nn
from helpers import assert_close

CASES = [
    ("Adafactor", [(4, 3), (5,), (2, 3, 4), ()], dict()),
    ("Adafactor", [(4, 3), (5,), (2, 3, 4)], dict(lr=0.05, weight_decay=0.1, maximize=True, eps=(1e-6, 1e-2), d=1.5,
                                                  beta2_decay=-0.5)),
    ("Adafactor", [(6, 2), (3,)], dict(lr=0.5, eps=(None, 0.0), d=1.0)),  # relative step capped, updates clipped
    ("Muon", [(4, 3), (3, 5), (8, 8)], dict()),
    ("Muon", [(4, 3), (3, 5)], dict(lr=0.02, nesterov=False, weight_decay=0.01, momentum=0.9,
                                    adjust_lr_fn="match_rms_adamw")),
    ("Muon", [(4, 3), (3, 5)], dict(lr=0.02, ns_steps=3, ns_coefficients=(2.0, -1.5, 0.5), eps=1e-5,
                                    adjust_lr_fn="original")),
]


def _pair(torch, name, shapes, options, seed=0):
    torch.manual_seed(seed)
    starts = [torch.randn(shape) for shape in shapes]
    theirs = [torch.nn.Parameter(start.clone()) for start in starts]
    ours = [nn.Parameter(ember.tensor(start.numpy())) for start in starts]
    return theirs, ours, getattr(torch.optim, name)(theirs, **options), getattr(ember.optim, name)(ours, **options)


def _assert_same_state(ours, theirs):
    assert ours["param_groups"] == theirs["param_groups"]
    assert sorted(ours["state"]) == sorted(theirs["state"])
    for index, values in theirs["state"].items():
        assert list(ours["state"][index]) == list(values)
        for key, value in values.items():
            assert_close(ours["state"][index][key], value, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name, shapes, options", CASES, ids=lambda value: str(value))
def test_steps_and_state_match_pytorch(torch, name, shapes, options):
    theirs, ours, t_opt, e_opt = _pair(torch, name, shapes, options)
    for step in range(8):
        for index, (t_param, e_param) in enumerate(zip(theirs, ours)):
            # the second parameter sits out the third step: no update and no state change
            skip = step == 2 and index == 1
            gradient = torch.randn(t_param.shape)
            t_param.grad, e_param.grad = (None, None) if skip else (gradient.clone(), ember.tensor(gradient.numpy()))
        t_opt.step()
        e_opt.step()
        for t_param, e_param in zip(theirs, ours):
            assert_close(e_param, t_param.detach(), rtol=1e-5, atol=1e-6)
    _assert_same_state(e_opt.state_dict(), t_opt.state_dict())


@pytest.mark.parametrize("name, shapes, options", CASES[1:2] + CASES[4:5], ids=lambda value: str(value))
def test_state_dict_round_trips_through_save_and_load(torch, name, shapes, options):
    theirs, ours, t_opt, e_opt = _pair(torch, name, shapes, options)
    gradients = [[torch.randn(shape) for shape in shapes] for _ in range(6)]

    def train(params, optimizer, steps):
        for step in steps:
            for param, gradient in zip(params, gradients[step]):
                param.grad = ember.tensor(gradient.numpy())
            optimizer.step()

    train(ours, e_opt, range(3))
    buffer = io.BytesIO()
    ember.save({"params": [p.detach() for p in ours], "optimizer": e_opt.state_dict()}, buffer)
    checkpoint = ember.load(io.BytesIO(buffer.getvalue()))
    resumed = [nn.Parameter(p.clone()) for p in checkpoint["params"]]
    resumed_opt = getattr(ember.optim, name)(resumed, **options)
    resumed_opt.load_state_dict(checkpoint["optimizer"])
    _assert_same_state(resumed_opt.state_dict(), e_opt.state_dict())
    train(ours, e_opt, range(3, 6))
    train(resumed, resumed_opt, range(3, 6))
    assert [p.tolist() for p in resumed] == [p.tolist() for p in ours]
    # and the resumed optimizer is where PyTorch's is after the same six steps
    for step in range(6):
        for param, gradient in zip(theirs, gradients[step]):
            param.grad = gradient.clone()
        t_opt.step()
    for t_param, e_param in zip(theirs, resumed):
        assert_close(e_param, t_param.detach(), rtol=1e-5, atol=1e-6)


def test_adafactor_state_layout_matches_pytorch(torch):
    _, ours, _, e_opt = _pair(torch, "Adafactor", [(2, 3, 4), (5,)], dict())
    for param in ours:
        param.grad = ember.ones(param.shape)
    e_opt.step()
    matrix, vector = (e_opt.state_dict()["state"][i] for i in (0, 1))
    assert list(matrix) == ["step", "row_var", "col_var"] and list(vector) == ["step", "variance"]
    assert list(matrix["row_var"].shape) == [2, 3, 1] and list(matrix["col_var"].shape) == [2, 1, 4]
    assert matrix["step"].dtype == ember.float32 and matrix["step"].item() == 1.0
    assert e_opt.param_groups[0]["eps"] == (None, 1e-3)


def test_muon_orthogonalizes_with_pytorchs_bfloat16_iteration(torch):
    from torch.optim._muon import _zeropower_via_newtonschulz
    from ember.optim.muon import _orthogonalize
    torch.manual_seed(3)
    for shape in [(4, 7), (9, 5), (16, 16)]:
        matrix = torch.randn(shape)
        theirs = _zeropower_via_newtonschulz(matrix, (3.4445, -4.7750, 2.0315), 5, 1e-7)
        ours = _orthogonalize(ember.tensor(matrix.numpy()), (3.4445, -4.7750, 2.0315), 5, 1e-7)
        assert ours.dtype == ember.bfloat16
        numpy.testing.assert_array_equal(ours.float().numpy(), theirs.float().numpy())
    # The singular values come out near 1 (the coefficients leave them between about 0.5 and 1.5).
    singular_values = numpy.linalg.svd(ours.float().numpy(), compute_uv=False)
    assert 0.5 < singular_values.min() and singular_values.max() < 1.5


ERRORS = [
    ("Adafactor", [(2, 2)], dict(lr=-1.0)), ("Adafactor", [(2, 2)], dict(beta2_decay=0.5)),
    ("Adafactor", [(2, 2)], dict(eps=(-1.0, 1e-3))), ("Adafactor", [(2, 2)], dict(eps=(None, -1.0))),
    ("Adafactor", [(2, 2)], dict(d=0.5)), ("Adafactor", [(2, 2)], dict(weight_decay=-0.1)),
    ("Muon", [(2, 2)], dict(lr=-1.0)), ("Muon", [(2, 2)], dict(momentum=-0.5)),
    ("Muon", [(2, 2)], dict(weight_decay=-0.1)), ("Muon", [(2, 2)], dict(adjust_lr_fn="sqrt")),
    ("Muon", [(2, 2), (3,)], dict()), ("Muon", [(2, 2, 2)], dict()),
]


@pytest.mark.parametrize("name, shapes, options", ERRORS, ids=lambda value: str(value))
def test_argument_errors_match_pytorch(torch, name, shapes, options):
    messages = []
    for lib in (ember, torch):
        with pytest.raises(ValueError) as caught:
            getattr(lib.optim, name)([lib.nn.Parameter(lib.zeros(shape)) for shape in shapes], **options)
        messages.append(str(caught.value).replace("ember.Size", "torch.Size"))
    assert messages[0] == messages[1]


def test_muon_refuses_too_many_newton_schulz_steps(torch):
    for lib in (ember, torch):
        param = lib.nn.Parameter(lib.ones(2, 2))
        optimizer = lib.optim.Muon([param], ns_steps=100)
        param.grad = lib.ones(2, 2)
        with pytest.raises(ValueError, match="Number of steps must be less than 100"):
            optimizer.step()
