"""ember.utils: helpers that PyTorch keeps under torch.utils."""

from . import data, dlpack
