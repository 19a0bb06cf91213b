"""ember.set_printoptions, get_printoptions and the printoptions context:
how print() and repr() lay out a tensor's values (torch.set_printoptions)."""

import contextlib
import math

from . import _C

_PROFILES = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}
_NO_LIMIT = 2**63 - 1  # threshold=inf: never summarise


def _count(name, value, minimum):
    if isinstance(value, float) and math.isinf(value) and value > 0:
        return _NO_LIMIT
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
        raise TypeError(f"set_printoptions: {name} must be an int, got {value!r}")
    if value < minimum:
        raise ValueError(f"set_printoptions: {name} must be at least {minimum}, got {value}")
    return int(value)


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    """precision: digits after the point; threshold: the element count past
    which a tensor is summarised; edgeitems: the elements kept at each end of
    a summarised dim; linewidth: characters per line; profile: "default",
    "short" or "full" first; sci_mode: True or False forces scientific
    notation on or off, None (what every call without it sets, as in
    PyTorch) chooses from the values."""
    options = _C._print_options()
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"set_printoptions: profile must be one of {sorted(_PROFILES)}, got {profile!r}")
        options.update(_PROFILES[profile])
    for name, value in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                        ("linewidth", linewidth)):
        if value is not None:
            options[name] = value
    if sci_mode is not None and not isinstance(sci_mode, bool):
        raise TypeError(f"set_printoptions: sci_mode must be True, False or None, got {sci_mode!r}")
    _C._set_print_options(_count("precision", options["precision"], 0),
                          _count("threshold", options["threshold"], 0),
                          _count("edgeitems", options["edgeitems"], 0),
                          _count("linewidth", options["linewidth"], 1), sci_mode)


def get_printoptions():
    """The current options, as set_printoptions takes them."""
    options = _C._print_options()
    if options["threshold"] == _NO_LIMIT:
        options["threshold"] = math.inf
    return options


@contextlib.contextmanager
def printoptions(**kwargs):
    """set_printoptions(**kwargs) inside the block, the previous options after it."""
    previous = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**previous)
