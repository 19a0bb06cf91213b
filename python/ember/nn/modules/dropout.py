"""Dropout: zeroes elements with probability p while training, scaling the
others by 1 / (1 - p)."""

from .. import functional as F
from .module import Module


class Dropout(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class _ChannelDropout(Dropout):
    _function = None

    def forward(self, input):
        return type(self)._function(input, self.p, self.training, self.inplace)


class Dropout1d(_ChannelDropout):
    _function = staticmethod(F.dropout1d)


class Dropout2d(_ChannelDropout):
    _function = staticmethod(F.dropout2d)


class Dropout3d(_ChannelDropout):
    _function = staticmethod(F.dropout3d)


class AlphaDropout(_ChannelDropout):
    _function = staticmethod(F.alpha_dropout)


class FeatureAlphaDropout(_ChannelDropout):
    _function = staticmethod(F.feature_alpha_dropout)
