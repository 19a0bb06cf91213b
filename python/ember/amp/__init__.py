"""ember.amp, as torch.amp: autocast regions and gradient scaling for mixed
precision (docs/python.md, "Mixed precision")."""

from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from .grad_scaler import GradScaler

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available", "GradScaler"]
