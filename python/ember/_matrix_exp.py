"""The matrix exponential behind ember.linalg.matrix_exp, composed of
matmuls so that autograd derives its gradient."""

import math

import ember

# exp(A) = exp(A / 2**s) ** (2**s): with s chosen so that the scaled matrix
# has norm at most 1/2, 18 terms of the Taylor series leave an error below
# 0.5**19 / 19!, far under float64's precision.
_TAYLOR_TERMS = 18
_SCALED_NORM = 0.5


def matrix_exp(A):  # noqa: N803  (PyTorch's names)
    """exp of each square matrix in A, by scaling, a Taylor series and squaring."""
    with ember.no_grad():
        norm = float(A.abs().sum(-1).max().item()) if A.numel() else 0.0
    squarings = max(0, math.ceil(math.log2(norm / _SCALED_NORM))) if norm > 0 else 0
    scaled = A / (2 ** squarings)
    identity = ember.eye(A.shape[-1], dtype=A.dtype, device=A.device).expand(list(A.shape))
    result = identity
    for term in range(_TAYLOR_TERMS, 0, -1):
        result = identity + scaled.matmul(result) / term
    for _ in range(squarings):
        result = result.matmul(result)
    return result
