"""The three ways a covariance is given (covariance_matrix,
precision_matrix, scale_tril), held as the Cholesky factor L of the
covariance, with the two not given derived from L when first read
(MultivariateNormal, Wishart)."""

from .. import _factories, linalg

NAMES = ("covariance_matrix", "precision_matrix", "scale_tril")


def chosen(covariance_matrix, precision_matrix, scale_tril):
    """(name, matrix) of the one parametrization given."""
    given = [(name, m) for name, m in zip(NAMES, (covariance_matrix, precision_matrix, scale_tril)) if m is not None]
    if len(given) != 1:
        raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
    return given[0]


def precision_to_scale_tril(precision):
    """L with L L^T = P^{-1}: the Cholesky factor of P with its rows and
    columns reversed is the inverse transpose of an upper factor of P^{-1}."""
    flipped = linalg.cholesky(precision.flip((-2, -1)))
    inverse_transposed = flipped.flip((-2, -1)).mT
    eye = _factories.eye(precision.shape[-1], dtype=precision.dtype, device=precision.device)
    return linalg.solve_triangular(inverse_transposed, eye, upper=False)


def scale_tril_of(name, matrix):
    if name == "scale_tril":
        return matrix
    if name == "covariance_matrix":
        return linalg.cholesky(matrix)
    return precision_to_scale_tril(matrix)


class CovarianceParametrizations:
    """Derives scale_tril, covariance_matrix and precision_matrix from
    `_unbroadcasted_scale_tril`, expanded to the batch shape, on first read."""

    def __getattr__(self, name):
        factor = self.__dict__.get("_unbroadcasted_scale_tril")
        if factor is None or name not in NAMES:
            raise AttributeError(name)
        shape = tuple(self._batch_shape) + (factor.shape[-1],) * 2
        if name == "scale_tril":
            value = factor
        elif name == "covariance_matrix":
            value = factor @ factor.mT
        else:
            eye = _factories.eye(factor.shape[-1], dtype=factor.dtype, device=factor.device)
            inverse = linalg.solve_triangular(factor, eye, upper=False)
            value = inverse.mT @ inverse
        self.__dict__[name] = value.expand(*shape)
        return self.__dict__[name]
