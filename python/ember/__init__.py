"""Ember: a tensor runtime with PyTorch's Python API.

Device backends are plugins; the CPU plugin ships with this package.
"""

# In a build tree the compiled ember._C lives in <build>/python/ember while
# these files stay in the source tree; extending the package path lets one
# package span both (a wheel has them in one folder, where this is a no-op).
import sys as _sys
from pkgutil import extend_path

__path__ = extend_path(__path__, __name__)

from . import _C
from ._C import (
    Tensor,
    device,
    dtype,
    bool,
    uint8,
    int8,
    int16,
    int32,
    int64,
    float16,
    bfloat16,
    float32,
    float64,
    get_default_dtype,
    set_default_dtype,
    promote_types,
    is_grad_enabled,
    scalar_tensor,
    OutOfMemoryError,
    set_num_threads,
    get_num_threads,
)
from ._tensor import Size, layout, strided
from ._memory_format import channels_last, channels_last_3d, contiguous_format, memory_format, preserve_format
from . import _tensor_pickling, _shared_memory, _storage  # noqa: F401  (Tensor.__reduce_ex__, share_memory_, storage)
from ._legacy_constructors import tensor_types as _tensor_types  # also Tensor(2, 3), Tensor([1, 2])
from ._storage import TypedStorage, UntypedStorage
from ._ops import *  # noqa: F401,F403  (ember.add, ember.sum, ...)
from ._factories import (
    tensor,
    as_tensor,
    empty,
    empty_strided,
    empty_permuted,
    zeros,
    ones,
    full,
    empty_like,
    zeros_like,
    ones_like,
    full_like,
    rand_like,
    randn_like,
    randint_like,
    arange,
    linspace,
    logspace,
    set_default_device,
    get_default_device,
    eye,
    rand,
    randn,
    randint,
    randperm,
)
from ._factories import deprecated_range as range  # noqa: A004  (torch.range, which shadows the builtin as there)
from ._dlpack import asarray, from_dlpack, from_numpy, frombuffer
from ._elementwise_ops import count_nonzero, div, div as divide, fmod, lerp, nan_to_num
from ._elementwise_math import (acosh, addcdiv, addcmul, asinh, atanh, clamp_max, clamp_min, copysign, cosh, deg2rad,
                                exp2, float_power, fmax, fmin, frac, fix, gcd, heaviside, hypot, is_complex,
                                is_floating_point, isneginf, isposinf, isreal, lcm, log2, log10, logaddexp,
                                logaddexp2, logit, positive, rad2deg, sgn, signbit, sinc, sinh, xlogy, ldexp,
                                bitwise_left_shift, bitwise_right_shift)
from ._elementwise_math import acosh as arccosh, asinh as arcsinh, atanh as arctanh  # noqa: F401
from ._elementwise_math import clamp, clamp as clip  # tensor bounds too, over the C++ clamp
from ._elementwise_math import round  # noqa: A004  (decimals=, over the catalogue's round)
Tensor.round, Tensor.round_ = _elementwise_math.round, _elementwise_math.round_
from ._reductions import (aminmax, corrcoef, cov, cummax, cummin, cumprod, cumulative_trapezoid, dist, kthvalue,
                          logcumsumexp, median, mode, msort, nanmean, nanmedian, nanquantile, nansum, quantile, renorm,
                          std_mean, trace, trapezoid, trapz, var_mean)
from ._shape_ops import (atleast_1d, atleast_2d, atleast_3d, cross, diagonal, diff, dot, dsplit, fliplr, flipud,
                         hsplit, inner, kron, mv, ravel, rot90, swapaxes, swapdims, take, take_along_dim, tensor_split,
                         tile, unflatten, vsplit, hstack, vstack, dstack, column_stack, tril_indices, triu_indices,
                         cartesian_prod, combinations, block_diag, diag_embed, diagflat)
from . import _tensor_surface  # noqa: F401  (torch.Tensor's methods for the above)
adjoint, pinverse = Tensor.adjoint, Tensor.pinverse
from ._matrix_ops import (addbmm, addmm, addmv, addr, baddbmm, cdist, chain_matmul, diag, matrix_power, outer,
                          tensordot, vdot)
from ._histograms import bincount, histc, histogram
from ._numerical_gradient import gradient
from ._linalg_compositions import vander_1d as vander
from . import _linalg_legacy
from ._linalg_legacy import cholesky, cholesky_inverse, lu, lu_solve, qr, triangular_solve
from ._elementwise_math import frexp
from ._windows import bartlett_window, blackman_window, hamming_window, hann_window, kaiser_window
Tensor.bincount, Tensor.histc, Tensor.vdot = bincount, histc, vdot
Tensor.histogram, Tensor.frexp = histogram, frexp
_linalg_legacy.install_tensor_methods()
conj, resolve_conj, resolve_neg = Tensor.conj, Tensor.resolve_conj, Tensor.resolve_neg
is_nonzero, is_same_size, is_signed = Tensor.is_nonzero, Tensor.is_same_size, Tensor.is_signed
from ._matrix_ops import outer as ger
from ._einsum import einsum
from ._scatter import (argwhere, diagonal_scatter, index_add, index_copy, index_fill, index_reduce, isin,
                       masked_scatter, masked_select, nonzero, put, scatter, scatter_reduce, select_scatter,
                       slice_scatter, where)
