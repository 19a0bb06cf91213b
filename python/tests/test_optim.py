"""Optimizers and schedulers against PyTorch, and the training-parity check:
the same MLP from the same weights (through DLPack), the same data, 20 SGD
and 20 Adam steps, losses equal to 1e-4 relative."""

import io

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
    ("AdamW", dict(lr=0.01, betas=(0.8, 0.9), weight_decay=0.1, amsgrad=True, maximize=True)),
    ("SGD", dict(lr=0.05, momentum=0.8, dampening=0.3, weight_decay=0.01, maximize=True)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True, weight_decay=0.01)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.05, weight_decay=0.1, initial_accumulator_value=0.5, maximize=True)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.1)),
    ("Adamax", dict(lr=0.01)),
    ("Adamax", dict(lr=0.01, betas=(0.3, 0.9), weight_decay=0.1, maximize=True)),
    ("NAdam", dict(lr=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, momentum_decay=0.01)),
    ("NAdam", dict(lr=0.01, betas=(0.6, 0.9), weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.01)),
    ("RAdam", dict(lr=0.01, betas=(0.9, 0.9), weight_decay=0.1)),  # rectified from step 6
    ("RAdam", dict(lr=0.01, betas=(0.9, 0.9), weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("Rprop", dict()),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2), maximize=True)),
    ("ASGD", dict(lr=0.05)),
    ("ASGD", dict(lr=0.05, lambd=0.01, alpha=0.5, t0=2, weight_decay=0.1, maximize=True)),
]


@pytest.mark.parametrize("name,options", OPTIMIZERS, ids=lambda v: str(v))
def test_update_rules_match_pytorch(torch, name, options):
    torch.manual_seed(0)
    start = torch.randn(4, 3)
    theirs = torch.nn.Parameter(start.clone())
    ours = nn.Parameter(ember.tensor(start))
    t_opt = getattr(torch.optim, name)([theirs], **options)
    e_opt = getattr(ember.optim, name)([ours], **options)
    for step in range(8):
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
    assert ours[1].tolist() == starts[1].tolist() and (ours[1] in e_opt.state) == (theirs[1] in t_opt.state)


FUSED_UPDATES = [
    ("SGD", dict(lr=0.1), {"sgd_update": 3}),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01), {"sgd_update": 3}),
    ("Adam", dict(lr=0.01, amsgrad=True), {"adam_update": 3}),
    ("AdamW", dict(lr=0.01, weight_decay=0.1), {"adam_update": 3}),
    ("RMSprop", dict(lr=0.01, momentum=0.5, weight_decay=0.01), {"rmsprop_update": 3}),
]


@pytest.mark.parametrize("name,options,updates", FUSED_UPDATES, ids=lambda v: str(v))
def test_each_parameter_is_one_fused_update_that_matches_pytorch(torch, name, options, updates):
    # One update kernel per parameter (Note [Fused optimizer updates]) and no
    # arithmetic beside it but Adam's and RMSprop's step counts,
    # here with a parameter large enough to be split over threads, in float64
    # as well.
    from ember.profiler import profile

    for dtype in ("float32", "float64"):
        torch.manual_seed(2)
        starts = [torch.randn(300, 700).to(getattr(torch, dtype)), torch.randn(17).to(getattr(torch, dtype)),
                  torch.randn(3, 4).to(getattr(torch, dtype))]
        theirs = [torch.nn.Parameter(start.clone()) for start in starts]
        ours = [nn.Parameter(ember.tensor(start)) for start in starts]
        t_opt = getattr(torch.optim, name)(theirs, **options)
        e_opt = getattr(ember.optim, name)(ours, **options)
        for step in range(5):
            for t_param, e_param in zip(theirs, ours):
                gradient = torch.randn(t_param.shape).to(t_param.dtype)
                t_param.grad, e_param.grad = gradient.clone(), ember.tensor(gradient)
            t_opt.step()
            with profile() as prof:
                e_opt.step()
            counts = {avg.key: avg.count for avg in prof.key_averages()}
            assert {op: counts.get(op, 0) for op in updates} == updates, counts
            assert not {"mul", "sub", "div", "sqrt", "neg", "maximum"} & set(counts), counts
            assert counts.get("add", 0) == (0 if "sgd_update" in updates else 3), counts  # the step counts
            # RMSprop's first steps divide by sqrt(square_avg) + eps, which for a
            # gradient near eps turns the last bit of square_avg (PyTorch's
            # addcmul_ rounds g * g * (1 - alpha) its own way) into 1e-5.
            loose = name == "RMSprop"
            tolerance = (dict(rtol=1e-4 if loose else 1e-5, atol=1e-6) if dtype == "float32" else
                         dict(rtol=1e-9 if loose else 1e-12, atol=1e-14))
            for t_param, e_param in zip(theirs, ours):
                assert_close(e_param, t_param.detach(), **tolerance)


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
    ("LambdaLR", dict(lr_lambda=lambda epoch: 0.9 ** epoch + 0.1 * epoch)),
    ("ExponentialLR", dict(gamma=0.8)),
    ("CosineAnnealingWarmRestarts", dict(T_0=3, T_mult=2, eta_min=0.01)),
    ("CosineAnnealingWarmRestarts", dict(T_0=2)),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=3)),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=2, step_size_down=3, mode="triangular2")),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=2, mode="exp_range", gamma=0.9, base_momentum=0.7)),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=2, scale_fn=lambda x: 0.8 ** x, scale_mode="iterations",
                      cycle_momentum=False)),
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


