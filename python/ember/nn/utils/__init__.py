"""ember.nn.utils."""

from . import parametrizations, parametrize, rnn
from .clip_grad import clip_grad_norm_, clip_grad_value_
from .weight_norm import remove_weight_norm, weight_norm

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parametrizations", "parametrize", "remove_weight_norm", "rnn",
           "weight_norm"]
