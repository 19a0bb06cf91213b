"""Signal windows (hann, hamming, blackman, bartlett, kaiser) with PyTorch's
definitions: computed in float64 from their closed forms, then cast; a
periodic window is the symmetric one of one more point without its last."""

import math

from . import _C
from ._factories import _device, _finish, ones, zeros
from ._special_functions import i0


def _window(name, window_length, periodic, dtype, device, requires_grad, shape):
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    dtype = dtype or _C.get_default_dtype()
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got {dtype}")
    if window_length <= 1:
        values = (ones if window_length else zeros)(window_length, dtype=dtype, device=device)
        return _finish(values, requires_grad)
    points = window_length + 1 if periodic else window_length
    k = _C._arange(0, points, 1, _C.float64, _device(device))
    values = shape(k, points - 1)
    return _finish((values[:window_length] if periodic else values).to(dtype), requires_grad)


def _cosine_sum(*coefficients):
    """sum_j (-1)^j a_j cos(2 pi j k / span)."""
    def shape(k, span):
        total = k * 0.0 + coefficients[0]
        for j, a in enumerate(coefficients[1:], start=1):
            total = total + (-1) ** j * a * _C.cos(k * (2 * math.pi * j / span))
        return total
    return shape


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad, _cosine_sum(0.5, 0.5))


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None, device=None,
                   requires_grad=False):
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad, _cosine_sum(alpha, beta))


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad,
                   _cosine_sum(0.42, 0.5, 0.08))


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad,
                   lambda k, span: 1.0 - (k * (2.0 / span) - 1.0).abs())


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None,
                  requires_grad=False):
    def shape(k, span):
        half = span / 2.0
        return i0((1.0 - ((k - half) / half) ** 2).clamp(min=0).sqrt() * beta) / i0(k * 0.0 + beta)
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad, shape)
