"""Process-wide compiler settings: the stance, the variant limit, the registry reset() clears."""

import threading
import weakref

cache_size_limit = 8
# Traces a dynamic variant keeps, one per concrete size and integer (the least recently used go).
traces_per_variant = 64
# Whether this thread is capturing a program for ember.export (compiler.is_exporting).
exporting = threading.local()
_STANCES = ("default", "force_eager", "eager_on_recompile", "fail_on_recompile")
_state = {"stance": "default", "disabled": 0}
_functions = weakref.WeakSet()


def stance():
    return _state["stance"]


def set_stance(value):
    if value not in _STANCES:
        raise ValueError(f"set_stance: unknown stance {value!r}; expected one of {', '.join(_STANCES)}")
    previous = _state["stance"]
    _state["stance"] = value
    return previous


def disabled():
    return _state["disabled"] > 0


def register(fn):
    _functions.add(fn)


def reset():
    for fn in list(_functions):
        fn.variants.clear()
        fn.recompile_reasons.clear()
        fn.limit_warned = False
