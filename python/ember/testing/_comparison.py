"""assert_close: PyTorch's comparison of tensors, NumPy arrays, numbers,
booleans, None, and sequences and mappings of them, with its default
tolerances per dtype and its error messages (torch.testing.assert_close)."""

import cmath
import collections.abc

from .. import _C, _factories, _ops

# (rtol, atol) by dtype when neither is given; exact for integers and bool.
_DTYPE_PRECISIONS = {
    _C.float16: (1e-3, 1e-5),
    _C.bfloat16: (1.6e-2, 1e-5),
    _C.float32: (1.3e-6, 1e-5),
    _C.float64: (1e-7, 1e-7),
}
# Numbers (NumPy's as the Python number they hold) count as int64, float64
# and complex128.
_NUMBER_PRECISIONS = {int: (0.0, 0.0), float: (1e-7, 1e-7), complex: (1e-7, 1e-7)}


class _Unsupported(Exception):
    """This kind of pair does not handle the inputs; the next one may."""


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False, check_device=True,
                 check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """Raises AssertionError unless ``actual`` and ``expected`` are close:
    ``|actual - expected| <= atol + rtol * |expected|`` elementwise, after
    their shape, device and dtype (and strides with ``check_stride``)
    match. Without rtol and atol the dtypes' defaults apply (float32: 1.3e-6
    and 1e-5; float64: 1e-7 and 1e-7; float16: 1e-3 and 1e-5; bfloat16:
    1.6e-2 and 1e-5; integers and bool: exact). ``msg`` replaces the message,
    or, called with it, makes one. ``check_layout`` is accepted: Ember's
    tensors are all strided."""
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                         f"{'rtol' if rtol is None else 'atol'}.")
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                   check_device=check_device, check_dtype=check_dtype, check_stride=check_stride)
    try:
        _compare(actual, expected, (), options)
    except _Mismatch as mismatch:
        message = mismatch.message
        if mismatch.path:
            message += "\n\nThe failure occurred for item " + "".join(f"[{key!r}]" for key in mismatch.path)
        if msg is not None:
            message = msg(message) if callable(msg) else msg
        raise AssertionError(message) from None


class _Mismatch(Exception):
    def __init__(self, message, path):
        super().__init__(message)
        self.message, self.path = message, path


def _is_sequence(value):
    return isinstance(value, collections.abc.Sequence) and not isinstance(value, str)


