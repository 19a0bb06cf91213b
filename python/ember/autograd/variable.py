"""torch.autograd.variable: the legacy Variable (a tensor since PyTorch 0.4)."""

from . import Variable

__all__ = ["Variable"]
