"""The module path torch.distributions.chi2: Chi2 lives with Gamma, of which it is a case."""

from .gamma import Chi2

__all__ = ["Chi2"]
