"""ember.finfo and ember.iinfo: the numeric limits of a dtype, with
PyTorch's attribute names."""

from . import _C
from ._dtype_names import dtype_name as _dtype_name

# (bits, eps, max, smallest normal, resolution) of each floating dtype:
# IEEE 754 binary16/32/64 and bfloat16 (float32's exponent, 8 significand bits).
_FLOATING = {
    _C.float16: (16, 2.0**-10, 65504.0, 2.0**-14, 0.001),
    _C.bfloat16: (16, 2.0**-7, 3.3895313892515355e38, 1.1754943508222875e-38, 0.01),
    _C.float32: (32, 2.0**-23, 3.4028234663852886e38, 1.1754943508222875e-38, 1e-06),
    _C.float64: (64, 2.0**-52, 1.7976931348623157e308, 2.2250738585072014e-308, 1e-15),
}

_INTEGRAL = {
    _C.uint8: (8, 0, 2**8 - 1),
    _C.int8: (8, -(2**7), 2**7 - 1),
    _C.int16: (16, -(2**15), 2**15 - 1),
    _C.int32: (32, -(2**31), 2**31 - 1),
    _C.int64: (64, -(2**63), 2**63 - 1),
}


class finfo:  # noqa: N801  (PyTorch's name)
    """Limits of a floating dtype (the default dtype when none is given)."""

    def __init__(self, type=None):  # noqa: A002  (PyTorch's argument name)
        dtype = _C.get_default_dtype() if type is None else type
        if dtype not in _FLOATING:
            raise TypeError(f"finfo: {dtype} is not a floating point dtype")
        self.dtype = _dtype_name(dtype)
        self.bits, self.eps, self.max, self.smallest_normal, self.resolution = _FLOATING[dtype]
        self.min = -self.max
        self.tiny = self.smallest_normal

    def __repr__(self):
        return (f"finfo(resolution={self.resolution}, min={self.min:.6g}, max={self.max:.6g}, eps={self.eps:.6g}, "
                f"smallest_normal={self.smallest_normal:.6g}, tiny={self.tiny:.6g}, dtype={self.dtype})")


class iinfo:  # noqa: N801  (PyTorch's name)
    """Limits of an integer dtype."""

    def __init__(self, type):  # noqa: A002  (PyTorch's argument name)
        if type not in _INTEGRAL:
            raise TypeError(f"iinfo: {type} is not an integer dtype")
        self.dtype = _dtype_name(type)
        self.bits, self.min, self.max = _INTEGRAL[type]

    def __repr__(self):
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"