def _sequential_pair(lib):
    optimizer = lib.optim.Adam([lib.nn.Parameter(lib.zeros(1))], lr=0.1)
    schedulers = lib.optim.lr_scheduler
    warmup = schedulers.LinearLR(optimizer, start_factor=0.1, total_iters=3)
    decay = schedulers.ExponentialLR(optimizer, gamma=0.7)
    cosine = schedulers.CosineAnnealingLR(optimizer, T_max=4)
    return optimizer, schedulers.SequentialLR(optimizer, [warmup, decay, cosine], milestones=[3, 6])


def test_sequential_lr_switches_schedulers_at_the_milestones_like_pytorch(torch):
    (t_opt, theirs), (e_opt, ours) = _sequential_pair(torch), _sequential_pair(ember)
    for _ in range(12):
        assert ours.get_last_lr() == pytest.approx(theirs.get_last_lr(), rel=1e-9)
        assert e_opt.param_groups[0]["lr"] == pytest.approx(t_opt.param_groups[0]["lr"], rel=1e-9)
        t_opt.step()
        e_opt.step()
        theirs.step()
        ours.step()
    optimizer = ember.optim.SGD([nn.Parameter(ember.zeros(1))], lr=0.1)
    other = ember.optim.SGD([nn.Parameter(ember.zeros(1))], lr=0.1)
    step = ember.optim.lr_scheduler.StepLR(optimizer, 2)
    with pytest.raises(ValueError, match="one more than the number of milestone points"):
        ember.optim.lr_scheduler.SequentialLR(optimizer, [step], milestones=[2])
    with pytest.raises(ValueError, match="does not support `ReduceLROnPlateau`"):
        ember.optim.lr_scheduler.SequentialLR(optimizer, [ember.optim.lr_scheduler.ReduceLROnPlateau(optimizer)], [])
    with pytest.raises(ValueError, match="belong to the same optimizer"):
        ember.optim.lr_scheduler.SequentialLR(optimizer, [ember.optim.lr_scheduler.StepLR(other, 2)], [])


