"""The Distribution base: batch and event shapes, argument and sample
validation with PyTorch's messages, sample() through rsample()."""

from .. import _C
from .._tensor import Size
from ..autograd.grad_mode import no_grad
from . import constraints


class Distribution:
    has_rsample = False
    arg_constraints = {}
    support = None
    # As in PyTorch, arguments and samples are checked unless asked not to
    # (validate_args=False) or Python runs with -O.
    _validate_args = __debug__

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape, self._event_shape = Size(batch_shape), Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if not self._validate_args:
            return
        for name, constraint in self.arg_constraints.items():
            if name not in self.__dict__ and not isinstance(getattr(type(self), name, None), property):
                continue  # a lazy parameter, computed from a checked one
            value = getattr(self, name)
            if not constraints.all_true(constraint.check(value)):
                raise ValueError(f"Expected parameter {name} ({type(value).__name__} of shape {tuple(value.shape)}) "
                                 f"of distribution {self!r} to satisfy the constraint {constraint!r}, but found "
                                 f"invalid values:\n{value}")

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    @property
    def stddev(self):
        return self.variance.sqrt()

    def expand(self, batch_shape, _instance=None):
        """This distribution with batch_shape (its own broadcast to it): the
        parameters and inner distributions are expanded views, not copies."""
        batch_shape = Size(batch_shape)
        new = _instance if _instance is not None else type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        for name, value in self.__dict__.items():
            if name in self.arg_constraints and isinstance(value, _C.Tensor):
                new.__dict__[name] = value.expand(tuple(batch_shape) + _trailing(value.shape, self._batch_shape))
            elif isinstance(value, Distribution):
                new.__dict__[name] = self._expanded_inner(value, batch_shape)
        new._batch_shape = batch_shape
        return new

    def _expanded_inner(self, inner, batch_shape):
        """A distribution this one is built on, expanded along with it."""
        return inner.expand(tuple(batch_shape) + _trailing(inner.batch_shape, self._batch_shape))

    def _extended_shape(self, sample_shape=()):
        return Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def sample(self, sample_shape=()):
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        raise NotImplementedError(f"{type(self).__name__} has no reparameterized sample (rsample)")

    def _validate_sample(self, value):
        if not isinstance(value, _C.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        actual, expected = tuple(value.shape), tuple(self._batch_shape) + tuple(self._event_shape)
        if actual[len(actual) - len(self._event_shape):] != tuple(self._event_shape):
            raise ValueError(f"The right-most size of value must match event_shape: {value.shape} vs "
                             f"{self._event_shape}.")
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {Size(actual)} vs "
                                 f"{Size(expected)}.")
        if not constraints.all_true(self.support.check(value)):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be "
                             f"within the support ({self.support!r}) of the distribution {self!r}, but found "
                             f"invalid values:\n{value}")

    def __repr__(self):
        arguments = ", ".join(f"{name}: {value if value.numel() == 1 else value.shape}"
                              for name, value in ((name, self.__dict__[name]) for name in self.arg_constraints
                                                  if name in self.__dict__))
        return f"{type(self).__name__}({arguments})"


def _trailing(shape, batch_shape):
    """The dims of a parameter's shape past the distribution's batch dims."""
    return tuple(shape[len(batch_shape):])


def of_base(name):
    """A property read from the distribution's base_dist (Independent,
    TransformedDistribution and the distributions built on them)."""
    return property(lambda self: getattr(self.base_dist, name), doc=f"base_dist.{name}")
