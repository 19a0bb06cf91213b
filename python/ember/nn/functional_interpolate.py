"""F.interpolate: nearest, nearest-exact, (bi/tri)linear and bicubic
resampling as PyTorch computes them, one spatial dim at a time (each mode is
separable): nearest reads index_select at floor(dst * scale), nearest-exact
at floor((dst + 0.5) * scale), linear blends the two neighbours of each
source coordinate and bicubic the four around it, so gradients and every
device come from index_select, mul and add. `area` is adaptive average
pooling to the output size, and antialias=True resamples by a product with
each dim's filter taps (Note [Antialiased resampling])."""

import math
import numbers

from .. import _C, _factories
from .._C import _nn
from .functional_pooling import adaptive_avg_pool3d

_LINEAR = {"linear": 1, "bilinear": 2, "trilinear": 3}


def _output_sizes(input, size, scale_factor, spatial):  # noqa: A002  (PyTorch's names)
    if (size is None) == (scale_factor is None):
        raise ValueError("either size or scale_factor should be defined" if size is None else
                         "only one of size or scale_factor should be defined")
    if size is not None:
        sizes = [int(size)] * spatial if isinstance(size, numbers.Integral) else [int(s) for s in size]
        if len(sizes) != spatial:
            raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input "
                             f"with spatial dimensions of {list(input.shape[2:])} and output size of {sizes}. "
                             f"Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in "
                             f"(o1, o2, ...,oK) format.")
        return sizes, [input.shape[2 + d] / sizes[d] if sizes[d] else 0.0 for d in range(spatial)]
    factors = [float(scale_factor)] * spatial if isinstance(scale_factor, numbers.Number) else \
        [float(f) for f in scale_factor]
    if len(factors) != spatial:
        raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got input "
                         f"with spatial dimensions of {list(input.shape[2:])} and scale_factor of shape {factors}. "
                         f"Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in "
                         f"(s1, s2, ...,sK) format.")
    return [math.floor(input.shape[2 + d] * factors[d]) for d in range(spatial)], [1 / f for f in factors]


def _index(values, like):
    return _factories.tensor(values, dtype=_C.int64, device=like.device)


def _nearest(x, dim, out_size, scale):
    size = x.shape[dim]
    return x.index_select(dim, _index([min(math.floor(j * scale), size - 1) for j in range(out_size)], x))


def _linear(x, dim, out_size, scale, align_corners):
    size = x.shape[dim]
    sources = []
    for j in range(out_size):
        if align_corners:
            source = j * (size - 1) / (out_size - 1) if out_size > 1 else 0.0
        else:
            source = max((j + 0.5) * scale - 0.5, 0.0)
        sources.append(source)
    lower = [min(math.floor(s), size - 1) for s in sources]
    upper = [min(i + 1, size - 1) for i in lower]
    shape = [1] * x.dim()
    shape[dim] = out_size
    weight = _factories.tensor([s - i for s, i in zip(sources, lower)], dtype=x.dtype, device=x.device).reshape(shape)
    return x.index_select(dim, _index(lower, x)) * (1 - weight) + x.index_select(dim, _index(upper, x)) * weight


# Keys's cubic convolution with a = -0.75, PyTorch's choice for bicubic:
# the weights of the neighbours at distances t + 1, t, 1 - t and 2 - t.
_CUBIC_A = -0.75


def _cubic_weights(t):
    a = _CUBIC_A

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return far(t + 1), near(t), near(1 - t), far(2 - t)


def _cubic(x, dim, out_size, scale, align_corners):
    size = x.shape[dim]
    # Unlike linear's, bicubic's source coordinate is not clamped at 0; the
    # neighbours' indices are clamped to the edge instead.
    if align_corners:
        step = (size - 1) / (out_size - 1) if out_size > 1 else 0.0
        sources = [j * step for j in range(out_size)]
    else:
        sources = [(j + 0.5) * scale - 0.5 for j in range(out_size)]
    floors = [math.floor(s) for s in sources]
    weights = list(zip(*[_cubic_weights(s - f) for s, f in zip(sources, floors)]))
    shape = [1] * x.dim()
    shape[dim] = out_size
    result = None
    for k in range(4):
        indices = _index([min(max(f - 1 + k, 0), size - 1) for f in floors], x)
        weight = _factories.tensor(weights[k], dtype=x.dtype, device=x.device).reshape(shape)
        term = x.index_select(dim, indices) * weight
        result = term if result is None else result + term
    return result


