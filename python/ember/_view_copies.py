"""torch's `<view>_copy` functions (permute_copy, select_copy, ...): the
view op's result as a tensor of its own, which programs exported from
functionalized graphs call."""

from . import _C
from ._memory_format import contiguous_format


def _alias(input):
    return input.view(input.shape)


def _owned(result):
    if isinstance(result, (tuple, list)):
        return type(result)(piece.clone(memory_format=contiguous_format) for piece in result)
    return result.clone(memory_format=contiguous_format)


def _copying(view, name):
    def copied(input, *args, **kwargs):
        return _owned(view(input, *args, **kwargs))

    copied.__name__ = name
    copied.__doc__ = f"torch.{name}: {view.__name__}'s result in memory of its own."
    return copied


def _slice(input, dim=0, start=None, end=None, step=1):
    index = [slice(None)] * input.dim()
    index[dim] = slice(start, end, step)
    return input[tuple(index)]


def _expand(input, size, *, implicit=False):
    return input.expand(*size)


def _view(input, size_or_dtype):
    return input.view(size_or_dtype)


def install(namespace):
    views = {name: namespace[name] for name in ("as_strided", "detach", "diagonal", "permute", "select", "split",
                                                  "split_with_sizes", "squeeze", "t", "transpose", "unbind",
                                                  "unsqueeze", "narrow")}
    views.update(alias=_alias, slice=_slice, expand=_expand, view=_view, unfold=_C.Tensor.unfold)
    for name, view in views.items():
        namespace.setdefault(f"{name}_copy", _copying(view, f"{name}_copy"))