@pytest.mark.parametrize("options", [
    dict(), dict(mode="max", factor=0.5, patience=1, cooldown=2, min_lr=0.02),
    dict(threshold_mode="abs", threshold=0.05, patience=0, eps=1e-3),
])
def test_reduce_lr_on_plateau_matches_pytorch(torch, options):
    t_opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1)), ], lr=0.1)
    e_opt = ember.optim.SGD([nn.Parameter(ember.zeros(1))], lr=0.1)
    theirs = torch.optim.lr_scheduler.ReduceLROnPlateau(t_opt, **options)
    ours = ember.optim.lr_scheduler.ReduceLROnPlateau(e_opt, **options)
    metrics = [1.0, 0.9, 0.95, 0.96, 0.97, 0.89, 0.99, 1.2, 0.5, 0.6, 0.7, 0.8, 0.9] * 2
    for metric in metrics:
        theirs.step(metric)
        ours.step(ember.tensor(metric))
        assert ours.get_last_lr() == pytest.approx(theirs.get_last_lr(), rel=1e-12)
        assert (ours.num_bad_epochs, ours.cooldown_counter) == (theirs.num_bad_epochs, theirs.cooldown_counter)
    for bad in (dict(factor=1.0), dict(mode="up"), dict(threshold_mode="x")):
        with pytest.raises(ValueError):
            ember.optim.lr_scheduler.ReduceLROnPlateau(e_opt, **bad)


def test_warm_restarts_take_fractional_epochs_like_pytorch(torch):
    t_opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.1)
    e_opt = ember.optim.SGD([nn.Parameter(ember.zeros(1))], lr=0.1)
    theirs = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(t_opt, T_0=2, T_mult=2, eta_min=0.001)
    ours = ember.optim.lr_scheduler.CosineAnnealingWarmRestarts(e_opt, T_0=2, T_mult=2, eta_min=0.001)
    for epoch in range(7):
        for batch in range(4):
            theirs.step(epoch + batch / 4)
            ours.step(epoch + batch / 4)
            assert ours.get_last_lr() == pytest.approx(theirs.get_last_lr(), rel=1e-9)
    for bad in (dict(T_0=0), dict(T_0=2, T_mult=0), dict(T_0=2, eta_min="0")):
        with pytest.raises(ValueError):
            ember.optim.lr_scheduler.CosineAnnealingWarmRestarts(e_opt, **bad)
    with pytest.raises(ValueError, match="non-negative epoch"):
        ours.step(-1)


def test_lambda_lr_state_dict_keeps_callable_objects_only():
    class Decay:
        def __init__(self):
            self.rate = 0.5

        def __call__(self, epoch):
            return self.rate ** epoch

    optimizer = ember.optim.SGD([nn.Parameter(ember.zeros(1))], lr=1.0)
    decay = Decay()
    scheduler = ember.optim.lr_scheduler.LambdaLR(optimizer, [decay])
    scheduler.step()
    state = scheduler.state_dict()
    assert state["lr_lambdas"] == [{"rate": 0.5}] and state["last_epoch"] == 1
    decay.rate = 0.1
    scheduler.load_state_dict(state)
    assert decay.rate == 0.5
    assert ember.optim.lr_scheduler.LambdaLR(optimizer, lambda e: 1.0).state_dict()["lr_lambdas"] == [None]
    with pytest.raises(ValueError, match="Expected 1 lr_lambdas, but got 2"):
        ember.optim.lr_scheduler.LambdaLR(optimizer, [decay, decay])
    with pytest.raises(TypeError, match="list is not an Optimizer"):
        ember.optim.lr_scheduler.ExponentialLR([], 0.5)


def test_cyclic_lr_needs_momentum_to_cycle_it(torch):
    for lib in (ember, torch):
        optimizer = lib.optim.Adagrad([lib.nn.Parameter(lib.zeros(1))], lr=0.1)
        with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
            lib.optim.lr_scheduler.CyclicLR(optimizer, 0.01, 0.1)
        with pytest.raises(ValueError, match="mode is invalid and scale_fn is None"):
            lib.optim.lr_scheduler.CyclicLR(optimizer, 0.01, 0.1, mode="square", cycle_momentum=False)


def _regression_pair(torch):
    """The same small float64 MLP regression in both libraries."""
    torch.manual_seed(3)
    inputs = torch.randn(32, 4, dtype=torch.float64)
    targets = torch.sin(inputs.sum(1, keepdim=True))
    theirs = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1)).double()
    ours = nn.Sequential(nn.Linear(4, 8, dtype=ember.float64), nn.Tanh(), nn.Linear(8, 1, dtype=ember.float64))
    ours.load_state_dict({k: ember.from_dlpack(v.detach()).clone() for k, v in theirs.state_dict().items()})
    return theirs, ours, inputs, targets


