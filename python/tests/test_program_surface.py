"""What public PyTorch programs rely on beyond single ops: registration
order of re-assigned submodules and parameters (optimizer state follows
it), randint's keyword size, and sequence indices such as ``range``."""

import pytest

import ember


def _order(lib):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(1, 1)
            self.scale = nn.Parameter(lib.ones(1))
            self.b = nn.Linear(1, 1)

    net = Net()
    net.a = nn.Linear(1, 1)
    net.scale = nn.Parameter(lib.zeros(1))
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    seq[0] = nn.Linear(2, 3)
    return list(net.state_dict()), [name for name, _ in net.named_parameters()], list(seq.state_dict())


def test_reassignment_keeps_registration_order(torch):
    assert _order(ember) == _order(torch)


def test_reassigned_parameter_keeps_its_optimizer_slot():
    net = ember.nn.Sequential(ember.nn.Linear(2, 2), ember.nn.Linear(2, 1))
    first = net[0].weight
    net[0].weight = ember.nn.Parameter(ember.zeros(2, 2))
    assert next(net.parameters()) is net[0].weight and net[0].weight is not first


def test_randint_forms(torch):
    for lib in (ember, torch):
        assert tuple(lib.randint(10, size=(3,)).shape) == (3,)
        assert tuple(lib.randint(10, (2, 2)).shape) == (2, 2)
        assert tuple(lib.randint(3, 10, (4,)).shape) == (4,)
        values = lib.randint(3, 5, size=(200,))
        assert values.min().item() >= 3 and values.max().item() <= 4


def test_sequence_indices(torch):
    def run(lib):
        x = lib.arange(12.0).reshape(4, 3)
        y = lib.tensor([0, 2, 1, 1])
        picked = x[range(4), y].tolist()
        rows = x[(0, 2), ].tolist()
        x[range(4), y] = -1.0
        return picked, rows, x.tolist(), list(x[range(1, 3)].shape)

    assert run(ember) == run(torch)


def test_picking_log_probabilities_by_range_is_differentiable(torch):
    def run(lib):
        logits = lib.tensor([[0.5, 1.0], [2.0, -1.0], [0.0, 0.25]], requires_grad=True)
        target = lib.tensor([1, 0, 1])
        loss = -logits.log_softmax(1)[range(3), target].mean()
        loss.backward()
        return [round(v, 6) for row in logits.grad.tolist() for v in row]

    assert run(ember) == pytest.approx(run(torch))
