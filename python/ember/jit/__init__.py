"""torch.jit's names as model code uses them. Ember builds no TorchScript
programs: `script` returns the function or module it is given, which computes
what its scripted form computes, and `trace` runs the function once on the
example inputs (as PyTorch's does) and returns it. The decorators (`ignore`,
`unused`, `export`, `interface`) leave what they decorate as it is,
`is_scripting()` and `is_tracing()` are false, `annotate` returns its value,
and `fork`/`wait` run the call at once. `save` and `load` of TorchScript
archives raise NotImplementedError naming ember.save (state dicts) and
ember.export (graphs); ember.compile is the way to compile."""

import typing

Final = typing.Final


class ScriptModule:
    """The type of scripted modules; Ember makes none, so no object is one."""


class ScriptFunction:
    """The type of scripted functions; Ember makes none, so no object is one."""


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    return obj


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
          strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None,
          example_kwarg_inputs=None, _store_inputs=True):
    if example_inputs is None and example_kwarg_inputs is None:
        raise RuntimeError("trace(): example_inputs or example_kwarg_inputs must be given")
    if example_kwarg_inputs is not None:
        func(**example_kwarg_inputs)
    else:
        func(*(example_inputs if isinstance(example_inputs, tuple) else (example_inputs,)))
    return func


def _decorator_or_factory(name):
    def decorate(fn=None, **kwargs):
        if fn is None:
            return lambda inner: inner
        return fn

    decorate.__name__ = name
    return decorate


ignore = _decorator_or_factory("ignore")
unused = _decorator_or_factory("unused")
export = _decorator_or_factory("export")
interface = _decorator_or_factory("interface")


def is_scripting():
    return False


def is_tracing():
    return False


def annotate(the_type, the_value):
    return the_value


class _Done:
    def __init__(self, value):
        self._value = value

    def wait(self):
        return self._value


def fork(func, *args, **kwargs):
    """Runs func at once; wait() on the result gives its value."""
    return _Done(func(*args, **kwargs))


def wait(future):
    return future.wait()


def _no_archives(name):
    def refuse(*args, **kwargs):
        raise NotImplementedError(f"ember.jit.{name}: Ember builds no TorchScript archives; save a model's "
                                  "state_dict with ember.save, or a graph with ember.export.save")

    refuse.__name__ = name
    return refuse


save = _no_archives("save")
load = _no_archives("load")
