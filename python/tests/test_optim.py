"""Optimizers and schedulers against PyTorch, and the training-parity check:
the same MLP from the same weights (through DLPack), the same data, 20 SGD
and 20 Adam steps, losses equal to 1e-4 relative."""

import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from helpers import assert_close

OPTIMIZERS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.1, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1, amsgrad=True)),
    ("AdamW", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True, weight_decay=0.01)),
]


@pytest.mark.parametrize("name,options", OPTIMIZERS, ids=lambda v: str(v))
def test_update_rules_match_pytorch(torch, name, options):
    torch.manual_seed(0)
    start = torch.randn(4, 3)
    theirs = torch.nn.Parameter(start.clone())
    ours = nn.Parameter(ember.tensor(start))
    t_opt = getattr(torch.optim, name)([theirs], **options)
    e_opt = getattr(ember.optim, name)([ours], **options)
    for step in range(6):
        gradient = torch.randn(4, 3)
        theirs.grad, ours.grad = gradient.clone(), ember.tensor(gradient)
        t_opt.step()
        e_opt.step()
        assert_close(ours, theirs.detach(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name,options", OPTIMIZERS, ids=lambda v: str(v))
def test_group_update_matches_pytorch_and_skips_parameters_without_gradients(torch, name, options):
    # One call updates the whole group (Note [Foreach updates]); a parameter
    # whose gradient is None keeps its value and gets no state.
    torch.manual_seed(1)
    starts = [torch.randn(4, 3), torch.randn(5), torch.randn(2, 2)]
    theirs = [torch.nn.Parameter(start.clone()) for start in starts]
    ours = [nn.Parameter(ember.tensor(start)) for start in starts]
    t_opt = getattr(torch.optim, name)(theirs, **options)
    e_opt = getattr(ember.optim, name)(ours, **options)
    for step in range(4):
        for index, (t_param, e_param) in enumerate(zip(theirs, ours)):
            gradient = torch.randn(t_param.shape)
            t_param.grad, e_param.grad = (None, None) if index == 1 else (gradient.clone(), ember.tensor(gradient))
        t_opt.step()
        e_opt.step()
        for t_param, e_param in zip(theirs, ours):
            assert_close(e_param, t_param.detach(), rtol=1e-5, atol=1e-6)
    assert ours[1].tolist() == starts[1].tolist() and ours[1] not in e_opt.state


def test_group_update_rejects_lists_of_different_lengths():
    params = [nn.Parameter(ember.ones(2)), nn.Parameter(ember.ones(3))]
    grads = [ember.ones(2)]
    with pytest.raises(ValueError, match=r"_sgd_step\(\): got 2 parameters but a list of 1 tensors"):
        ember._C._foreach.sgd_step(params, grads, [None, None], lr=0.1, momentum=0.0, dampening=0.0,
                                   weight_decay=0.0, nesterov=False, maximize=False)


def test_param_groups_zero_grad_and_state_dict(torch):
    a, b = nn.Parameter(ember.ones(2)), nn.Parameter(ember.ones(3))
    opt = ember.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1, momentum=0.9)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
    (a.sum() + b.sum()).backward()
    opt.step()
    assert a.tolist() == pytest.approx([0.9, 0.9]) and b.tolist() == pytest.approx([0.5] * 3)
    opt.zero_grad()
    assert a.grad is None
    saved = opt.state_dict()
    assert sorted(saved["state"]) == [0, 1] and saved["param_groups"][1]["params"] == [1]
    fresh = ember.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1, momentum=0.9)
    fresh.load_state_dict(saved)
    assert fresh.state[b]["momentum_buffer"].tolist() == opt.state[b]["momentum_buffer"].tolist()
    with pytest.raises(ValueError, match="more than one parameter group"):
        ember.optim.SGD([{"params": [a]}, {"params": [a]}], lr=0.1)


SCHEDULERS = [
    ("StepLR", dict(step_size=3, gamma=0.5)),
    ("MultiStepLR", dict(milestones=[2, 5, 5], gamma=0.1)),
    ("CosineAnnealingLR", dict(T_max=7, eta_min=0.01)),
    ("LinearLR", dict(start_factor=0.25, total_iters=4)),
    ("OneCycleLR", dict(max_lr=1.0, total_steps=12)),
    ("OneCycleLR", dict(max_lr=0.5, epochs=3, steps_per_epoch=4, anneal_strategy="linear", three_phase=True)),
]


@pytest.mark.parametrize("name,options", SCHEDULERS, ids=lambda v: str(v))
def test_schedulers_match_pytorch(torch, name, options):
    theirs_param = torch.nn.Parameter(torch.zeros(1))
    t_opt = torch.optim.SGD([theirs_param], lr=0.1, momentum=0.9)
    e_opt = ember.optim.SGD([nn.Parameter(ember.zeros(1))], lr=0.1, momentum=0.9)
    t_sched = getattr(torch.optim.lr_scheduler, name)(t_opt, **options)
    e_sched = getattr(ember.optim.lr_scheduler, name)(e_opt, **options)
    for _ in range(11):
        assert e_sched.get_last_lr() == pytest.approx(t_sched.get_last_lr(), rel=1e-9, abs=1e-12)
        assert e_opt.param_groups[0]["momentum"] == pytest.approx(t_opt.param_groups[0]["momentum"])
        t_opt.step()
        e_opt.step()
        t_sched.step()
        e_sched.step()


def mlp_pair(torch):
    torch.manual_seed(0)
    theirs = torch.nn.Sequential(torch.nn.Linear(20, 32), torch.nn.ReLU(), torch.nn.Linear(32, 32),
                                 torch.nn.Tanh(), torch.nn.Linear(32, 5))
    ours = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 5))
    ours.load_state_dict({k: ember.from_dlpack(v.detach()).clone() for k, v in theirs.state_dict().items()})
    inputs = torch.randn(64, 20)
    labels = torch.randint(0, 5, (64,))
    return theirs, ours, inputs, labels


@pytest.mark.parametrize("optimizer,options", [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=1e-3))])
def test_training_parity_with_pytorch(torch, optimizer, options):
    theirs, ours, inputs, labels = mlp_pair(torch)
    e_inputs, e_labels = ember.from_dlpack(inputs), ember.from_dlpack(labels)
    t_opt = getattr(torch.optim, optimizer)(theirs.parameters(), **options)
    e_opt = getattr(ember.optim, optimizer)(ours.parameters(), **options)
    for step in range(20):
        t_opt.zero_grad()
        t_loss = torch.nn.functional.cross_entropy(theirs(inputs), labels)
        t_loss.backward()
        t_opt.step()
        e_opt.zero_grad()
        e_loss = F.cross_entropy(ours(e_inputs), e_labels)
        e_loss.backward()
        e_opt.step()
        assert e_loss.item() == pytest.approx(t_loss.item(), rel=1e-4), f"step {step}"
