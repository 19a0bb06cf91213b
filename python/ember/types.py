"""torch.types: the type aliases PyTorch programs annotate with."""

import builtins
from typing import Union

from ._C import Tensor, device as _device_type, dtype as _dtype_type
from ._tensor import Size, layout as _layout_type

_int = builtins.int
_float = builtins.float
_bool = builtins.bool
_complex = builtins.complex
_str = builtins.str
_bytes = builtins.bytes
_dtype = _dtype_type
_device = _device_type
_layout = _layout_type
_size = Union[Size, list[builtins.int], tuple[builtins.int, ...]]
_TensorOrTensors = Union[Tensor, tuple[Tensor, ...]]
Number = Union[builtins.int, builtins.float, builtins.bool]
_Number = (builtins.int, builtins.float, builtins.bool)
Device = Union[_device_type, builtins.str, builtins.int, None]
