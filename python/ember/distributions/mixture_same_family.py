"""MixtureSameFamily(mixture, components): a Categorical over the last
batch dim of one distribution's batch, as PyTorch's: log_prob sums the
weighted component densities (in log space), sample draws a component per
sample and takes its draw."""

from .._tensor import Size
from ..autograd.grad_mode import no_grad
from .categorical import Categorical
from .distribution import Distribution


class MixtureSameFamily(Distribution):
    arg_constraints = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        if not isinstance(mixture_distribution, Categorical):
            # PyTorch's words, spaces included.
            raise ValueError(" The Mixture distribution needs to be an  instance of ember.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of ember.distributions.Distribution")
        mixture_batch = tuple(mixture_distribution.batch_shape)
        component_batch = tuple(component_distribution.batch_shape)[:-1]
        for a, b in zip(reversed(mixture_batch), reversed(component_batch)):
            if a != 1 and b != 1 and a != b:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mixture_distribution.batch_shape}) is not "
                                 f"compatible with `component_distribution.batch_shape`({Size(component_batch)})")
        components = mixture_distribution.logits.shape[-1]
        if components != component_distribution.batch_shape[-1]:
            raise ValueError(f"`mixture_distribution component` ({components}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({component_distribution.batch_shape[-1]})")
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        self._num_component = components
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(component_batch, component_distribution.event_shape, validate_args=validate_args)

    @property
    def mixture_distribution(self):
        return self._mixture_distribution

    @property
    def component_distribution(self):
        return self._component_distribution

    @property
    def support(self):
        return self._component_distribution.support

    def _weights(self):
        """The mixture's probabilities with dims of 1 for the event's."""
        probs = self._mixture_distribution.probs
        return probs.reshape(list(probs.shape) + [1] * self._event_ndims)

    @property
    def mean(self):
        return (self._weights() * self._component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self):
        weights = self._weights()
        within = (weights * self._component_distribution.variance).sum(-1 - self._event_ndims)
        spread = self._component_distribution.mean - self.mean.unsqueeze(-1 - self._event_ndims)
        return within + (weights * spread.pow(2)).sum(-1 - self._event_ndims)

    def cdf(self, value):
        value = value.unsqueeze(-1 - self._event_ndims)
        return (self._component_distribution.cdf(value) * self._mixture_distribution.probs).sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        per_component = self._component_distribution.log_prob(value.unsqueeze(-1 - self._event_ndims))
        return (per_component + self._mixture_distribution.logits.log_softmax(-1)).logsumexp(-1)

    def sample(self, sample_shape=()):
        with no_grad():
            gather_dim = len(tuple(sample_shape)) + len(self._batch_shape)
            chosen = self._mixture_distribution.sample(sample_shape)
            drawn = self._component_distribution.sample(sample_shape)
            event = list(self._event_shape)
            index = chosen.reshape(list(chosen.shape) + [1] * (len(event) + 1))
            index = index.expand(list(chosen.shape) + [1] + event)
            return drawn.gather(gather_dim, index).squeeze(gather_dim)
