"""The module path torch.distributions.log_normal: LogNormal lives with TransformedDistribution."""

from .transformed_distribution import LogNormal

__all__ = ["LogNormal"]