# Note [Antialiased resampling]: with antialias=True (bilinear and bicubic,
# 4-d input), each output pixel averages the input pixels its filter covers
# once the filter is widened by the downsampling factor, as PIL and PyTorch
# resample: for output i, center = scale * (i + 0.5), the filter (the
# triangle, or the cubic with a = -0.5) spans interp_size / 2 * scale input
# pixels each side when scale > 1 (the plain filter when upsampling), the
# taps are read at (j - center + 0.5) / scale, cut at the edges and
# normalized to sum to 1. scale is in / out, 1 / scale_factor, or
# (in - 1) / (out - 1) with align_corners. The taps of one dim form an
# (out, in) matrix, and the dim is resampled by a product with it.
def _antialias_filter(distance, cubic):
    x = abs(distance)
    if not cubic:
        return max(0.0, 1.0 - x)
    a = -0.5
    if x < 1:
        return ((a + 2) * x - (a + 3)) * x * x + 1
    return (((x - 5) * x + 8) * x - 4) * a if x < 2 else 0.0


def _antialiased(x, dim, out_size, scale, cubic):
    size = x.shape[dim]
    support = (2.0 if cubic else 1.0) * max(scale, 1.0)
    stretch = 1.0 / scale if scale >= 1.0 else 1.0
    rows = []
    for i in range(out_size):
        center = scale * (i + 0.5)
        first = max(int(center - support + 0.5), 0)
        last = min(int(center + support + 0.5), size)
        taps = [_antialias_filter((j - center + 0.5) * stretch, cubic) for j in range(first, last)]
        total = sum(taps)
        row = [0.0] * size
        for j, tap in zip(range(first, last), taps):
            row[j] = tap / total if total else 0.0
        rows.append(row)
    weights = _factories.tensor(rows, dtype=x.dtype, device=x.device)
    return (x.movedim(dim, -1) @ weights.t()).movedim(-1, dim)


def _nearest_exact(x, dim, out_size, scale):
    size = x.shape[dim]
    return x.index_select(dim, _index([min(math.floor((j + 0.5) * scale), size - 1) for j in range(out_size)], x))


def _area(input, sizes):  # noqa: A002
    if len(sizes) == 1:
        return _nn.adaptive_avg_pool2d(input.unsqueeze(-2), [1, sizes[0]]).squeeze(-2)
    if len(sizes) == 2:
        return _nn.adaptive_avg_pool2d(input, sizes)
    return adaptive_avg_pool3d(input, sizes)


_MODES = "nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact"


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,  # noqa: A002
                recompute_scale_factor=None, antialias=False):
    if mode in ("nearest", "area", "nearest-exact") and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear | "
                         "bicubic | trilinear")
    spatial = input.dim() - 2
    unsupported = NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                                      f"{input.dim()}D) for the modes: {_MODES} (got {mode})")
    if mode not in ("nearest", "nearest-exact", "area", "bicubic") + tuple(_LINEAR) or not 1 <= spatial <= 3:
        raise unsupported
    if mode in _LINEAR and _LINEAR[mode] != spatial:
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {_LINEAR[mode] + 2}D input")
    if mode == "bicubic" and spatial != 2:
        raise unsupported
    if antialias and (mode not in ("bilinear", "bicubic") or input.dim() != 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a "
                         "4-D tensor as input")
    sizes, scales = _output_sizes(input, size, scale_factor, spatial)
    if mode == "area":
        return _area(input, sizes)
    if recompute_scale_factor:
        scales = [input.shape[2 + d] / sizes[d] if sizes[d] else 0.0 for d in range(spatial)]
    result = input
    for d in range(spatial):
        if antialias:
            scale = (input.shape[2 + d] - 1) / (sizes[d] - 1) if align_corners and sizes[d] > 1 else \
                0.0 if align_corners else scales[d]
            result = _antialiased(result, 2 + d, sizes[d], scale, mode == "bicubic")
        elif mode == "nearest":
            result = _nearest(result, 2 + d, sizes[d], scales[d])
        elif mode == "nearest-exact":
            result = _nearest_exact(result, 2 + d, sizes[d], scales[d])
        elif mode == "bicubic":
            result = _cubic(result, 2 + d, sizes[d], scales[d], bool(align_corners))
        else:
            result = _linear(result, 2 + d, sizes[d], scales[d], bool(align_corners))
    return result
