"""ConstantLR, PolynomialLR, MultiplicativeLR and ChainedScheduler against
PyTorch 2.13: the rates of 12 steps, two parameter groups."""

import pytest

import ember

SCHEDULES = {
    "ConstantLR": lambda S, opt: S.ConstantLR(opt, factor=0.25, total_iters=4),
    "PolynomialLR": lambda S, opt: S.PolynomialLR(opt, total_iters=8, power=2.0),
    "MultiplicativeLR": lambda S, opt: S.MultiplicativeLR(opt, lambda epoch: 0.9 if epoch % 2 else 0.5),
    "ChainedScheduler": lambda S, opt: S.ChainedScheduler([S.ConstantLR(opt, factor=0.5, total_iters=3),
                                                           S.ExponentialLR(opt, gamma=0.8)]),
}


def _rates(library, make):
    params = [library.nn.Parameter(library.ones(2)), library.nn.Parameter(library.ones(3))]
    optimizer = library.optim.SGD([{"params": params[:1]}, {"params": params[1:], "lr": 0.5}], lr=0.1)
    scheduler = make(library.optim.lr_scheduler, optimizer)
    rates = [scheduler.get_last_lr()]
    for _ in range(12):
        optimizer.step()
        scheduler.step()
        rates.append(scheduler.get_last_lr())
    return rates


@pytest.mark.parametrize("name", SCHEDULES)
def test_rates_match_pytorch(name, torch):
    ours, theirs = _rates(ember, SCHEDULES[name]), _rates(torch, SCHEDULES[name])
    for step, (mine, reference) in enumerate(zip(ours, theirs)):
        assert mine == pytest.approx(reference, rel=1e-12), step


def test_bad_arguments_are_refused(torch):
    for library in (torch, ember):
        optimizer = library.optim.SGD([library.nn.Parameter(library.ones(1))], lr=0.1)
        with pytest.raises(ValueError):
            library.optim.lr_scheduler.ConstantLR(optimizer, factor=2.0)
        with pytest.raises(ValueError):
            library.optim.lr_scheduler.ChainedScheduler([])

