"""ember.optim.swa_utils against torch.optim.swa_utils: running and
exponential averages (of parameters, and of buffers with use_buffers),
SWALR's annealed rates, update_bn, and the errors."""

import importlib

import ember


def rounded(tensors, digits=5):
    return [round(float(t.detach().float().sum()), digits) for t in tensors]


def swa_report(torch):
    swa = importlib.import_module(torch.__name__ + ".optim.swa_utils")
    nn = torch.nn
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(torch.arange(p.numel(), dtype=torch.float32).view_as(p) * 0.01 - 0.05 + 0.01 * i)
    running = swa.AveragedModel(model)
    moving = swa.AveragedModel(model, multi_avg_fn=swa.get_ema_multi_avg_fn(0.9))
    with_buffers = swa.AveragedModel(model, avg_fn=swa.get_ema_avg_fn(0.8), use_buffers=True)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    schedule = swa.SWALR(optimizer, swa_lr=0.05, anneal_epochs=3, anneal_strategy="cos")
    inputs = [torch.linspace(-1, 1, 12).view(4, 3) * (k + 1) for k in range(3)]
    rates = []
    for step in range(5):
        optimizer.zero_grad()
        model(inputs[step % 3]).pow(2).mean().backward()
        optimizer.step()
        for averaged in (running, moving, with_buffers):
            averaged.update_parameters(model)
        schedule.step()
        rates.append(round(optimizer.param_groups[0]["lr"], 8))
    report = [rates, rounded(running.parameters()), int(running.n_averaged), rounded(moving.parameters()),
              rounded(with_buffers.module.buffers())]
    swa.update_bn([(x, 0) for x in inputs], running)
    report += [rounded(running.module.buffers(), 4), round(float(running(inputs[0]).detach().sum()), 4)]
    single = torch.optim.SGD(nn.Linear(1, 1).parameters(), lr=1.0)
    report.append(swa.SWALR(single, swa_lr=[0.1], anneal_epochs=0, anneal_strategy="linear").get_last_lr())
    for bad in (dict(anneal_strategy="exp"), dict(anneal_epochs=-1)):
        try:
            swa.SWALR(optimizer, 0.1, **bad)
        except ValueError as error:
            report.append(str(error))
    return report


def test_averages_schedules_and_batch_norm_statistics_match_pytorch(torch):
    assert swa_report(ember) == swa_report(torch)
