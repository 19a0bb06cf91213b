"""F.interpolate: nearest and (bi/tri)linear resampling as PyTorch computes
them, one spatial dim at a time (both modes are separable): nearest reads
index_select at floor(dst * scale), linear blends the two neighbours of
each source coordinate, so gradients and every device come from
index_select, mul and add."""

import math
import numbers

from .. import _C, _factories

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


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,  # noqa: A002
                recompute_scale_factor=None, antialias=False):
    if mode in ("nearest",) and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear | "
                         "bicubic | trilinear")
    if mode not in ("nearest",) + tuple(_LINEAR):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) "
                                  f"for the modes: nearest | linear | bilinear | trilinear (got {mode})")
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not implemented")
    spatial = input.dim() - 2
    if spatial < 1 or spatial > 3 or (mode in _LINEAR and _LINEAR[mode] != spatial):
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs "
                                  f"{_LINEAR.get(mode, spatial) + 2}D input" if mode in _LINEAR else
                                  f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) "
                                  f"for the modes: nearest | linear | bilinear | trilinear (got {mode})")
    sizes, scales = _output_sizes(input, size, scale_factor, spatial)
    if recompute_scale_factor:
        scales = [input.shape[2 + d] / sizes[d] if sizes[d] else 0.0 for d in range(spatial)]
    result = input
    for d in range(spatial):
        if mode == "nearest":
            result = _nearest(result, 2 + d, sizes[d], scales[d])
        else:
            result = _linear(result, 2 + d, sizes[d], scales[d], bool(align_corners))
    return result