def _compare(actual, expected, path, options):
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise _Mismatch(f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", path)
        for index, (actual_item, expected_item) in enumerate(zip(actual, expected)):
            _compare(actual_item, expected_item, path + (index,), options)
        return
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        actual_keys, expected_keys = set(actual.keys()), set(expected.keys())
        if actual_keys != expected_keys:
            raise _Mismatch("The keys of the mappings do not match:\n"
                            f"Missing keys in the actual mapping: {_sorted(expected_keys - actual_keys)}\n"
                            f"Additional keys in the actual mapping: {_sorted(actual_keys - expected_keys)}", path)
        for key in _sorted(actual_keys):
            _compare(actual[key], expected[key], path + (key,), options)
        return
    for compare in (_compare_none, _compare_booleans, _compare_numbers, _compare_tensor_likes):
        try:
            compare(actual, expected, path, options)
            return
        except _Unsupported:
            continue
    raise TypeError(f"No comparison pair was able to handle inputs of type {type(actual)} and {type(expected)}.")


def _sorted(keys):
    try:
        return sorted(keys)
    except TypeError:
        return list(keys)


def _compare_none(actual, expected, path, options):
    if actual is not None and expected is not None:
        raise _Unsupported
    if actual is not expected:
        raise _Mismatch(f"None mismatch: {actual} is not {expected}", path)


def _numpy_type(name):
    import sys

    numpy = sys.modules.get("numpy")  # without NumPy loaded there are no NumPy values
    return getattr(numpy, name) if numpy is not None else ()


def _compare_booleans(actual, expected, path, options):
    kinds = (bool, _numpy_type("bool_"))
    if not (isinstance(actual, kinds) and isinstance(expected, kinds)):
        raise _Unsupported
    if bool(actual) is not bool(expected):
        raise _Mismatch(f"Booleans mismatch: {actual} is not {expected}", path)


def _number_precision(value):
    return next(precision for kind, precision in _NUMBER_PRECISIONS.items() if isinstance(value, kind))


def _compare_numbers(actual, expected, path, options):
    kinds = (int, float, complex, _numpy_type("number"))
    if not all(isinstance(value, kinds) and not isinstance(value, bool) for value in (actual, expected)):
        raise _Unsupported
    actual, expected = (value.item() if isinstance(value, _numpy_type("number")) else value
                        for value in (actual, expected))
    if options["check_dtype"] and type(actual) is not type(expected):
        raise _Mismatch(f"The (d)types do not match: {type(actual)} != {type(expected)}.", path)
    rtol, atol = options["rtol"], options["atol"]
    if rtol is None:
        rtol, atol = (max(tolerances) for tolerances in zip(_number_precision(actual), _number_precision(expected)))
    if actual == expected or (options["equal_nan"] and cmath.isnan(actual) and cmath.isnan(expected)):
        return
    if not (cmath.isinf(actual) or cmath.isinf(expected)) and abs(actual - expected) <= atol + rtol * abs(expected):
        return
    raise _Mismatch(_scalar_mismatch(actual, expected, rtol, atol), path)


def _mismatch_message(identifier, extra, abs_diff, abs_index, rel_diff, rel_index, rtol, atol):
    equality = rtol == 0 and atol == 0

    def difference(kind, value, index, tolerance):
        line = f"{kind.title()} difference: {value}" if index is None else \
            f"Greatest {kind} difference: {value} at index {index}"
        return line + ("" if equality else f" (up to {tolerance} allowed)")

    return (f"{identifier} are not {'equal' if equality else 'close'}!\n\n{extra}\n"
            f"{difference('absolute', abs_diff, abs_index, atol)}\n"
            f"{difference('relative', rel_diff, rel_index, rtol)}")


def _scalar_mismatch(actual, expected, rtol, atol):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_message("Scalars", f"Expected {expected} but got {actual}.", abs_diff, None, rel_diff, None,
                             rtol, atol)


def _as_tensor(value, allow_subclasses, other):
    related = isinstance(value, type(other)) or isinstance(other, type(value))
    if not related or (not allow_subclasses and type(value) is not type(other)):
        raise _Unsupported
    if isinstance(value, _C.Tensor):
        return value
    if isinstance(value, _numpy_type("ndarray")):
        return _factories.as_tensor(value)
    raise _Unsupported


def _compare_tensor_likes(actual, expected, path, options):
    actual_tensor = _as_tensor(actual, options["allow_subclasses"], expected)
    expected_tensor = _as_tensor(expected, options["allow_subclasses"], actual)
    actual, expected = actual_tensor, expected_tensor
    rtol, atol = options["rtol"], options["atol"]
    if rtol is None:
        rtol, atol = (max(values) for values in zip(_DTYPE_PRECISIONS.get(actual.dtype, (0.0, 0.0)),
                                                    _DTYPE_PRECISIONS.get(expected.dtype, (0.0, 0.0))))
    checks = [("shape", lambda t: t.shape)]
    if options["check_device"]:
        checks.append(("device", lambda t: t.device))
    if options["check_dtype"]:
        checks.append(("dtype", lambda t: t.dtype))
    if options["check_stride"]:
        checks.append(("stride()", lambda t: t.stride()))
    for name, read in checks:
        if read(actual) != read(expected):
            raise _Mismatch(f"The values for attribute '{name}' do not match: {read(actual)} != {read(expected)}.",
                            path)
    # Compared on the host, in the dtype both promote to.
    dtype = _C.promote_types(actual.dtype, expected.dtype)
    actual, expected = (t.detach().to(_C.device("cpu"), dtype) for t in (actual, expected))
    if rtol == 0 and atol == 0:
        matches = actual == expected
    else:
        matches = _ops.isclose(actual, expected, rtol, atol, options["equal_nan"])
    if bool(matches.all()):
        return
    if actual.dim() == 0:
        raise _Mismatch(_scalar_mismatch(actual.item(), expected.item(), rtol, atol), path)
    raise _Mismatch(_tensor_mismatch(actual, expected, matches, rtol, atol), path)


def _tensor_mismatch(actual, expected, matches, rtol, atol):
    """PyTorch's message: the count of mismatches, then the greatest
    absolute and relative differences among them (computed in the tensors'
    dtype, integers in int64) and where they are."""
    shape, total = tuple(matches.shape), matches.numel()
    mismatches = total - int(matches.sum())
    actual, expected, matches = actual.flatten(), expected.flatten(), matches.flatten()
    if not actual.dtype.is_floating_point:
        actual, expected = actual.to(_C.int64), expected.to(_C.int64)
    abs_diff = (actual - expected).abs().masked_fill(matches, 0)
    max_abs, abs_index = abs_diff.max(0)
    rel_diff = (abs_diff / expected.abs()).masked_fill(matches, 0)
    max_rel, rel_index = rel_diff.max(0)
    return _mismatch_message("Tensor-likes", f"Mismatched elements: {mismatches} / {total} ({mismatches / total:.1%})",
                             max_abs.item(), _unravel(abs_index.item(), shape), max_rel.item(),
                             _unravel(rel_index.item(), shape), rtol, atol)


def _unravel(flat_index, shape):
    index = []
    for extent in reversed(shape):
        flat_index, position = divmod(flat_index, extent)
        index.append(position)
    return tuple(reversed(index))
