"""ember.nn.utils.prune against torch.nn.utils.prune: masks, the _orig
parameter and _mask buffer, masks combined over repeated pruning, gradients
through the mask, remove, global and structured pruning, and the errors."""

import importlib

import ember


def pruning_report(torch):
    prune = importlib.import_module(torch.__name__ + ".nn.utils.prune")
    nn = torch.nn

    def fresh():
        torch.manual_seed(0)
        layer = nn.Linear(4, 3)
        with torch.no_grad():
            layer.weight.copy_(torch.tensor([[0.5, -2.0, 0.1, 3.0], [1.5, -0.2, 0.7, -1.1], [0.05, 2.5, -0.9, 0.3]]))
            layer.bias.copy_(torch.tensor([0.2, -0.4, 1.0]))
        return layer

    report = []
    layer = fresh()
    prune.l1_unstructured(layer, "weight", amount=0.25)
    report.append((sorted(n for n, _ in layer.named_parameters()), sorted(n for n, _ in layer.named_buffers()),
                   layer.weight_mask.tolist(), layer.weight.tolist(), prune.is_pruned(layer)))
    prune.l1_unstructured(layer, "weight", amount=2)  # two more among the entries still kept
    report.append((layer.weight_mask.tolist(), type(list(layer._forward_pre_hooks.values())[0]).__name__))
    layer(torch.ones(1, 4)).sum().backward()
    report.append(layer.weight_orig.grad.tolist())
    prune.remove(layer, "weight")
    report.append((sorted(n for n, _ in layer.named_parameters()), layer.weight.tolist(), prune.is_pruned(layer),
                   sorted(layer.state_dict())))
    layer = fresh()
    prune.ln_structured(layer, "weight", amount=1, n=2, dim=0)
    report.append(layer.weight_mask.tolist())
    prune.ln_structured(layer, "weight", amount=0.5, n=1, dim=1)
    report.append(layer.weight_mask.tolist())
    layer = fresh()
    prune.custom_from_mask(layer, "bias", torch.tensor([1, 0, 1]))
    report.append(layer.bias.tolist())
    first, second = fresh(), fresh()
    with torch.no_grad():
        second.weight.mul_(0.1)
    prune.global_unstructured([(first, "weight"), (second, "weight")], pruning_method=prune.L1Unstructured,
                              amount=10)
    report.append((first.weight_mask.sum().item(), second.weight_mask.sum().item()))
    layer = fresh()
    prune.random_unstructured(layer, "weight", amount=5)
    report.append(layer.weight_mask.sum().item())
    layer = fresh()
    prune.random_structured(layer, "weight", amount=1, dim=0)
    report.append(sorted(layer.weight_mask.sum(1).tolist()))
    layer = fresh()
    prune.identity(layer, "weight")
    report.append(layer.weight_mask.sum().item())
    for bad in (lambda: prune.l1_unstructured(fresh(), "weight", amount=1.5),
                lambda: prune.l1_unstructured(fresh(), "weight", amount=20),
                lambda: prune.remove(fresh(), "weight"),
                lambda: prune.l1_unstructured(fresh(), "weight", amount="x")):
        try:
            bad()
            report.append("no error")
        except (ValueError, TypeError) as error:
            report.append((type(error).__name__, str(error)[:70].replace("torch.", "ember.")))
    return report


def test_pruning_matches_pytorch(torch):
    assert pruning_report(ember) == pruning_report(torch)


def test_a_pruned_layer_trains_only_its_kept_entries():
    prune = ember.nn.utils.prune
    layer = ember.nn.Linear(6, 4)
    prune.l1_unstructured(layer, "weight", amount=0.5)
    optimizer = ember.optim.SGD(layer.parameters(), lr=0.1)
    for _ in range(3):
        optimizer.zero_grad()
        layer(ember.randn(8, 6)).pow(2).sum().backward()
        optimizer.step()
    assert int((layer(ember.eye(6)).detach() - layer.bias.detach() != 0).sum()) <= 12
    assert bool((layer.weight[layer.weight_mask == 0] == 0).all())