from ._shape_ops import (
    broadcast_shapes,
    broadcast_tensors,
    broadcast_to,
    meshgrid,
    movedim,
    repeat_interleave,
    split_with_sizes,
)
from ._shape_ops import movedim as moveaxis
from ._random_ops import bernoulli, multinomial, normal
from ._poisson import poisson
from ._binomial import binomial
from ._special_functions import i0, igamma, igammac, mvlgamma, nextafter, polygamma
from ._searching import bucketize, searchsorted, unique, unique_consecutive, unravel_index
from ._type_info import finfo, iinfo
from ._printing import get_printoptions, printoptions, set_printoptions
from ._generator import Generator
from .autograd.grad_mode import no_grad, enable_grad, inference_mode, is_inference_mode_enabled, set_grad_enabled
from .serialization import save, load
from . import random  # noqa: A004  (torch.random)
from . import version  # torch.version
from . import multiprocessing  # torch.multiprocessing
from . import jit  # torch.jit
from . import func  # torch.func
from .func import vmap
from ._C import initial_seed
from .random import default_generator, get_rng_state, manual_seed, seed, set_rng_state
from ._global_settings import (get_float32_matmul_precision, get_num_interop_threads, is_warn_always_enabled,
                               set_default_tensor_type, set_float32_matmul_precision, set_flush_denormal,
                               set_num_interop_threads, set_warn_always)
from . import autograd, linalg, nn, optim, special, utils
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled
from ._linalg_factorizations import cholesky_solve, det, inv as inverse, logdet, lu_unpack, slogdet
from ._linalg_factorizations import svd_reduced_or_full as svd
from .linalg import householder_product as orgqr, matrix_exp
from . import _functional_names
from . import accelerator, backends, distributions, testing  # torch.accelerator, .backends, .distributions, .testing
from ._determinism import (
    use_deterministic_algorithms,
    are_deterministic_algorithms_enabled,
    is_deterministic_algorithms_warn_only_enabled,
    get_deterministic_debug_mode,
    set_deterministic_debug_mode,
)
from . import compiler
from . import profiler  # torch.profiler
from . import futures  # torch.futures
from . import library  # torch.library
from .library import ops  # torch.ops, for the custom operators
from . import hub  # torch.hub
from . import amp  # torch.amp
from .amp import autocast
from .amp.autocast_mode import (clear_autocast_cache, get_autocast_dtype, is_autocast_enabled, set_autocast_dtype,
                                set_autocast_enabled, is_autocast_cpu_enabled, set_autocast_cpu_enabled,
                                get_autocast_cpu_dtype, set_autocast_cpu_dtype, get_autocast_gpu_dtype,
                                set_autocast_gpu_dtype, is_autocast_cache_enabled, set_autocast_cache_enabled)
from . import onnx  # torch.onnx; the onnx package itself is imported by onnx.export only
from .compiler import compile  # noqa: A001  (ember.compile, as torch.compile)
from ._plugins import (load_plugin, plugins, devices, device_count, is_device_type_available, synchronize,
                       set_kernel_timeout, get_kernel_timeout)

# torch's other names of functions above (absolute, greater, clip, ...).
for _alias, _target in _tensor_surface.ALIASES.items():
    if _alias not in globals() and _target in globals():
        globals()[_alias] = globals()[_target]
del _alias, _target

# torch.FloatTensor, torch.LongTensor, ... (the CPU's; ember.cuda.FloatTensor and so on for the others).
globals().update(_tensor_types(__name__, "cpu"))

# torch.conv2d, torch.dropout, torch.layer_norm and the other functional ops
# at the top level, with torch's argument orders.
_functional_names.install(globals())
from . import _view_copies  # noqa: E402
_view_copies.install(globals())
from ._control_flow import _assert, cond, while_loop  # noqa: E402
from . import _foreach  # noqa: E402
_foreach.install(globals())
from . import sparse  # noqa: E402  (torch.sparse)
from ._sparse_coo import sparse_coo, sparse_coo_tensor, to_sparse as _to_sparse  # noqa: E402
spmm = sparse.mm
Tensor.to_sparse = Tensor.to_sparse_coo = _to_sparse
nonzero_static = Tensor.nonzero_static

# out= for the functions PyTorch gives it (Note [Out arguments]), torch's
# aliases above included.
from ._out_arguments import add_out_arguments as _add_out_arguments, can_cast  # noqa: E402
_add_out_arguments({"": _sys.modules[__name__], "linalg": linalg, "special": special})

# PyTorch's dtype aliases.
half = float16
float = float32
double = float64
short = int16
int = int32
long = int64

__version__ = _C.__version__


# PyTorch's constants.
import math as _math  # noqa: E402

pi, e, inf, nan = _math.pi, _math.e, _math.inf, _math.nan
newaxis = None


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_storage(obj):
    return isinstance(obj, (UntypedStorage, TypedStorage))


def typename(obj):
    """The tensor's legacy type name ("torch.FloatTensor"), or the object's class name."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(type(obj), "__module__", "")
    name = type(obj).__qualname__
    return name if module in ("builtins", "", None) else f"{module}.{name}"


def get_device(input):
    """The tensor's device index, -1 on the CPU (Tensor.get_device)."""
    return input.get_device()


def angle(input):
    return input.angle()


def real(input):
    return input.real


def imag(input):
    return input.imag

from ._streams import Stream, Event

# `with ember.device("meta"):` makes factories' tensors there (Note [Default device]).
from . import _factories  # noqa: E402
device.__enter__ = _factories._enter_device
device.__exit__ = _factories._exit_device
from ._device_module import device_module as _device_module, plugin_device_types as _plugin_device_types

# ember.cuda and ember.xpu exist whether or not a plugin provides them (their
# is_available() says); other device types appear once a plugin provides them.
cuda = _device_module("cuda")
xpu = _device_module("xpu")


def __getattr__(name):
    if not name.startswith("_") and name in _plugin_device_types():
        return _device_module(name)
    raise AttributeError(f"module 'ember' has no attribute '{name}'")
