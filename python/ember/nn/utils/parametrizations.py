"""The parametrizations torch.nn.utils.parametrizations offers: orthogonal,
weight_norm and spectral_norm, each registered through parametrize."""

import ember

from ..._householder import geqrf
from .. import functional as F
from ..modules.module import Module
from . import parametrize
from .spectral_norm import default_spectral_dim, weight_as_matrix
from .weight_norm import norm_except_dim, normalized_weight

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]

_ORTHOGONAL_MAPS = ("matrix_exp", "cayley", "householder")


def _mT(x):  # noqa: N802  (PyTorch's name)
    return x.transpose(-2, -1)


def _diagonal(x):
    return x.diagonal(0, -2, -1)


def _is_orthogonal(Q):  # noqa: N803
    rows, columns = Q.shape[-2:]
    identity = ember.eye(columns, dtype=Q.dtype, device=Q.device)
    return ember.allclose(_mT(Q).matmul(Q), identity, atol=10.0 * rows * ember.finfo(Q.dtype).eps)


def _make_orthogonal(A):  # noqa: N803
    """The Q of A's QR factorization whose R has a positive diagonal."""
    Q, R = ember.linalg.qr(A)  # noqa: N806
    return Q * _diagonal(R).sgn().unsqueeze(-2)


class _Orthogonal(Module):
    """Maps an unconstrained matrix to an orthogonal one. With
    use_trivialization, the result is `base @ map(X)` and assigning Q stores
    it in `base` and sets X to the point the map sends to the identity."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == "householder":
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):  # noqa: N803
        rows, columns = X.shape[-2:]
        transposed = rows < columns
        if transposed:
            X, rows, columns = _mT(X), columns, rows  # noqa: N806
        if self.orthogonal_map == "householder":
            reflectors = X.tril(-1)
            tau = 2.0 / (1.0 + (reflectors * reflectors).sum(-2))
            # X's diagonal holds each column's sign; PyTorch reads it through
            # int(), which trunc() matches, gradient (none) included.
            Q = ember.linalg.householder_product(reflectors, tau) * _diagonal(X).trunc().unsqueeze(-2)  # noqa: N806
        else:
            lower = X.tril()
            if rows != columns:
                lower = ember.cat([lower, lower.new_zeros([rows, rows - columns]).expand(
                    list(lower.shape[:-2]) + [rows, rows - columns])], -1)
            skew = lower - _mT(lower)
            if self.orthogonal_map == "matrix_exp":
                Q = ember.linalg.matrix_exp(skew)  # noqa: N806
            else:
                identity = ember.eye(rows, dtype=skew.dtype, device=skew.device)
                Q = ember.linalg.solve(identity - 0.5 * skew, identity + 0.5 * skew)  # noqa: N806
            Q = Q[..., :columns]  # noqa: N806
        if "base" in self._buffers:
            Q = self.base.matmul(Q)  # noqa: N806
        return _mT(Q) if transposed else Q

    def right_inverse(self, Q):  # noqa: N803
        with ember.no_grad():
            return self._preimage(Q)

    def _preimage(self, Q):  # noqa: N803
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        target = Q
        rows, columns = Q.shape[-2:]
        transposed = rows < columns
        if transposed:
            Q, rows, columns = _mT(Q), columns, rows  # noqa: N806
        if "base" not in self._buffers:
            if self.orthogonal_map != "householder":
                raise NotImplementedError("It is not possible to assign to the matrix exponential or the Cayley "
                                          "parametrizations when use_trivialization=False.")
            A, tau = geqrf(Q)  # noqa: N806
            # The diagonal keeps only each column's sign, flipped where
            # geqrf reflected nothing, so that forward gives Q back.
            diagonal = _diagonal(A)
            diagonal.copy_(diagonal.sign() * ember.where(tau == 0, -ember.ones_like(tau), ember.ones_like(tau)))
            return _mT(A) if transposed else A
        if rows == columns:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)  # noqa: N806
        else:
            completion = ember.randn(list(Q.shape[:-2]) + [rows, rows - columns], dtype=Q.dtype, device=Q.device)
            Q = _make_orthogonal(ember.cat([Q, completion], -1))  # noqa: N806
        self.base = Q
        # The point every map sends to the identity, so that forward gives base.
        identity = ember.eye(target.shape[-2], target.shape[-1], dtype=target.dtype, device=target.device)
        return -identity.expand(list(target.shape)).contiguous()


def _tensor_attribute(module, name):
    weight = getattr(module, name, None)
    if not isinstance(weight, ember.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    return weight


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Keeps module.<name> (a matrix or batch of them) orthogonal."""
    weight = _tensor_attribute(module, name)
    if weight.dim() < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.dim()} dimensions.")
    if orthogonal_map is None:
        square = weight.shape[-2] == weight.shape[-1]
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    if orthogonal_map not in _ORTHOGONAL_MAPS:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    parametrization = _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, parametrization, unsafe=True)
    return module


class _WeightNorm(Module):
    """weight = g * v / |v|, the norm taken over every dim but `dim`."""

    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return normalized_weight(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Splits module.<name> into a magnitude (original0) and a direction
    (original1); a state dict saved with the hook-based weight_norm's
    <name>_g and <name>_v loads into them."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def load_hook_based_entries(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                error_msgs):
        magnitude, direction = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if magnitude in state_dict and direction in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(magnitude)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(direction)

    module._register_load_state_dict_pre_hook(load_hook_based_entries)
    return module


class _SpectralNorm(Module):
    """weight / sigma, sigma its largest singular value as power iteration
    estimates it: one or more steps of it on every training-mode read, the
    vectors kept in the buffers _u and _v."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.dim()
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got "
                             f"{dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim % ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            matrix = weight_as_matrix(weight, self.dim)
            rows, columns = matrix.shape
            self.register_buffer("_u", F.normalize(matrix.new_empty([rows]).normal_(0, 1), dim=0, eps=eps))
            self.register_buffer("_v", F.normalize(matrix.new_empty([columns]).normal_(0, 1), dim=0, eps=eps))
            # A good estimate from the start, as PyTorch makes it.
            self._power_method(matrix, 15)

    def _power_method(self, matrix, iterations):
        # In place, so that the buffers stay the tensors state_dict() and
        # compiled functions hold.
        with ember.no_grad():
            for _ in range(iterations):
                self._u.copy_(F.normalize(matrix.mv(self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(_mT(matrix).mv(self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.dim() == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        matrix = weight_as_matrix(weight, self.dim)
        if self.training:
            self._power_method(matrix, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = (u * matrix.mv(v)).sum()
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divides module.<name> by its spectral norm on every read."""
    weight = _tensor_attribute(module, name)
    dim = default_spectral_dim(module) if dim is None else dim
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
