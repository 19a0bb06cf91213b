"""Guards: what a compiled variant assumes about its call, and the words for a mismatch."""

from .. import _C
from .. import _determinism
from .._C import Tensor


def _contiguity(t):
    return "contiguous" if t.is_contiguous() else "strided"


class TensorGuard:
    """Device, dtype, rank, sizes (static, or dynamic dims at least 2), strides, requires_grad."""

    __slots__ = ("name", "device", "dtype", "sizes", "strides", "requires_grad", "dynamic")

    def __init__(self, name, t, dynamic_dims):
        self.name = name
        self.device = str(t.device)
        self.dtype = t.dtype
        self.sizes = tuple(t.shape)
        self.dynamic = frozenset(d for d in dynamic_dims if d < len(self.sizes) and self.sizes[d] >= 2)
        self.strides = tuple(t.stride()) if not self.dynamic else _contiguity(t)
        self.requires_grad = t.requires_grad

    def failure(self, t):
        """None when `t` satisfies the guard, else why not, in words."""
        if not isinstance(t, Tensor):
            return f"{self.name}: expected a tensor, got {type(t).__name__}"
        if str(t.device) != self.device:
            return f"{self.name}: device changed {self.device} -> {t.device}"
        if t.dtype != self.dtype:
            return f"{self.name}: dtype changed {self.dtype} -> {t.dtype}"
        if t.requires_grad != self.requires_grad:
            return f"{self.name}: requires_grad changed {self.requires_grad} -> {t.requires_grad}"
        sizes = tuple(t.shape)
        if len(sizes) != len(self.sizes):
            return f"{self.name}: rank changed {len(self.sizes)} -> {len(sizes)}"
        for d, (was, now) in enumerate(zip(self.sizes, sizes)):
            if d in self.dynamic:
                if now < 2:
                    return f"{self.name}: size of dim {d} is {now}, which is specialized (dynamic dims hold sizes >= 2)"
            elif was != now:
                return f"{self.name}: size of dim {d} changed {was} -> {now}"
        if self.dynamic:
            if _contiguity(t) != self.strides:
                return f"{self.name}: layout changed {self.strides} -> {_contiguity(t)}"
        elif tuple(t.stride()) != self.strides:
            return f"{self.name}: strides changed {self.strides} -> {tuple(t.stride())}"
        return None

    def describe(self):
        sizes = ", ".join("s" + str(d) if d in self.dynamic else str(s) for d, s in enumerate(self.sizes))
        return (f"{self.name}: {self.device} {self.dtype} [{sizes}] strides {self.strides} "
                f"requires_grad={self.requires_grad}")

    def size_changes(self, t):
        """Dims whose static size differs in `t` (for automatic dynamic)."""
        if not isinstance(t, Tensor) or len(t.shape) != len(self.sizes) or t.dtype != self.dtype:
            return None
        if str(t.device) != self.device or t.requires_grad != self.requires_grad:
            return None
        return {d for d, (a, b) in enumerate(zip(self.sizes, tuple(t.shape))) if a != b and d not in self.dynamic}


def global_state():
    return (("grad mode", _C.is_grad_enabled()), ("default dtype", _C.get_default_dtype()),
            ("deterministic algorithms", _determinism._state["enabled"]), ("autocast", _C._autocast_state()))


def _is_int(value):
    return type(value) is int


