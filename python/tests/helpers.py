"""Comparison helpers for the Python tests."""

import numpy


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
