"""Comparison helpers for the Python tests."""

import numpy

import ember


def dtype_name(x):
    """'float32' for an ember tensor, a PyTorch tensor or a NumPy array alike."""
    return str(x.dtype).split(".")[-1]


def to_numpy(x):
    if hasattr(x, "detach"):
        return x.detach().cpu().numpy()
    return numpy.asarray(x)


def assert_close(actual, expected, rtol=1e-5, atol=1e-6, check_dtype=True):
    """Values, shape and (by default) dtype of an ember tensor against a NumPy array or PyTorch tensor."""
    actual_array, expected_array = to_numpy(actual), to_numpy(expected)
    assert actual_array.shape == expected_array.shape, (actual_array.shape, expected_array.shape)
    if check_dtype:
        assert dtype_name(actual) == dtype_name(expected)
    numpy.testing.assert_allclose(actual_array, expected_array, rtol=rtol, atol=atol)


_UPSTREAM = numpy.random.default_rng(0)


def check_with_gradients(torch, ours_fn, theirs_fn, arrays, grad=(True,), rtol=1e-6, atol=1e-7):
    """ours_fn on ember tensors and theirs_fn on PyTorch tensors of the same
    arrays give the same values, and the same gradients of a random weighted
    sum of their outputs for the floating arrays `grad` marks (by position;
    arrays past its end take none)."""
    grad = tuple(grad) + (False,) * (len(arrays) - len(grad))
    wants = [g and a.dtype.kind == "f" for a, g in zip(arrays, grad)]
    ours_inputs = [ember.tensor(a).requires_grad_(w) for a, w in zip(arrays, wants)]
    theirs_inputs = [torch.tensor(a, requires_grad=w) for a, w in zip(arrays, wants)]
    ours, theirs = ours_fn(*ours_inputs), theirs_fn(*theirs_inputs)
    assert_close(ours, theirs.detach(), rtol=rtol, atol=atol)
    weights = _UPSTREAM.standard_normal(tuple(theirs.shape))
    (ours * ember.tensor(weights)).sum().backward()
    (theirs * torch.tensor(weights)).sum().backward()
    for x, tx, w in zip(ours_inputs, theirs_inputs, wants):
        if w and tx.grad is not None:
            assert_close(x.grad, tx.grad, rtol=rtol, atol=atol)


def linear_with(library, weight, bias):
    """library.nn.Linear holding the given weight (out x in, nested lists) and bias."""
    layer = library.nn.Linear(len(weight[0]), len(weight))
    with library.no_grad():
        layer.weight.copy_(library.tensor(weight))
        layer.bias.copy_(library.tensor(bias))
    return layer


def value_error_messages(calls):
    """The ValueError message each call raises, with torch's module prefix
    read as ember's (for comparing both libraries' messages)."""
    import pytest

    messages = []
    for call in calls:
        with pytest.raises(ValueError) as caught:
            call()
        messages.append(str(caught.value).replace("torch.", "ember."))
    return messages
