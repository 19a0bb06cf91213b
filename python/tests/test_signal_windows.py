"""The signal windows against PyTorch 2.13: every length from 0 to 9,
periodic and symmetric, their parameters, dtypes and errors."""

import pytest

import ember

from helpers import assert_close

WINDOWS = {
    "hann_window": {},
    "hamming_window": {"alpha": 0.5, "beta": 0.4},
    "blackman_window": {},
    "bartlett_window": {},
    "kaiser_window": {"beta": 5.0},
}


@pytest.mark.parametrize("name", WINDOWS)
def test_windows_match_pytorch(name, torch):
    for length in range(10):
        for periodic in (True, False):
            assert_close(getattr(ember, name)(length, periodic), getattr(torch, name)(length, periodic))
    assert_close(getattr(ember, name)(7, False, **WINDOWS[name], dtype=ember.float64),
                 getattr(torch, name)(7, False, **WINDOWS[name], dtype=torch.float64), rtol=1e-12, atol=1e-12)
    assert getattr(ember, name)(4, requires_grad=True).requires_grad


@pytest.mark.parametrize("name", WINDOWS)
def test_bad_windows_are_refused(name, torch):
    for library in (torch, ember):
        with pytest.raises(RuntimeError, match="non-negative window_length"):
            getattr(library, name)(-1)
        with pytest.raises(RuntimeError, match="floating point"):
            getattr(library, name)(4, dtype=library.int64)
