"""ember.set_printoptions: repr follows precision, threshold, edgeitems,
linewidth, sci_mode and the profiles as PyTorch's does."""

import math

import pytest

import ember


@pytest.fixture(autouse=True)
def restore_defaults(torch):
    yield
    ember.set_printoptions(profile="default")
    torch.set_printoptions(profile="default")


def both(torch, values, **options):
    """(ember's repr, PyTorch's repr with ember's module name) under the same options."""
    ember.set_printoptions(**options)
    torch.set_printoptions(**options)
    return repr(ember.tensor(values)), repr(torch.tensor(values)).replace("torch.", "ember.")


@pytest.mark.parametrize("options", [
    {"precision": 2},
    {"precision": 6},
    {"threshold": 5, "edgeitems": 2},
    {"threshold": 5, "edgeitems": 1},
    {"sci_mode": True},
    {"sci_mode": False},
    {"linewidth": 30},
    {"profile": "short"},
])
def test_options_lay_out_values_as_pytorch(torch, options):
    for values in ([0.12345678, 1.5, -2.25, 3.0, 4.125, 5.5, 6.0], [[0.5, 1.25, 2.0], [3.0, 4.5, 5.75]]):
        actual, expected = both(torch, values, **options)
        assert actual == expected


def test_threshold_inf_and_full_profile_never_summarise(torch):
    values = [float(v) + 0.5 for v in range(1200)]
    assert "..." in both(torch, values)[0]
    ember.set_printoptions(profile="full")
    assert "..." not in repr(ember.tensor(values))
    assert ember.get_printoptions()["threshold"] == math.inf
    ember.set_printoptions(threshold=10, profile="default")
    assert ember.get_printoptions()["threshold"] == 10  # the profile applies first, then the options


def test_a_call_without_sci_mode_returns_to_automatic(torch):
    ember.set_printoptions(sci_mode=True)
    assert "e+00" in repr(ember.tensor([1.5]))
    ember.set_printoptions(precision=4)
    assert ember.get_printoptions()["sci_mode"] is None
    assert repr(ember.tensor([1.5])) == "tensor([1.5000])"


def test_printoptions_context_restores_the_previous_options():
    ember.set_printoptions(precision=3)
    with ember.printoptions(precision=1, threshold=4):
        assert repr(ember.tensor([0.25, 1.0, 2.0])) == "tensor([0.2, 1.0, 2.0])"
        assert ember.get_printoptions()["threshold"] == 4
    assert ember.get_printoptions()["precision"] == 3
    assert repr(ember.tensor([0.25])) == "tensor([0.250])"


def test_bad_options_are_refused_and_change_nothing():
    before = ember.get_printoptions()
    with pytest.raises(ValueError):
        ember.set_printoptions(profile="long")
    with pytest.raises(ValueError):
        ember.set_printoptions(precision=-1)
    with pytest.raises(TypeError):
        ember.set_printoptions(linewidth="wide")
    with pytest.raises(TypeError):
        ember.set_printoptions(sci_mode="yes")
    assert ember.get_printoptions() == before