@pytest.mark.parametrize("options", [dict(lr=0.5, max_iter=4, history_size=3),
                                     dict(lr=1, max_iter=6, line_search_fn="strong_wolfe"),
                                     dict(lr=0.8, max_iter=12, history_size=5, line_search_fn="strong_wolfe"),
                                     dict(lr=10, max_iter=5, line_search_fn="strong_wolfe"),
                                     dict(lr=0.01, max_iter=5, line_search_fn="strong_wolfe")],
                         ids=["fixed step", "strong_wolfe", "strong_wolfe, long", "overshooting: zooms",
                              "short: extrapolates"])
def test_lbfgs_matches_pytorch(torch, options):
    theirs, ours, inputs, targets = _regression_pair(torch)
    e_inputs, e_targets = ember.from_dlpack(inputs), ember.from_dlpack(targets)
    t_opt, e_opt = torch.optim.LBFGS(theirs.parameters(), **options), ember.optim.LBFGS(ours.parameters(), **options)

    def t_closure():
        t_opt.zero_grad()
        loss = torch.nn.functional.mse_loss(theirs(inputs), targets)
        loss.backward()
        return loss

    def e_closure():
        e_opt.zero_grad()
        loss = F.mse_loss(ours(e_inputs), e_targets)
        loss.backward()
        return loss

    for step in range(3):
        t_loss, e_loss = t_opt.step(t_closure), e_opt.step(e_closure)
        assert e_loss.item() == pytest.approx(t_loss.item(), rel=1e-9), f"step {step}"
        t_state, e_state = next(iter(t_opt.state.values())), next(iter(e_opt.state.values()))
        assert (e_state["func_evals"], e_state["n_iter"]) == (t_state["func_evals"], t_state["n_iter"])
    # Near the minimum the loss is flat: the weights agree less closely than it.
    for e_param, t_param in zip(ours.parameters(), theirs.parameters()):
        assert_close(e_param, t_param.detach(), rtol=1e-4, atol=1e-6)


def test_lbfgs_errors_match_pytorch(torch):
    for lib in (ember, torch):
        a, b = lib.nn.Parameter(lib.zeros(1)), lib.nn.Parameter(lib.zeros(1))
        with pytest.raises(ValueError, match="doesn't support per-parameter options"):
            lib.optim.LBFGS([{"params": [a]}, {"params": [b]}])
        with pytest.raises(ValueError, match="Invalid learning rate"):
            lib.optim.LBFGS([a], lr=-1)
        optimizer = lib.optim.LBFGS([a], line_search_fn="backtracking")
        a.grad = lib.ones(1)
        with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
            optimizer.step(lambda: (a * a).sum())


def test_hyperparameter_errors_match_pytorch(torch):
    bad = [("Adagrad", dict(lr=-1)), ("Adagrad", dict(lr_decay=-1)), ("Adagrad", dict(initial_accumulator_value=-1)),
           ("Adagrad", dict(eps=-1)), ("Adadelta", dict(rho=1.5)), ("Adadelta", dict(weight_decay=-1)),
           ("Adamax", dict(betas=(1.0, 0.9))), ("Adamax", dict(betas=(0.9, -0.1))), ("NAdam", dict(momentum_decay=-1)),
           ("RAdam", dict(eps=-1))]
    for name, options in bad:
        errors = []
        for lib in (ember, torch):
            with pytest.raises(ValueError) as caught:
                getattr(lib.optim, name)([lib.nn.Parameter(lib.zeros(1))], **options)
            errors.append(str(caught.value))
        assert errors[0] == errors[1], (name, options)


ROUND_TRIP = [(name, options) for name, options in OPTIMIZERS] + [
    ("LBFGS", dict(lr=0.5, max_iter=3)), ("LBFGS", dict(max_iter=3, line_search_fn="strong_wolfe"))]


