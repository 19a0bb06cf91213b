"""torch.special: the special functions among Ember's elementwise ops, under
the names torch.special gives them."""

from ._C import digamma, erf, erfc, erfinv, sigmoid as expit  # noqa: F401  (re-exported)
from ._C import digamma as psi, lgamma as gammaln  # noqa: F401

__all__ = ["digamma", "erf", "erfc", "erfinv", "expit", "gammaln", "psi"]
