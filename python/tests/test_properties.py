"""Property tests (hypothesis) of Python ops against PyTorch: elementwise
binary ops with broadcasting, reductions and matmul over random shapes
(empty and 0-d included), layouts (contiguous, transposed and sliced
views), dtypes (mixed ones promote) and edge values (NaN, +-inf, -0.0,
subnormals, integer extremes). Where PyTorch raises, Ember must raise the
same exception type; where it answers, Ember must give the same dtype,
shape and values: bit for bit (signs of zeros and NaN positions included)
for ops that round once, within a tolerance for sums and products whose
order of additions may differ.

The examples are derandomised so that CI runs the same ones every time;
HYPOTHESIS_PROFILE=explore draws new ones (and more of them)."""

import os

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis", reason="the property tests need hypothesis (pip install hypothesis)")
torch = pytest.importorskip("torch", reason="the property tests compare against PyTorch (pip install torch)")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

import ember  # noqa: E402

settings.register_profile("ci", max_examples=60, deadline=None, derandomize=True, database=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("explore", max_examples=2000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")

DTYPES = ["float32", "float64", "int32", "int64"]
FLOAT_EDGES = [float("nan"), float("inf"), -float("inf"), -0.0, 0.0, 1e-45, -1e-45, 5e-324, 1.1754942e-38,
               3.4028235e38, -3.4028235e38, 1.0, -1.0]


def elements(dtype, bound=None):
    """Values of ``dtype``: any finite or special float (subnormals included),
    or any integer of the type with its extremes drawn often."""
    if dtype.startswith("float"):
        width = 32 if dtype == "float32" else 64
        if bound is not None:
            return st.floats(-bound, bound, width=width, allow_subnormal=True)
        edges = [np.array(v, dtype).item() for v in FLOAT_EDGES]
        return st.one_of(st.sampled_from(edges), st.floats(width=width, allow_subnormal=True))
    info = np.iinfo(dtype)
    if bound is not None:
        return st.integers(-int(bound), int(bound))
    return st.one_of(st.sampled_from([info.min, info.max, info.min + 1, info.max - 1, 0, -1, 1]),
                     st.integers(int(info.min), int(info.max)))


@st.composite
def arrays(draw, dtype, shape, bound=None):
    return draw(hnp.arrays(dtype, shape, elements=elements(dtype, bound)))


LAYOUTS = ["contiguous", "transposed", "sliced"]


def both(array, layout):
    """The same values as an Ember tensor and a PyTorch tensor, both laid out
    as ``layout`` says: contiguous, a transposed view of a contiguous tensor
    of the reversed shape, or every other element of a tensor twice as long
    in its last dimension."""
    if array.ndim == 0 or layout == "contiguous":
        base, view = np.ascontiguousarray(array), lambda t: t
    elif layout == "transposed":
        base = np.ascontiguousarray(array.transpose())
        order = tuple(reversed(range(array.ndim)))
        view = lambda t: t.permute(*order)  # noqa: E731
    else:
        base = np.repeat(array, 2, axis=-1)
        view = lambda t: t[..., ::2]  # noqa: E731
    return view(ember.from_numpy(base.copy())), view(torch.from_numpy(base.copy()))


def values(t):
    array = t.detach().numpy() if hasattr(t, "detach") else t.numpy()
    return np.asarray(array)


def assert_same(actual, expected, exact, rtol=0.0, atol=0.0, zero_signs=True):
    a, e = values(actual), values(expected)
    assert str(actual.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    assert a.shape == e.shape, (a.shape, e.shape)
    if a.dtype.kind != "f":
        np.testing.assert_array_equal(a, e)
        return
    np.testing.assert_array_equal(np.isnan(a), np.isnan(e), err_msg="NaN positions")
    if exact:
        np.testing.assert_array_equal(a, e)
        if not zero_signs:
            return
        both_zero = (a == 0) & (e == 0)
        np.testing.assert_array_equal(np.signbit(a[both_zero]), np.signbit(e[both_zero]), err_msg="signs of zeros")
    else:
        np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, equal_nan=True)


def compare(ember_call, torch_call, **tolerance):
    """Ember raises what PyTorch raises, or answers what it answers."""
    try:
        expected = torch_call()
    except Exception as error:  # the error path: the same exception type
        with pytest.raises(type(error)):
            ember_call()
        return
    assert_same(ember_call(), expected, **tolerance)


BINARY = {"add": (ember.add, torch.add, True), "sub": (ember.sub, torch.sub, True),
          "mul": (ember.mul, torch.mul, True), "div": (ember.div, torch.div, True),
          "maximum": (ember.maximum, torch.maximum, True), "minimum": (ember.minimum, torch.minimum, True)}


@st.composite
def binary_case(draw):
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, min_side=0, max_side=4))
    dtypes = draw(st.sampled_from(DTYPES)), draw(st.sampled_from(DTYPES))
    inputs = [draw(arrays(dtype, shape)) for dtype, shape in zip(dtypes, shapes.input_shapes)]
    layouts = draw(st.sampled_from(LAYOUTS)), draw(st.sampled_from(LAYOUTS))
    return draw(st.sampled_from(sorted(BINARY))), inputs, layouts