@pytest.mark.parametrize("name,options", ROUND_TRIP, ids=lambda v: str(v))
def test_every_optimizer_state_dict_round_trips_through_save_and_load(name, options):
    def train(model, optimizer, steps):
        inputs, targets = ember.linspace(-1, 1, 12).reshape(6, 2), ember.linspace(0, 1, 6).reshape(6, 1)

        def closure():
            optimizer.zero_grad()
            loss = F.mse_loss(model(inputs), targets)
            loss.backward()
            return loss

        for _ in range(steps):
            optimizer.step(closure)

    def fresh():
        ember.manual_seed(0)
        model = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))
        return model, getattr(ember.optim, name)(model.parameters(), **options)

    model, optimizer = fresh()
    train(model, optimizer, 3)
    buffer = io.BytesIO()
    ember.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, buffer)
    checkpoint = ember.load(io.BytesIO(buffer.getvalue()))
    resumed_model, resumed = fresh()
    resumed_model.load_state_dict(checkpoint["model"])
    resumed.load_state_dict(checkpoint["optimizer"])
    train(model, optimizer, 3)
    train(resumed_model, resumed, 3)
    assert [p.tolist() for p in resumed_model.parameters()] == [p.tolist() for p in model.parameters()]


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


def test_a_scaled_in_place_add_outside_autograd_is_one_update_with_the_two_ops_bits(torch):
    """Note [Scaled in-place adds]: p.data.add_(p.grad, alpha=-lr), the SGD
    step of hand-written training loops."""
    from ember.profiler import profile

    for dtype in (ember.float32, ember.float64, ember.bfloat16):
        ember.manual_seed(3)
        param, grad = ember.randn(300, 500).to(dtype), ember.randn(300, 500).to(dtype)
        two_ops = param.clone()
        two_ops += grad * -0.1
        with profile() as prof:
            param.add_(grad, alpha=-0.1)
        # bfloat16 runs sgd_update's decomposition: the mul and a subtraction.
        fused = ["sgd_update"] if dtype != ember.bfloat16 else ["expand", "mul", "sub"]
        assert [avg.key for avg in prof.key_averages()] == fused
        assert ember.equal(param, two_ops)
        before = param.clone()
        param.sub_(grad, alpha=0.25)
        assert ember.equal(param, before - grad * 0.25)
    # Where autograd records the add, it stays an add with its gradient.
    x = ember.randn(4, requires_grad=True)
    y = x * 1
    y.add_(ember.ones(4), alpha=3.0)
    assert y.grad_fn.name() == "AddBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [1.0] * 4


def implementation_choices_report(torch):
    nn = torch.nn

    def layer():
        linear = nn.Linear(2, 2)
        with torch.no_grad():
            linear.weight.copy_(torch.tensor([[0.5, -0.2], [0.1, 0.3]]))
            linear.bias.copy_(torch.tensor([0.1, -0.1]))
        return linear

    report = []
    for name in ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "ASGD",
                 "Rprop"]:
        choices = dict(foreach=False)
        if name in ("SGD", "Adam", "AdamW", "Adagrad"):
            choices["fused"] = None
        if name not in ("SGD", "Adagrad"):
            choices["capturable"] = False
        model = layer()
        optimizer = getattr(torch.optim, name)(model.parameters(), lr=0.1, **choices)
        for _ in range(2):
            optimizer.zero_grad()
            model(torch.tensor([[1.0, 2.0]])).pow(2).sum().backward()
            optimizer.step()
        keys = sorted(k for k in optimizer.state_dict()["param_groups"][0] if k != "params")
        report.append((name, keys, [round(v, 5) for v in model.weight.detach().flatten().tolist()]))
    model = layer()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.1, weight_decay=0.5, decoupled_weight_decay=True)
    model(torch.ones(1, 2)).sum().backward()
    optimizer.step()
    report.append([round(v, 6) for v in model.weight.detach().flatten().tolist()])
    return report


def test_every_optimizer_takes_pytorchs_implementation_choices(torch):
    # foreach, fused and capturable are accepted and kept in the groups as PyTorch keeps
    # them, with the same updates; Adam's decoupled_weight_decay is AdamW's rule.
    assert implementation_choices_report(ember) == implementation_choices_report(torch)
    with pytest.raises(NotImplementedError, match="differentiable=True"):
        ember.optim.SGD(ember.nn.Linear(1, 1).parameters(), lr=0.1, differentiable=True)
