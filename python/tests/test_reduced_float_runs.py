"""Elementwise kernels over runs of every length and layout: float16
arithmetic and conversions through the CPU's conversion instructions
against torch's bits, and x ** 0.5 as a square root with C's pow at its
special values (ops.md: floating pow is C's pow)."""

import math
import struct

import numpy
import pytest

import ember

LENGTHS = [1, 7, 8, 9, 255, 256, 257, 70001]
LAYOUTS = ["contiguous", "strided", "offset"]


def laid_out(lib, array, dtype, layout):
    """A tensor of `array`'s values in `layout` (a view where not contiguous)."""
    t = lib.tensor(array).to(getattr(lib, dtype))
    if layout == "strided":
        return lib.stack([t, t]).t()[:, 0]
    if layout == "offset":  # starting one element into its storage
        return lib.cat([t[:1], t])[1:]
    return t


def values(n, seed=0):
    rng = numpy.random.default_rng(seed)
    v = (rng.standard_normal(n) * 100).astype("float32")
    specials = numpy.array([0.0, -0.0, 65504.0, 65520.0, -70000.0, 6e-8, 3e-8, 1e-30, numpy.inf, -numpy.inf,
                            numpy.nan], "float32")
    v[: min(n, specials.size)] = specials[: min(n, specials.size)]
    return v


def bits(t):
    """The float16 bit patterns of a float16 tensor of either library, NaNs as one pattern."""
    widened = numpy.array(t.float().tolist(), "float32")
    halves = widened.astype("float16").view("uint16").copy()
    halves[numpy.isnan(widened)] = 0x7E00
    return halves


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("n", LENGTHS)
def test_float16_arithmetic_and_conversions_match_torch(torch, n, layout):
    a, b = values(n, 1), values(n, 2)
    ours = [laid_out(ember, v, "float16", layout) for v in (a, b)]
    theirs = [laid_out(torch, v, "float16", layout) for v in (a, b)]
    for op in (lambda x, y: x + y, lambda x, y: x * y, lambda x, y: x * 0.5, lambda x, y: 2.0 - x,
               lambda x, y: x.float(), lambda x, y: (x.float() * 3).half()):
        assert (bits(op(*ours)) == bits(op(*theirs))).all()


@pytest.mark.parametrize("n", LENGTHS)
def test_float32_to_float16_rounds_to_nearest_even_as_torch(torch, n):
    # Every value half-way between two float16s, and one float32 ulp to either side.
    rng = numpy.random.default_rng(n)
    halves = rng.integers(0, 0x7BFF, n, dtype="uint16").view("float16").astype("float32")
    upper = (halves.view("uint32") + (1 << 13)).view("float32")
    middle = ((halves.astype("float64") + upper) / 2).astype("float32")
    for v in (middle, numpy.nextafter(middle, numpy.float32(0)), numpy.nextafter(middle, numpy.float32(numpy.inf))):
        for layout in LAYOUTS:
            assert (bits(laid_out(ember, v, "float16", layout)) == bits(laid_out(torch, v, "float16", layout))).all()


def c_pow_half(x):
    """C's pow(x, 0.5) correctly rounded: the square root, but +0 at -0 and +inf at -inf."""
    if x == -math.inf:
        return math.inf
    if math.isnan(x) or x < 0:
        return math.nan
    return math.sqrt(x) + 0.0


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_power_one_half_is_the_correctly_rounded_square_root_with_c_pow_special_values(dtype):
    special = [0.0, -0.0, math.inf, -math.inf, math.nan, -1.0, -1e-30, 1e-30, 2.0]
    v = numpy.concatenate([special, numpy.random.default_rng(3).uniform(0, 1e6, 5000)])
    x = ember.tensor(v).to(getattr(ember, dtype))
    stored = x.double().tolist()
    got = (x ** 0.5).double().tolist()
    for value, result in zip(stored, got):
        expected = c_pow_half(value)
        if dtype in ("float32", "float16", "bfloat16"):
            # The float32 square root of the stored value, rounded to the dtype.
            expected = ember.tensor([expected], dtype=ember.float64).to(ember.float32).to(getattr(ember, dtype))
            expected = expected.double().item()
        if math.isnan(expected):
            assert math.isnan(result), value
        else:
            assert struct.pack("<d", result) == struct.pack("<d", expected), (value, result, expected)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("n", LENGTHS)
def test_float32_to_bfloat16_and_back_match_torch(torch, n, layout):
    # Random values, those half-way between two bfloat16s and the specials.
    v = values(n, 4)
    ties = (v.view("uint32") & 0xFFFF0000) | 0x8000
    v[n // 2:] = ties[n // 2:].view("float32")
    ours, theirs = laid_out(ember, v, "bfloat16", layout), laid_out(torch, v, "bfloat16", layout)
    got, want = numpy.array(ours.float().tolist(), "float32"), theirs.float().numpy()
    assert ((got.view("uint32") == want.view("uint32")) | (numpy.isnan(got) & numpy.isnan(want))).all()