@settings(settings.get_profile(PROFILE))
@given(binary_case())
def test_binary_ops_with_broadcasting_match_pytorch(case):
    name, (x, y), (x_layout, y_layout) = case
    ember_op, torch_op, exact = BINARY[name]
    (ex, tx), (ey, ty) = both(x, x_layout), both(y, y_layout)
    with np.errstate(all="ignore"):
        compare(lambda: ember_op(ex, ey), lambda: torch_op(tx, ty), exact=exact)


@st.composite
def unbroadcastable_shapes(draw):
    a = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=2, max_side=4))
    b = list(a)
    axis = draw(st.integers(0, len(a) - 1))
    b[axis] = a[axis] + draw(st.integers(1, 3))
    return tuple(a), tuple(b)


@settings(settings.get_profile(PROFILE))
@given(unbroadcastable_shapes(), st.sampled_from(sorted(BINARY)))
def test_shapes_that_do_not_broadcast_raise_what_pytorch_raises(shapes, name):
    ember_op, torch_op, _ = BINARY[name]
    a, b = (np.ones(s, "float32") for s in shapes)
    with pytest.raises(RuntimeError) as torch_error:
        torch_op(torch.from_numpy(a), torch.from_numpy(b))
    with pytest.raises(torch_error.type, match="broadcast"):
        ember_op(ember.from_numpy(a), ember.from_numpy(b))


# name -> (tolerance, floating dtypes only). Which of -0.0 and 0.0 amax and
# amin return when both are there is unspecified (PyTorch's answer depends
# on its vector width), so only their values are compared.
REDUCTIONS = {"sum": ({"rtol": 1e-5, "atol": 1e-5}, False), "mean": ({"rtol": 1e-5, "atol": 1e-5}, True),
              "amax": ({"zero_signs": False}, False), "amin": ({"zero_signs": False}, False),
              "prod": ({"rtol": 1e-5, "atol": 0.0}, False)}


@st.composite
def reduction_case(draw):
    name = draw(st.sampled_from(sorted(REDUCTIONS)))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5))
    floating_only = REDUCTIONS[name][1]
    dtype = draw(st.sampled_from(["float32", "float64"] if floating_only else DTYPES))
    # Sums and products of bounded values: no overflow that the order of the
    # additions could decide; the specials still come in through the edges.
    bound = None if name in ("amax", "amin") else (4 if name == "prod" else 1e6)
    array = draw(arrays(dtype, shape, bound))
    if dtype.startswith("float") and array.size and bound is not None and draw(st.booleans()):
        array = array.copy()
        array.flat[draw(st.integers(0, array.size - 1))] = draw(st.sampled_from([np.nan, np.inf, -np.inf, -0.0]))
    ndim = len(shape)
    dim = draw(st.one_of(st.none(), st.integers(-ndim - 1, ndim))) if name != "prod" or ndim else None
    if name == "prod" and dim is None:
        dim = draw(st.integers(-max(ndim, 1), max(ndim, 1) - 1))
    keepdim = draw(st.booleans())
    return name, array, draw(st.sampled_from(LAYOUTS)), dim, keepdim


@settings(settings.get_profile(PROFILE))
@given(reduction_case())
def test_reductions_match_pytorch(case):
    name, array, layout, dim, keepdim = case
    tolerance, _ = REDUCTIONS[name]
    e, t = both(array, layout)
    kwargs = {} if dim is None else {"dim": dim, "keepdim": keepdim}
    exact = "rtol" not in tolerance
    with np.errstate(all="ignore"):
        compare(lambda: getattr(ember, name)(e, **kwargs), lambda: getattr(torch, name)(t, **kwargs), exact=exact,
                **tolerance)


@st.composite
def matmul_case(draw):
    n, k, m = (draw(st.integers(0, 5)) for _ in range(3))
    kind = draw(st.sampled_from(["matrix", "batched", "vector_left", "vector_right", "dot", "mismatch"]))
    batch = (draw(st.integers(1, 3)),) if kind == "batched" else ()
    left = {"vector_left": (k,), "dot": (k,)}.get(kind, batch + (n, k))
    right = {"vector_right": (k,), "dot": (k,)}.get(kind, (k, m))
    if kind == "mismatch":
        right = (k + draw(st.integers(1, 3)), m)
    dtype = draw(st.sampled_from(["float32", "float64"]))
    x, y = draw(arrays(dtype, left, bound=100)), draw(arrays(dtype, right, bound=100))
    return x, y, draw(st.sampled_from(LAYOUTS)), draw(st.sampled_from(LAYOUTS))


@settings(settings.get_profile(PROFILE))
@given(matmul_case())
def test_matmul_matches_pytorch(case):
    x, y, x_layout, y_layout = case
    (ex, tx), (ey, ty) = both(x, x_layout), both(y, y_layout)
    rtol = 1e-4 if x.dtype == np.float32 else 1e-10
    compare(lambda: ember.matmul(ex, ey), lambda: torch.matmul(tx, ty), exact=False, rtol=rtol, atol=rtol * 1e3)
