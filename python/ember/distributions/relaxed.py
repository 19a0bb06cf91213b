"""RelaxedBernoulli and RelaxedOneHotCategorical (the Concrete, or
Gumbel-softmax, relaxations): reparameterized samples inside (0, 1) and on
the open simplex that approach Bernoulli and one-hot Categorical draws as
the temperature goes to 0. Each is, as in PyTorch, a TransformedDistribution
of a distribution over logits: LogitRelaxedBernoulli through a sigmoid,
ExpRelaxedCategorical through exp."""

from .. import _factories
from .._type_info import finfo
from . import constraints
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform, SigmoidTransform
from .utils import BinaryParameters, CategoricalParameters, broadcast_all, clamp_probs


class LogitRelaxedBernoulli(BinaryParameters, Distribution):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real
    has_rsample = True
    param_shape = Distribution.batch_shape

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        given = self._given(probs, logits)
        self.temperature = temperature
        (parameter,) = broadcast_all(given)
        self._keep("probs" if probs is not None else "logits", parameter)
        super().__init__(parameter.shape, validate_args=validate_args)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        probs = clamp_probs(self.probs.expand(shape))
        uniform = clamp_probs(_factories.rand(*shape, dtype=probs.dtype, device=probs.device))
        return (uniform.log() - (-uniform).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        difference = logits - value * self.temperature
        return self.temperature.log() + difference - 2 * difference.exp().log1p()


class ExpRelaxedCategorical(CategoricalParameters, Distribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        from .categorical import Categorical

        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        shape = self._categorical.param_shape
        super().__init__(shape[:-1], shape[-1:], validate_args=validate_args)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        info = finfo(self.logits.dtype)
        uniform = _factories.rand(*shape, dtype=self.logits.dtype, device=self.logits.device).clamp(
            min=info.tiny, max=1 - info.eps)
        scores = (self.logits - (-uniform.log()).log()) / self.temperature
        return scores - scores.logsumexp(-1, keepdim=True)

    def log_prob(self, value):
        count = self._event_shape[0]
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        temperature = self.temperature if hasattr(self.temperature, "log") else _factories.tensor(
            float(self.temperature), dtype=logits.dtype)
        log_scale = _factories.full_like(temperature, float(count)).lgamma() + temperature.log() * (count - 1)
        score = logits - value * temperature
        score = (score - score.logsumexp(-1, keepdim=True)).sum(-1)
        return score + log_scale


class _Relaxed(TransformedDistribution):
    """A relaxation: its base distribution's temperature and parameters."""

    has_rsample = True

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs


class RelaxedBernoulli(_Relaxed):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        super().__init__(LogitRelaxedBernoulli(temperature, probs, logits), SigmoidTransform(),
                         validate_args=validate_args)


class RelaxedOneHotCategorical(_Relaxed):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        super().__init__(ExpRelaxedCategorical(temperature, probs, logits), ExpTransform(),
                         validate_args=validate_args)
