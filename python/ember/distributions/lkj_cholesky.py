"""LKJCholesky(dim, concentration): the Cholesky factor of a correlation
matrix whose density is proportional to det(R) ** (concentration - 1)
(Lewandowski, Kurowicka and Joe, 2009)."""

import math

from .. import _C, _factories
from .._type_info import finfo
from ..autograd.grad_mode import no_grad
from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import batch_shape_of, broadcast_all


class LKJCholesky(Distribution):
    """Sampled by the onion method: row i of the factor is sqrt(y) times a
    uniform direction in its first i coordinates, y ~ Beta(i / 2,
    concentration + (dim - 2 - i) / 2), and its diagonal completes the unit
    norm."""

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        super().__init__(batch_shape_of([concentration], self.concentration), (dim, dim),
                         validate_args=validate_args)

    def _row_beta(self):
        """The Beta of each row's squared off-diagonal norm (row 0's is unused: that row is empty)."""
        concentration = self.concentration.expand(tuple(self._batch_shape))
        offset = _factories.arange(self.dim - 1, dtype=concentration.dtype, device=concentration.device)
        offset = _C.cat([offset.new_zeros((1,)), offset])
        marginal = concentration + 0.5 * (self.dim - 2)
        return Beta(offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset)

    def sample(self, sample_shape=()):
        with no_grad():
            squared_norms = self._row_beta().sample(sample_shape).unsqueeze(-1)
            normal = _factories.randn(*self._extended_shape(sample_shape), dtype=squared_norms.dtype,
                                      device=squared_norms.device).tril(-1)
            tiny = finfo(normal.dtype).tiny
            directions = normal / normal.pow(2).sum(-1, keepdim=True).sqrt().clamp(min=tiny)
            rows = squared_norms.sqrt() * directions
            diagonal = (1 - rows.pow(2).sum(-1)).clamp(min=tiny).sqrt()
            return rows + diagonal.diag_embed()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diagonal = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = _factories.arange(2, self.dim + 1, dtype=self.concentration.dtype, device=self.concentration.device)
        exponents = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized = (exponents * diagonal.log()).sum(-1)
        rows = self.dim - 1
        alpha = self.concentration + 0.5 * rows
        log_normalizer = 0.5 * rows * math.log(math.pi) + (alpha - 0.5).mvlgamma(rows) - alpha.lgamma() * rows
        return unnormalized - log_normalizer
