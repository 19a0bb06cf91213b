"""torch.library's Python custom operators: `@custom_op("ns::name",
mutates_args=...)` turns a function of tensors into an operator reachable
as `ember.ops.ns.name`, with a fake (meta) implementation
(`register_fake`), per-device kernels (`register_kernel`) and a derivative
(`register_autograd`), and `opcheck` to test the registrations; the older
`Library(ns, "DEF")`, `define` and `impl` register the same operators.

The operators run in Python: a call picks the kernel of its tensors'
device type (or the default), and with a derivative registered it records
one autograd node whose backward is the registered one. They are not
catalogue ops: the compiler traces through them like any Python code."""

import inspect

from . import _C
from .autograd.function import Function

__all__ = ["custom_op", "CustomOpDef", "register_fake", "register_kernel", "register_autograd", "opcheck",
           "Library", "define", "impl", "ops"]

_OPERATORS = {}


def _split(qualname):
    if not isinstance(qualname, str) or qualname.count("::") != 1 or not all(qualname.split("::")):
        raise ValueError(f"expected a qualified name 'namespace::name', got {qualname!r}")
    return qualname.split("::")


def _device_type(args):
    for value in args:
        if isinstance(value, _C.Tensor):
            return value.device.type
        if isinstance(value, (list, tuple)):
            found = _device_type(value)
            if found is not None:
                return found
    return None


class CustomOpDef:
    """A custom operator: call it like its function."""

    def __init__(self, qualname, fn, mutates_args, schema=None):
        self._namespace, self._name = _split(qualname)
        self._qualname, self._init_fn, self._mutates_args = qualname, fn, mutates_args
        self._signature = inspect.signature(fn) if fn is not None else None
        self._kernels, self._fake = {}, None
        self._backward, self._setup_context = None, None
        self.__name__ = self._name
        _OPERATORS[qualname] = self

    def __repr__(self):
        return f"<CustomOpDef({self._qualname})>"

    def register_fake(self, fn=None):
        def register(function):
            self._fake = function
            return function

        return register if fn is None else register(fn)

    def register_kernel(self, device_types, fn=None):
        kinds = [device_types] if isinstance(device_types, str) or device_types is None else list(device_types)

        def register(function):
            for kind in kinds:
                self._kernels[kind] = function
            return function

        return register if fn is None else register(fn)

    def register_autograd(self, backward, *, setup_context=None):
        if not callable(backward) or (setup_context is not None and not callable(setup_context)):
            raise TypeError(f"{self._qualname}: register_autograd needs a callable backward (and setup_context)")
        self._backward, self._setup_context = backward, setup_context

    def _kernel_for(self, args):
        device = _device_type(args)
        if device == "meta" and self._fake is not None:
            return self._fake
        kernel = self._kernels.get(device, self._kernels.get(None, self._init_fn))
        if kernel is None:
            raise NotImplementedError(f"{self._qualname}: no kernel for device type {device!r}")
        return kernel

    def _bound(self, args, kwargs):
        if self._signature is None:
            return args
        bound = self._signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return tuple(bound.arguments.values())

    def __call__(self, *args, **kwargs):
        args = self._bound(args, kwargs)
        kernel = self._kernel_for(args)
        needs_grad = _C.is_grad_enabled() and any(isinstance(a, _C.Tensor) and a.requires_grad for a in args)
        if self._backward is None or not needs_grad:
            return kernel(*args)
        return _autograd_function(self, kernel).apply(*args)


def _autograd_function(op, kernel):
    """An autograd.Function running `kernel` forward and the registered backward."""

    class CustomOpFunction(Function):
        @staticmethod
        def forward(*args):
            return kernel(*args)

        @staticmethod
        def setup_context(ctx, inputs, output):
            if op._setup_context is not None:
                op._setup_context(ctx, inputs, output)

        @staticmethod
        def backward(ctx, *grads):
            found = op._backward(ctx, *grads)
            return found if isinstance(found, tuple) else (found,)

    CustomOpFunction.__name__ = f"{op._namespace}_{op._name}"
    return CustomOpFunction


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None):
    """Decorator (or call) making `fn` the operator `name` ("ns::name")."""
    if mutates_args != "unknown" and not isinstance(mutates_args, (tuple, list, set, frozenset, str)):
        raise TypeError("custom_op: mutates_args must be a sequence of argument names or 'unknown'")

    def make(function):
        op = CustomOpDef(name, function, mutates_args, schema)
        if device_types is not None:
            op.register_kernel(device_types, function)
        return op

    return make if fn is None else make(fn)


