"""nn.AdaptiveLogSoftmaxWithLoss against PyTorch's, from the same weights:
outputs, loss, gradients, log_prob, predict, a single row, and errors."""

import ember


def adaptive_softmax_report(torch):
    nn = torch.nn
    report = []
    torch.manual_seed(0)
    m = nn.AdaptiveLogSoftmaxWithLoss(8, 20, [4, 10], div_value=2.0, head_bias=True)
    with torch.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_((torch.arange(p.numel(), dtype=torch.float32).view_as(p) * 0.37 + i).sin() * 0.3)
    x = (torch.arange(48, dtype=torch.float32).view(6, 8) * 0.13).cos()
    x.requires_grad_(True)
    t = torch.tensor([0, 3, 5, 9, 12, 19])
    out, loss = m(x, t)
    loss.backward()
    report.append(([round(v, 5) for v in out.tolist()], round(loss.item(), 5)))
    report.append(([round(v, 5) for v in x.grad.flatten().tolist()[:8]],
                   [round(v, 5) for v in m.tail[1][1].weight.grad.flatten().tolist()[:5]]))
    report.append(([round(v, 4) for v in m.log_prob(x.detach()).exp().sum(1).tolist()], m.predict(x.detach()).tolist()))
    single, _ = m(x.detach()[2], torch.tensor(5))
    report.append(round(single.item(), 5))
    for bad in ((lambda: nn.AdaptiveLogSoftmaxWithLoss(8, 20, [10, 4])),
                (lambda: m(x.detach(), torch.tensor([0, 3, 5, 9, 12, 20])))):
        try:
            bad()
            report.append("no error")
        except (ValueError, RuntimeError) as error:
            report.append((type(error).__name__, str(error)[:80]))
    report.append(sorted(k for k in m.state_dict()))
    return report


def test_adaptive_softmax_matches_pytorch(torch):
    assert adaptive_softmax_report(ember) == adaptive_softmax_report(torch)