class CallGuard:
    """Every guard of one variant: tensors, other arguments by value (an integer whose change caused a
    recompile: any integer), global state, module modes."""

    def __init__(self, names, leaves, spec, dynamic_dims, dynamic_ints, module_modes):
        self.tensors = []
        self.values = []
        for i, (name, leaf) in enumerate(zip(names, leaves)):
            if isinstance(leaf, Tensor):
                self.tensors.append((i, TensorGuard(name, leaf, dynamic_dims.get(i, ()))))
            else:
                self.values.append((i, name, leaf, i in dynamic_ints and _is_int(leaf)))
        self.dynamic_ints = [i for i, _, _, dynamic in self.values if dynamic]
        self.dynamic = bool(self.dynamic_ints) or any(g.dynamic for _, g in self.tensors)
        self.spec = spec
        self.globals = global_state()
        self.module_modes = module_modes
        self.fast = _C._TensorGuardSet()
        for i, guard in self.tensors:
            self.fast.add(i, leaves[i], sorted(guard.dynamic))
        # Per tensor guard: the earlier one whose tensor shares memory with
        # its own (-1: none), and whether it is that same tensor (Note
        # [Aliasing arguments] in python/src/compile_bindings.cpp).
        self.sharing = self.fast.record_sharing(leaves)

    def unique_tensors(self, leaves):
        """The tensor arguments, each tensor passed more than once taken once."""
        return [leaves[i] for (i, _), (_, same) in zip(self.tensors, self.sharing) if not same]

    def shared_views(self):
        """Words for arguments that are different views of one memory, or None."""
        for (_, guard), (earlier, same) in zip(self.tensors, self.sharing):
            if earlier >= 0 and not same:
                return (f"arguments {self.tensors[earlier][1].name} and {guard.name} are different views of "
                        f"overlapping memory; compiled code gives each argument its own, so the function runs "
                        f"eagerly")
        return None

    def _sharing_words(self, pair):
        earlier, same = pair
        if earlier < 0:
            return "memory of its own"
        other = self.tensors[earlier][1].name
        return f"the same tensor as {other}" if same else f"memory overlapping {other}'s"

    def failure(self, leaves, spec, module_modes):
        if spec != self.spec or len(leaves) != len(self.tensors) + len(self.values):
            return "the arguments' structure changed"
        for (what, was), (_, now) in zip(self.globals, global_state()):
            if was != now:
                return f"{what} changed {was} -> {now}"
        if module_modes != self.module_modes:
            if module_modes[0] != self.module_modes[0]:
                return "a module's training flag changed (train()/eval())"
            return "a parameter, buffer or submodule of the module was replaced"
        for i, name, value, dynamic in self.values:
            now = leaves[i]
            if dynamic:
                if not _is_int(now):
                    return f"{name}: expected an int (dynamic), got {type(now).__name__}"
            elif isinstance(now, Tensor) or type(now) is not type(value) or now != value:
                return f"{name}: value changed {value!r} -> {now!r}"
        failing = self.fast.check(leaves)
        if failing < 0:
            return None
        i, guard = self.tensors[failing]
        why = guard.failure(leaves[i])
        if why is None:
            was, now = self.sharing[failing], self.fast.sharing(leaves)[failing]
            if was != now:
                return f"{guard.name}: {self._sharing_words(was)} when traced, {self._sharing_words(now)} now"
        return why or f"{guard.name}: guard failed"

    def int_changes(self, leaves):
        """Integer arguments that changed value in `leaves`, or were already dynamic (automatic
        dynamic)."""
        return {i for i, _, value, dynamic in self.values
                if _is_int(leaves[i]) and (dynamic or (_is_int(value) and leaves[i] != value))}

    def trace_key(self, leaves, tensors):
        """Which of a dynamic variant's traces serves this call: one per concrete size and integer."""
        if not self.dynamic:
            return ()
        return tuple(tuple(t.shape) for t in tensors), tuple(leaves[i] for i in self.dynamic_ints)

    def describe(self):
        lines = [g.describe() for _, g in self.tensors]
        lines += [f"{name}: any int (dynamic)" if dynamic else f"{name} == {value!r}"
                  for _, name, value, dynamic in self.values]
        lines += [f"{what} == {value}" for what, value in self.globals]
        if self.module_modes:
            lines.append(f"module training flags == {self.module_modes[0]}, and the same parameters, "
                         f"buffers and submodules")
        return lines