def _operator(op):
    if isinstance(op, CustomOpDef):
        return op
    if op not in _OPERATORS:
        raise ValueError(f"{op!r} is not a custom operator defined with ember.library")
    return _OPERATORS[op]


def register_fake(op, fn=None, /, *, lib=None, _stacklevel=1):
    return _operator(op).register_fake(fn)


def register_kernel(op, device_types, fn=None, /, *, lib=None):
    return _operator(op).register_kernel(device_types, fn)


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    _operator(op).register_autograd(backward, setup_context=setup_context)


def opcheck(op, args, kwargs=None, *, test_utils=("test_schema", "test_autograd_registration", "test_faketensor"),
            raise_exception=True, atol=None, rtol=None):
    """Checks the registrations against a call with `args`: the fake implementation gives the real result's
    shapes and dtypes (on the meta device), and a backward, where registered, returns one gradient per input."""
    op = _operator(op)
    kwargs = kwargs or {}
    results = {}
    try:
        real = op(*args, **kwargs)
        results["test_schema"] = "SUCCESS"
        if op._fake is not None:
            meta_args = [a.to("meta") if isinstance(a, _C.Tensor) else a for a in op._bound(args, kwargs)]
            fake = op._fake(*meta_args)
            for r, f in zip(real if isinstance(real, (tuple, list)) else [real],
                            fake if isinstance(fake, (tuple, list)) else [fake]):
                if tuple(r.shape) != tuple(f.shape) or r.dtype != f.dtype:
                    raise AssertionError(f"{op._qualname}: the fake implementation gives {f.dtype} of shape "
                                         f"{list(f.shape)} where the kernel gives {r.dtype} of shape {list(r.shape)}")
        results["test_faketensor"] = "SUCCESS"
        outputs = [o for o in (real if isinstance(real, (tuple, list)) else [real])
                   if isinstance(o, _C.Tensor) and o.requires_grad]
        if outputs and op._backward is None:
            raise AssertionError(f"{op._qualname}: its outputs require grad but no backward is registered")
        if outputs:
            sum(o.sum() for o in outputs).backward()
        results["test_autograd_registration"] = "SUCCESS"
    except Exception as error:
        if raise_exception:
            raise
        failed = next(key for key in ("test_schema", "test_faketensor", "test_autograd_registration")
                      if key not in results)
        results[failed] = error
    return {key: results[key] for key in test_utils if key in results}


class Library:
    """Library(ns, "DEF" | "IMPL" | "FRAGMENT"): define(schema) declares an operator of the namespace,
    impl(name, fn, dispatch_key) gives its kernel ("CPU", "CUDA", ... or "CompositeImplicitAutograd" for
    every device)."""

    def __init__(self, ns, kind, dispatch_key=""):
        if kind not in ("DEF", "IMPL", "FRAGMENT"):
            raise ValueError(f"Library: kind must be DEF, IMPL or FRAGMENT, got {kind!r}")
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key

    def define(self, schema, alias_analysis="", *, tags=()):
        name = schema.split("(", 1)[0].strip()
        qualname = f"{self.ns}::{name.split('.')[0]}"
        if qualname not in _OPERATORS:
            CustomOpDef(qualname, None, "unknown", schema)
        return name

    def impl(self, op_name, fn, dispatch_key="", *, with_keyset=False, allow_override=False):
        name = op_name if isinstance(op_name, str) else op_name._name
        qualname = name if "::" in name else f"{self.ns}::{name.split('.')[0]}"
        key = (dispatch_key or self.dispatch_key or "CompositeImplicitAutograd").lower()
        device = None if key.startswith("composite") or key in ("autograd", "") else key
        _operator(qualname).register_kernel(device, fn)


def define(qualname, schema, *, lib=None, tags=()):
    namespace, name = _split(qualname)
    return Library(namespace, "FRAGMENT").define(name + schema)


def impl(qualname, types, func=None, *, lib=None):
    kinds = [types] if isinstance(types, str) else list(types)

    def register(function):
        for kind in kinds:
            key = kind.lower()
            _operator(qualname).register_kernel(None if key in ("default", "compositeimplicitautograd") else key,
                                                function)
        return function

    return register if func is None else register(func)


class _Namespace:
    def __init__(self, name):
        self._name = name

    def __getattr__(self, name):
        qualname = f"{self._name}::{name}"
        if qualname not in _OPERATORS:
            raise AttributeError(f"'_OpNamespace' '{self._name}' object has no attribute '{name}'")
        return _OPERATORS[qualname]


class _Ops:
    """ember.ops.<namespace>.<name>: the custom operators."""

    def __getattr__(self, namespace):
        if namespace.startswith("__"):
            raise AttributeError(namespace)
        return _Namespace(namespace)


ops = _Ops()
