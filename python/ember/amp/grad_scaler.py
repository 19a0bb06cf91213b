"""ember.amp.GradScaler: loss scaling for float16 training, as
torch.amp.GradScaler (docs/python.md, "Mixed precision")."""

import enum
import warnings

from .. import _C
from .._factories import full, zeros
from .._plugins import device_count
from ..autograd.grad_mode import no_grad


class _Stage(enum.Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_state():
    return {"stage": _Stage.READY, "found_inf": None}


class GradScaler:
    """Multiplies the loss by a scale so that float16 gradients do not
    underflow, unscales the gradients before the optimizer steps, skips steps
    whose gradients hold an inf or NaN, and adapts the scale: times
    backoff_factor after a skipped step, times growth_factor after
    growth_interval steps in a row without one."""

    def __init__(self, device="cuda", init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = str(device)
        self._enabled = bool(enabled)
        if self._enabled and self._device != "cpu" and device_count(self._device) == 0:
            warnings.warn(f"ember.amp.GradScaler is enabled, but no '{self._device}' device is available. "
                          f"Disabling.")
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise ValueError(f"GradScaler: growth_factor must be > 1.0, got {growth_factor}")
            if backoff_factor >= 1.0:
                raise ValueError(f"GradScaler: backoff_factor must be < 1.0, got {backoff_factor}")
            if not isinstance(growth_interval, int) or growth_interval <= 0:
                raise ValueError(f"GradScaler: growth_interval must be a positive int, got {growth_interval!r}")
        self._init_scale = float(init_scale)
        self._growth_factor = float(growth_factor)
        self._backoff_factor = float(backoff_factor)
        self._growth_interval = growth_interval
        self._init_growth_tracker = 0
        self._scale = None
        self._growth_tracker = None
        self._per_optimizer_states = {}

    def is_enabled(self):
        return self._enabled

    def _lazy_init(self, device):
        self._scale = full([], self._init_scale, dtype=_C.float32, device=device)
        self._growth_tracker = full([], self._init_growth_tracker, dtype=_C.int32, device=device)

    def _state(self, optimizer):
        return self._per_optimizer_states.setdefault(id(optimizer), _fresh_state())

    def scale(self, outputs):
        """`outputs` (a tensor, or lists and tuples of them) times the scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, _C.Tensor):
            if self._scale is None:
                self._lazy_init(outputs.device)
            return outputs * self._scale.to(outputs.device)
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(output) for output in outputs)
        raise ValueError("GradScaler.scale: outputs must be a Tensor or an iterable of Tensors, got "
                         f"{type(outputs).__name__}")

    def _check_scale(self, method):
        if self._scale is None:
            raise RuntimeError(f"Attempted {method} but _scale is None. This may indicate your script did not use "
                               f"scaler.scale(loss or outputs) earlier in the iteration.")

    def unscale_(self, optimizer):
        """Divides the optimizer's gradients by the scale, in place, and
        records whether any is inf or NaN; at most once per update()."""
        if not self._enabled:
            return
        self._check_scale("unscale_")
        state = self._state(optimizer)
        if state["stage"] is _Stage.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is _Stage.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = self._scale.double().reciprocal().float()
        grads = []
        for group in optimizer.param_groups:
            for param in group["params"]:
                if param.grad is None:
                    continue
                if param.grad.dtype == _C.float16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                grads.append(param.grad)
        with no_grad():
            found_inf = zeros([], dtype=_C.float32, device=self._scale.device)
            if grads:
                finite = _C.stack([grad.isfinite().all().to(self._scale.device) for grad in grads]).all()
                found_inf = found_inf + (~finite).float()
                for grad in grads:
                    grad.mul_(inv_scale.to(grad.device))
        state["found_inf"] = found_inf
        state["stage"] = _Stage.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """optimizer.step(*args, **kwargs) after unscale_ (when not called
        already), skipped when a gradient is inf or NaN; returns its result."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale("step")
        state = self._state(optimizer)
        if state["stage"] is _Stage.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is _Stage.READY:
            self.unscale_(optimizer)
        result = None
        if not state["found_inf"].item():
            result = optimizer.step(*args, **kwargs)
        state["stage"] = _Stage.STEPPED
        return result

    def update(self, new_scale=None):
        """Sets the scale for the next iteration: `new_scale`, or the scale
        adapted to whether this iteration's steps found an inf or NaN."""
        if not self._enabled:
            return
        self._check_scale("update")
        if new_scale is not None:
            if isinstance(new_scale, _C.Tensor):
                if new_scale.numel() != 1 or new_scale.dtype != _C.float32 or new_scale.requires_grad:
                    raise ValueError("new_scale should be a float or a 1-element float32 tensor with "
                                     "requires_grad=False.")
                self._scale.copy_(new_scale.reshape([]))
            else:
                self._scale.fill_(float(new_scale))
        else:
            found = [state["found_inf"] for state in self._per_optimizer_states.values()
                     if state["found_inf"] is not None]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            skipped = any(f.item() for f in found)
            tracker = int(self._growth_tracker.item())
            if skipped:
                self._scale.mul_(self._backoff_factor)
                tracker = 0
            elif tracker + 1 == self._growth_interval:
                grown = self._scale.item() * self._growth_factor
                if grown != float("inf"):
                    self._scale.fill_(grown)
                tracker = 0
            else:
                tracker += 1
            self._growth_tracker.fill_(tracker)
        self._per_optimizer_states = {}

    def get_scale(self):
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale.item()

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = float(new_factor)

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = float(new_factor)

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else int(self._growth_tracker.item())

    def state_dict(self):
        """The scale and the growth settings, as PyTorch's keys; empty when disabled."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = float(state_dict["scale"])
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = int(state_dict["_growth_tracker"])
        if self._scale is not None:
            self._scale.fill_(self._init_scale)
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(self._init_growth_tracker)
