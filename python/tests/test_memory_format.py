"""Memory formats against PyTorch: channels_last and channels_last_3d
strides through to, contiguous, clone, empty and the *_like factories,
is_contiguous(memory_format=), Module.to(memory_format=), and the errors."""

import re

import ember


def layout_report(torch):
    nn = torch.nn
    report = []
    x = torch.arange(24.0).view(1, 2, 3, 4)
    cl = x.to(memory_format=torch.channels_last)
    report.append((cl.stride(), cl.is_contiguous(), cl.is_contiguous(memory_format=torch.channels_last),
                   cl.tolist() == x.tolist()))
    report.append((x.contiguous(memory_format=torch.channels_last).stride(), cl.contiguous().stride(),
                   cl.clone().stride(), cl.clone(memory_format=torch.contiguous_format).stride(),
                   x.clone(memory_format=torch.channels_last).stride()))
    report.append((torch.empty_like(cl).stride(), torch.zeros_like(cl).stride(),
                   torch.zeros_like(cl, memory_format=torch.contiguous_format).stride(),
                   torch.ones_like(x, memory_format=torch.channels_last).stride(), torch.full_like(cl, 2.0).stride(),
                   torch.randn_like(cl).stride(), torch.randint_like(cl, 5).stride()))
    report.append(torch.empty(2, 3, 4, 5, memory_format=torch.channels_last).stride())
    report.append(torch.empty(1, 2, 2, 2, 2).to(memory_format=torch.channels_last_3d).stride())
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4)).to(memory_format=torch.channels_last)
    report.append([p.stride() for p in model.parameters()])
    report.append(tuple(model(torch.randn(2, 3, 8, 8).to(memory_format=torch.channels_last)).shape))
    report.append([p.stride() for p in model.to(memory_format=torch.contiguous_format).parameters()])
    report.append((torch.ones(2, 1, 3, 1).is_contiguous(memory_format=torch.channels_last),
                   torch.ones(2, 3).is_contiguous(memory_format=torch.channels_last)))
    for bad in (lambda: torch.ones(2, 3).contiguous(memory_format=torch.channels_last),
                lambda: torch.ones(2, 3, 4, 5).to(memory_format=torch.channels_last_3d),
                lambda: nn.Conv2d(2, 2, 1).to(memory_format=torch.channels_last_3d),
                lambda: nn.Conv3d(2, 2, 1).to(memory_format=torch.channels_last)):
        try:
            bad()
            report.append("no error")
        except RuntimeError as error:
            report.append(re.search(r"required rank \d tensor to use \w+ format", str(error)).group(0))
    weight = torch.ones(2, 2, requires_grad=True)
    report.append((torch.zeros_like(weight, requires_grad=True).is_leaf, repr(torch.channels_last).split(".")[-1]))
    return report


def test_layouts_match_pytorch(torch):
    assert layout_report(ember) == layout_report(torch)


def test_a_channels_last_input_gives_the_same_numbers():
    ember.manual_seed(0)
    conv = ember.nn.Conv2d(3, 5, 3, padding=1)
    x = ember.randn(2, 3, 6, 7)
    expected = conv(x)
    found = conv.to(memory_format=ember.channels_last)(x.to(memory_format=ember.channels_last))
    assert float((found - expected).abs().max()) < 1e-5
