"""ExponentialFamily: densities p(x) = h(x) exp(<theta, t(x)> - A(theta)),
whose entropy follows from the log normalizer A by autograd:
H = A(theta) - <theta, grad A(theta)> - E[log h(x)]."""

from .. import autograd
from .distribution import Distribution


class ExponentialFamily(Distribution):
    """Subclasses give _natural_params (theta), _log_normalizer(*theta) and
    _mean_carrier_measure (E[log h(x)])."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        natural_params = [p.detach().requires_grad_() for p in self._natural_params]
        log_normalizer = self._log_normalizer(*natural_params)
        gradients = autograd.grad(log_normalizer.sum(), natural_params, create_graph=True)
        result = log_normalizer - self._mean_carrier_measure
        for parameter, gradient in zip(natural_params, gradients):
            result = result - (parameter * gradient).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
