"""OneHotCategorical(probs or logits): Categorical's draws as one-hot
vectors along the last dim; OneHotCategoricalStraightThrough adds a
straight-through rsample."""

from .. import _factories
from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .utils import CategoricalParameters


class OneHotCategorical(CategoricalParameters, Distribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        shape = self._categorical.param_shape
        super().__init__(shape[:-1], shape[-1:], validate_args=validate_args)

    @property
    def mean(self):
        return self._categorical.probs

    @property
    def mode(self):
        return self._one_hot(self._categorical.probs.argmax(-1))

    @property
    def variance(self):
        probs = self._categorical.probs
        return probs * (1 - probs)

    def _one_hot(self, indices):
        probs = self._categorical.probs
        return (indices.unsqueeze(-1) == _factories.arange(probs.shape[-1], device=probs.device)).to(probs.dtype)

    def sample(self, sample_shape=()):
        return self._one_hot(self._categorical.sample(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.max(-1).indices)

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        count = self._event_shape[0]
        values = self._one_hot(_factories.arange(count, device=self._categorical.probs.device))
        values = values.view([count] + [1] * len(self._batch_shape) + [count])
        return values.expand([count] + list(self._batch_shape) + [count]) if expand else values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """OneHotCategorical whose rsample is the straight-through estimator:
    a one-hot draw forward, the gradient of probs backward (Bengio et al., 2013)."""

    has_rsample = True

    def rsample(self, sample_shape=()):
        drawn = self.sample(sample_shape)
        probs = self._categorical.probs
        return drawn + (probs - probs.detach())
