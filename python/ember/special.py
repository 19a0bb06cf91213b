"""torch.special: the special functions among Ember's elementwise ops and
those composed in _special_functions, under the names torch.special gives
them."""

from ._C import digamma, erf, erfc, erfinv, sigmoid as expit  # noqa: F401  (re-exported)
from ._C import digamma as psi, lgamma as gammaln  # noqa: F401
from ._special_functions import i0, i0e, i1, i1e, polygamma, zeta  # noqa: F401
from ._special_functions import igamma as gammainc, igammac as gammaincc, mvlgamma as multigammaln  # noqa: F401

__all__ = ["digamma", "erf", "erfc", "erfinv", "expit", "gammainc", "gammaincc", "gammaln", "i0", "i0e", "i1", "i1e",
           "multigammaln", "polygamma", "psi", "zeta"]
